"""Which calibration a run's scorecard shows (docs/calibration.md, "The record, and where it is shown").

One import source, `support`, holds the packaged sample's 40 calls and two later calls; its production
runs are graded by window: W1 (June 3-4, 16 calls), W2 (June 5-7, 24 calls), LATE (the two later
calls: same source, none of the sample's calls) and ALL (the sample's 40). One call imported under
another source, `other`, is graded as OTHER. Under rubric v1 the judge is calibrated on the packaged
sample (on ALL); under rubric v2 on real-looking labels of W1's calls named `q3-ratings`.
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from polygon.tasks import publish_artifacts_task
from prefect import flow
from typer.testing import CliRunner

import polygon_core.calibration.samples as samples
from polygon import usecases
from polygon.cli import app
from polygon.web import create_app
from polygon_core.adapters.settings import load_settings
from polygon_core.adapters.storage import CalibrationStore
from polygon_core.adapters.storage._tables import CalibrationRow
from polygon_core.calibration import SAMPLE_DATASET
from polygon_core.compare import Scorecard
from polygon_core.reports import md_text

pytestmark = [pytest.mark.prefect, pytest.mark.usefixtures("prefect_harness")]
runner = CliRunner()
SAMPLE = Path(samples.__file__).parent
JUDGE = "offline-heuristic"
NOT_CALIBRATED = f"judge {JUDGE}, rubric v1: not calibrated"
Q3_ELSEWHERE = f"judge {JUDGE}, rubric v2: calibrated on q3-ratings (16), not on these calls"


@dataclass(frozen=True)
class Graded:
    home: Path
    w1: str
    w2: str
    late: str
    all: str
    other: str


@flow(name="publish-scorecard")
def _publish(card: Scorecard) -> None:
    """The evaluate flow's artifact task, in a flow run as the flow calls it."""
    publish_artifacts_task(card)


def _flat(text: str) -> str:
    return " ".join(text.split())


def _ok(*args: str) -> dict[str, Any]:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def _grade(source: str, *window: str) -> str:
    (card,) = _ok("grade-calls", source, *window)["runs"]
    return str(card["run_id"])


def _later_calls(path: Path, ids: list[str], day: str) -> Path:
    """The first sample calls again, under new ids and on a later day: other calls."""
    lines = (SAMPLE / "calls.jsonl").read_text(encoding="utf-8").splitlines()[:len(ids)]
    calls = [{**json.loads(line), "id": new, "started_at": f"{day}T09:00:00Z"} for line, new in zip(lines, ids,
                                                                                                     strict=True)]
    path.write_text("".join(json.dumps(c) + "\n" for c in calls), encoding="utf-8")
    return path


def _w1_labels(path: Path) -> Path:
    """The sample's ratings of W1's calls only: other bytes than the packaged file, so not the sample."""
    days = {json.loads(line)["id"]: json.loads(line)["started_at"][:10]
            for line in (SAMPLE / "calls.jsonl").read_text(encoding="utf-8").splitlines()}
    with (SAMPLE / "labels.csv").open(encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(fh) if days[r["external_id"]] <= "2024-06-04"]
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    path.write_text(out.getvalue(), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Graded]:
    root = tmp_path_factory.mktemp("matching")
    home = root / ".polygon"
    names = ("POLYGON_HOME", "POLYGON_DATABASE_URL", "POLYGON_ARTIFACTS_URL", "POLYGON_API_TOKENS")
    saved = {k: os.environ.get(k) for k in names}
    os.environ["POLYGON_HOME"] = str(home)
    for k in names[1:]:
        os.environ.pop(k, None)
    try:
        _ok("import", str(SAMPLE / "calls.jsonl"), "--format", "polygon", "--source", "support")
        _ok("import", str(_later_calls(root / "late.jsonl", ["late-1", "late-2"], "2024-07-01")), "--format",
            "polygon", "--source", "support")
        _ok("import", str(_later_calls(root / "other.jsonl", ["other-1"], "2024-06-03")), "--format", "polygon",
            "--source", "other")
        g = Graded(home=home, w1=_grade("support", "--until", "2024-06-04"),
                   w2=_grade("support", "--since", "2024-06-05", "--until", "2024-06-07"),
                   late=_grade("support", "--since", "2024-07-01"),
                   all=_grade("support", "--until", "2024-06-07"), other=_grade("other"))
        # Under v1: the packaged sample, imported under a real source's name, on the run of its calls.
        _ok("calibrate", str(SAMPLE / "labels.csv"), "--run", g.all, "--resamples", "20")
        # Under v2: labels of W1's calls, named.
        _ok("calibrate", str(_w1_labels(root / "labels.csv")), "--run", g.w1, "--rubric", "v2",
            "--dataset", "q3-ratings", "--resamples", "20")
        yield g
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _shown(run_id: str, rubric: str) -> dict[str, Any]:
    return usecases.shown_calibration(usecases.open_stores(), [run_id], JUDGE, rubric)


def _record(rubric: str) -> Any:
    record = CalibrationStore(usecases.open_stores().repo.engine).latest(JUDGE, rubric)
    assert record is not None
    return record


def _rho_line(record: Any, rubric: str) -> str:
    rho = record.row("overall").rho
    return (f"judge {JUDGE}, rubric {rubric}: rho {rho.value:.2f} [{rho.low:.2f}, {rho.high:.2f}] over "
            f"{record.n} rated calls of {record.dataset}")


def test_the_record_names_its_data_and_what_it_covered(graded: Graded) -> None:
    sample, q3 = _record("v1"), _record("v2")
    assert (sample.run_id, sample.dataset, sample.sample, sample.import_sources, len(sample.conversation_ids)) == (
        graded.all, SAMPLE_DATASET, True, ["support"], 40)
    assert (q3.run_id, q3.dataset, q3.sample, q3.import_sources, len(q3.conversation_ids)) == (
        graded.w1, "q3-ratings", False, ["support"], 16)
    with (graded.home.parent / "labels.csv").open(encoding="utf-8") as fh:
        ratings = len(list(csv.DictReader(fh)))
    assert (q3.labels.file, q3.labels.ratings, q3.labels.bytes) == (
        "labels.csv", ratings, (graded.home.parent / "labels.csv").stat().st_size)
    assert set(q3.conversation_ids) == usecases.open_stores().repo.conversation_ids(graded.w1)


def test_the_sample_is_shown_only_on_runs_of_its_calls(graded: Graded) -> None:
    line = _rho_line(_record("v1"), "v1")
    assert line.endswith(" over 40 rated calls of the packaged sample (hand-written, not real data)")
    for run, match in ((graded.all, "same_run"), (graded.w1, "same_calls"), (graded.w2, "same_calls")):
        shown = _shown(run, "v1")
        assert (shown["line"], shown["match"], shown["calibrated"], shown["sample"]) == (line, match, True, True)
    # Same import source, other calls; another source: the sample is not shown, nor named.
    for run in (graded.late, graded.other):
        assert _shown(run, "v1") == {"judge_model": JUDGE, "rubric_version": "v1", "calibrated": False,
                                     "match": "none", "line": NOT_CALIBRATED}
    shown = runner.invoke(app, ["show", graded.all])
    assert shown.exit_code == 0, shown.output
    assert line in _flat(shown.stdout)
    late = runner.invoke(app, ["show", graded.late])
    assert late.exit_code == 0, late.output
    assert NOT_CALIBRATED in _flat(late.stdout) and "packaged sample" not in _flat(late.stdout)


def test_a_run_of_the_same_import_source_shows_its_calibration(graded: Graded) -> None:
    line = _rho_line(_record("v2"), "v2")
    assert line.endswith(" over 16 rated calls of q3-ratings")
    for run, match in ((graded.w1, "same_run"), (graded.all, "same_calls"), (graded.w2, "same_source"),
                       (graded.late, "same_source")):
        shown = _shown(run, "v2")
        assert (shown["line"], shown["match"], shown["calibrated"], shown["sample"]) == (line, match, True, False)
    elsewhere = _shown(graded.other, "v2")
    assert (elsewhere["line"], elsewhere["match"], elsewhere["calibrated"], elsewhere["dataset"], "rho" in elsewhere) \
        == (Q3_ELSEWHERE, "other_calls", False, "q3-ratings", False)
    for run, want in ((graded.late, line), (graded.other, Q3_ELSEWHERE)):
        shown = runner.invoke(app, ["show", run, "--rubric", "v2"])
        assert shown.exit_code == 0, shown.output
        assert want in _flat(shown.stdout)


def test_an_old_record_is_shown_only_on_its_own_run(graded: Graded) -> None:
    """A record stored before labels were fingerprinted (no labels, conversation ids or sources)."""
    stores = usecases.open_stores()
    old = _record("v2").model_dump(mode="json")
    for key in ("labels", "conversation_ids", "import_sources"):
        old.pop(key)
    old.update(rubric_version="v3", judge_prompt_hash="before", created_at="2026-01-01T00:00:00+00:00")
    columns = {k: old[k] for k in ("judge_model", "rubric_version", "judge_prompt_hash", "run_id", "labels_hash",
                                   "seed", "resamples", "created_at")}
    with stores.repo.engine.begin() as connection:
        connection.execute(CalibrationRow.__table__.insert(),  # type: ignore[attr-defined]
                           [{**columns, "n": 16, "results": {k: v for k, v in old.items() if k != "created_at"}}])
    (record,) = CalibrationStore(stores.repo.engine).page(rubric_version="v3")[1]
    assert (record.labels, record.conversation_ids, record.import_sources, record.dataset) == (
        None, None, None, "unknown data")
    own = _shown(graded.w1, "v3")
    assert (own["match"], own["calibrated"], own["labels_recorded"]) == ("same_run", True, False)
    assert own["line"].startswith(f"judge {JUDGE}, rubric v3: rho ") and own["line"].endswith(
        " over 16 rated calls of unknown data (calibrated for an earlier prompt)")
    # The same calls, the same source: what an old record covered is unknown, so it is not theirs.
    for run in (graded.all, graded.w2, graded.other):
        shown = _shown(run, "v3")
        assert (shown["line"], shown["match"], shown["calibrated"]) == (
            f"judge {JUDGE}, rubric v3: calibrated on unknown data (16), not on these calls", "other_calls", False)


def test_web_html_and_prefect_artifact_follow_the_rule(graded: Graded, tmp_path: Path) -> None:
    sample_line = _rho_line(_record("v1"), "v1")
    client = TestClient(create_app(load_settings(home=graded.home)), client=("127.0.0.1", 50125))
    for run, line in ((graded.all, sample_line), (graded.w2, sample_line), (graded.late, NOT_CALIBRATED)):
        assert client.get(f"/api/runs/{run}").json()["calibration"]["line"] == line
        assert client.get(f"/api/runs/{run}/distributions").json()["calibration"]["line"] == line
    cmp = client.get("/api/compare", params={"runs": [graded.all, graded.late]}).json()
    assert sorted(c["line"] for c in cmp["calibrations"].values()) == sorted([sample_line, NOT_CALIBRATED])
    agent = usecases.open_stores().repo.get_run(graded.late).agent_name
    trends = client.get("/api/trends", params={"agent": agent, "suite": "production:support"}).json()
    # One line over every `support` run: it holds runs of the sample's calls.
    assert [s["calibration"]["line"] for s in trends["series"]] == [sample_line]
    other = client.get("/api/trends", params={"agent": agent, "suite": "production:other"}).json()
    assert [s["calibration"]["line"] for s in other["series"]] == [NOT_CALIBRATED]
    # The HTML report.
    html = tmp_path / "report.html"
    runner.invoke(app, ["compare", graded.all, graded.late, "--html", str(html)])
    page = html.read_text(encoding="utf-8")
    assert page.count(f"<th>judge calibration</th><td class=\"num\">{sample_line}</td>"
                      f"<td class=\"num\">{NOT_CALIBRATED}</td>") == 1
    # The Prefect scorecard artifact.
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey


    stores = usecases.open_stores()
    for run, line in ((graded.all, sample_line), (graded.late, NOT_CALIBRATED)):
        _publish(usecases.scorecard(stores, run))
        key = "scorecard-" + "".join(ch if ch.isascii() and ch.isalnum() else "-" for ch in run.lower())
        with get_client(sync_client=True) as prefect:
            found = prefect.read_artifacts(artifact_filter=ArtifactFilter(key=ArtifactFilterKey(any_=[key,
                                                                                                     key + "-md"])))
        table = next(a for a in found if a.type == "table")
        rows = json.loads(table.data) if isinstance(table.data, str) else table.data
        assert rows[-1]["metric"] == "judge calibration" and rows[-1]["value"] == line
        markdown = next(a for a in found if a.type == "markdown")
        assert f"| judge calibration | {md_text(line)} |" in str(markdown.data)
