"""A synthetic run calibrated by conversation id, and the line shown beside the judge's numbers
(`polygon show`, `polygon compare` and its HTML report, the web app's JSON API)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import krippendorff
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from polygon import usecases
from polygon.cli import app
from polygon.web import create_app
from polygon_core.adapters.settings import load_settings
from polygon_core.adapters.storage import CalibrationStore
from polygon_core.demo import demo_dir

pytestmark = [pytest.mark.prefect, pytest.mark.usefixtures("prefect_harness")]
runner = CliRunner()
SUITE = demo_dir() / "suite"
V1 = demo_dir() / "agents" / "agent_v1.yaml"
V2 = demo_dir() / "agents" / "agent_v2.yaml"
# How people rated the demo agents' six scenarios: v1 is the careful agent, v2 the reckless one.
SCORES = {"v1": {"amara": 5, "bo": 4}, "v2": {"amara": 2, "bo": 1}}


@dataclass(frozen=True)
class Calibrated:
    home: Path
    v1: str
    v2: str
    labels: Path


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module")
def calibrated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Calibrated]:
    """Both demo agents run once; their conversations rated by two people; v1's run calibrated."""
    root = tmp_path_factory.mktemp("shown")
    home = root / ".polygon"
    saved = {k: os.environ.get(k) for k in ("POLYGON_HOME", "POLYGON_DATABASE_URL", "POLYGON_ARTIFACTS_URL",
                                            "POLYGON_API_TOKENS")}
    os.environ["POLYGON_HOME"] = str(home)
    for k in ("POLYGON_DATABASE_URL", "POLYGON_ARTIFACTS_URL", "POLYGON_API_TOKENS"):
        os.environ.pop(k, None)
    try:
        result = runner.invoke(app, ["run", str(SUITE), "--agent", str(V1), "--agent", str(V2), "--seeds", "1",
                                     "--json"])
        assert result.exit_code == 0, result.output
        v1, v2 = (r["run_id"] for r in json.loads(result.stdout)["runs"])
        stores = usecases.open_stores()
        lines = [json.dumps({"conversation_id": rec.conversation_id, "rater": rater, "criterion": "overall",
                             "score": score})
                 for rec in stores.repo.list_conversations(v1) for rater, score in SCORES["v1"].items()]
        labels = root / "labels.jsonl"
        labels.write_text("\n".join(lines) + "\n", encoding="utf-8")
        yield Calibrated(home=home, v1=v1, v2=v2, labels=labels)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def test_a_synthetic_run_by_conversation_id(calibrated: Calibrated) -> None:
    result = runner.invoke(app, ["calibrate", str(calibrated.labels), "--run", calibrated.v1, "--resamples", "30",
                                 "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    (overall,) = out["rows"]
    assert (out["conversations"], out["raters"], overall["criterion"], overall["n"]) == (6, 2, "overall", 6)
    # amara always says 5 and bo always 4: they agree on no call, alpha as krippendorff computes it.
    want = krippendorff.alpha(reliability_data=[[5] * 6, [4] * 6], level_of_measurement="ordinal",
                              value_domain=[1, 2, 3, 4, 5])
    assert (overall["people_alpha"], overall["people_alpha_reason"]) == (pytest.approx(want), None)
    assert out["line"].startswith("judge offline-heuristic, rubric v1: ") and out["line"].endswith(
        " over 6 rated calls of labels.jsonl")  # no --dataset: the labels file's name
    labels = out["labels"]
    content = calibrated.labels.read_bytes()
    assert labels == {"dataset": "labels.jsonl", "file": "labels.jsonl", "sha256": out["labels_hash"],
                      "ratings": 12, "bytes": len(content), "sample": False}
    assert (out["import_sources"], len(out["conversation_ids"])) == ([], 6)


def test_an_external_id_on_a_synthetic_run_needs_a_source(calibrated: Calibrated, tmp_path: Path) -> None:
    labels = tmp_path / "l.csv"
    labels.write_text("external_id,rater,criterion,score\ncall-1,a,overall,3\n", encoding="utf-8")
    result = runner.invoke(app, ["calibrate", str(labels), "--run", calibrated.v1])
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        f"error: {labels}:2: source: missing; an external_id names an imported call and run {calibrated.v1} "
        "is not a production run, so say which import source it came from")


def _line() -> str:
    record = CalibrationStore(usecases.open_stores().repo.engine).latest("offline-heuristic", "v1")
    assert record is not None
    rho = record.row("overall").rho
    value = "—" if rho.value is None else (f"{rho.value:.2f} [{rho.low:.2f}, {rho.high:.2f}]"
                                           if rho.low is not None else f"{rho.value:.2f}")
    return f"judge offline-heuristic, rubric v1: rho {value} over 6 rated calls of demo-ratings"


# Run v2 has the same conversation ids (one suite, one seed) but other calls: another agent made them.
ELSEWHERE = "judge offline-heuristic, rubric v1: calibrated on demo-ratings (6), not on these calls"


def _calibrate(calibrated: Calibrated, *extra: str) -> None:
    result = runner.invoke(app, ["calibrate", str(calibrated.labels), "--run", calibrated.v1, "--resamples", "30",
                                 "--dataset", "demo-ratings", *extra])
    assert result.exit_code == 0, result.output


def test_show_and_compare_print_the_line(calibrated: Calibrated, tmp_path: Path) -> None:
    _calibrate(calibrated)
    line = _line()
    shown = runner.invoke(app, ["show", calibrated.v1])
    assert shown.exit_code == 0, shown.output
    assert _flat(shown.stdout).count(line) == 1
    # The calibrated run shows it; a run of other calls names the data, never its rho.
    other = runner.invoke(app, ["show", calibrated.v2])
    assert other.exit_code == 0, other.output
    assert _flat(other.stdout).count(ELSEWHERE) == 1 and "rated calls" not in _flat(other.stdout)
    html = tmp_path / "report.html"
    compared = runner.invoke(app, ["compare", calibrated.v1, calibrated.v2, "--html", str(html)])
    assert _flat(compared.stdout).count(line) == 1 and _flat(compared.stdout).count(ELSEWHERE) == 1
    page = html.read_text(encoding="utf-8")
    assert page.count(f"<th>judge calibration</th><td class=\"num\">{line}</td><td class=\"num\">{ELSEWHERE}</td>") == 1


def test_web_api(calibrated: Calibrated) -> None:
    _calibrate(calibrated)
    _calibrate(calibrated, "--resamples", "31")
    client = TestClient(create_app(load_settings(home=calibrated.home)), client=("127.0.0.1", 50124))
    line = _line()
    run = client.get(f"/api/runs/{calibrated.v1}").json()
    assert {k: run["calibration"][k] for k in ("line", "calibrated", "current", "match", "dataset", "sample")} == {
        "line": line, "calibrated": True, "current": True, "match": "same_run", "dataset": "demo-ratings",
        "sample": False}
    other = client.get(f"/api/runs/{calibrated.v2}").json()["calibration"]
    assert {k: other[k] for k in ("line", "calibrated", "match", "dataset", "n", "run_id")} == {
        "line": ELSEWHERE, "calibrated": False, "match": "other_calls", "dataset": "demo-ratings", "n": 6,
        "run_id": calibrated.v1}
    assert "rho" not in other
    assert client.get(f"/api/runs/{calibrated.v2}/distributions").json()["calibration"]["line"] == ELSEWHERE
    assert client.get(f"/api/runs/{calibrated.v1}/distributions").json()["calibration"]["line"] == line
    page = client.get("/api/calibrations", params={"limit": 1}).json()
    assert (page["total"], page["offset"], page["limit"], len(page["items"])) == (2, 0, 1, 1)
    item = page["items"][0]
    assert (item["resamples"], item["run_id"], item["labels"]["dataset"], item["import_sources"]) == (
        31, calibrated.v1, "demo-ratings", [])
    assert client.get("/api/calibrations", params={"judge_model": "openai:gpt-4o"}).json()["total"] == 0
    cmp = client.get("/api/compare", params={"runs": [calibrated.v1, calibrated.v2]}).json()
    assert sorted(c["line"] for c in cmp["calibrations"].values()) == sorted([line, ELSEWHERE])
    # A trend line per agent version (issue #32, item 13): v1's line holds the calibrated run (the
    # judge was calibrated on its calls), v2's names the data it was calibrated on instead.
    trends = client.get("/api/trends").json()
    assert [([p["run_id"] for p in s["points"]], s["calibration"]["line"]) for s in trends["series"]] == [
        ([calibrated.v1], line), ([calibrated.v2], ELSEWHERE)]
