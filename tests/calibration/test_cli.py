"""`polygon calibrate` end to end on the packaged sample, as docs/calibration.md documents it."""

from __future__ import annotations

import csv
import hashlib
import json
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from polygon.tasks import compare_runs_task, publish_artifacts_task
from prefect import flow
from scipy.stats import kendalltau, spearmanr
from typer.testing import CliRunner

import polygon_core.calibration.samples as samples
from polygon import usecases
from polygon.cli import app
from polygon.cli._app import console
from polygon_core.adapters.storage import CalibrationStore, ImportLedger
from polygon_core.calibration import OVERALL, SAMPLE_DATASET, LabelledConversation
from polygon_core.compare import Scorecard
from polygon_core.judging import judge_prompt_hash
from polygon_core.reports import md_text
from polygon_core.scoring import get_rubric
from tests.web import test_browser as browser

pytestmark = [pytest.mark.prefect, pytest.mark.usefixtures("prefect_harness")]
SAMPLE = Path(samples.__file__).parent
LABELS = SAMPLE / "labels.csv"
runner = CliRunner()


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The documented path, once for the module: import the sample calls, grade them. Yields the run id."""
    home = tmp_path_factory.mktemp("calibration") / ".polygon"
    saved = {k: os.environ.get(k) for k in ("POLYGON_HOME", "POLYGON_DATABASE_URL", "POLYGON_ARTIFACTS_URL")}
    os.environ["POLYGON_HOME"] = str(home)
    for k in ("POLYGON_DATABASE_URL", "POLYGON_ARTIFACTS_URL"):
        os.environ.pop(k, None)
    try:
        imported = runner.invoke(app, ["import", str(SAMPLE / "calls.jsonl"), "--format", "polygon",
                                       "--source", "sample", "--json"])
        assert imported.exit_code == 0, imported.output
        assert json.loads(imported.stdout)["imported"] == 40
        result = runner.invoke(app, ["grade-calls", "sample", "--json"])
        assert result.exit_code == 0, result.output
        (card,) = json.loads(result.stdout)["runs"]
        yield card["run_id"]
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@pytest.fixture
def wide(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(console, "_width", 100)


def _reference(run_id: str, key: str, rubric: str = "v1") -> tuple[list[float], list[float]]:
    """The join written out here: labels.csv by hand, ids through the ledger, judge on the 1-5 scale."""
    stores = usecases.open_stores()
    with LABELS.open() as fh:
        rows = [r for r in csv.DictReader(fh) if r["criterion"] == key]
    ids = {r.external_id: r.conversation_id for r in
           ImportLedger(stores.repo.engine).known("sample", sorted({r["external_id"] for r in rows})).values()}
    people: dict[str, list[int]] = {}
    for r in rows:
        people.setdefault(ids[r["external_id"]], []).append(int(r["score"]))
    judged = {j.conversation_id: j for j in stores.repo.judgments(run_id, rubric)
              if j.judge_model == "offline-heuristic"}
    judge, humans = [], []
    for cid in sorted(people):
        j = judged[cid]
        if key == OVERALL:
            value = None if j.composite is None else 1 + 4 * j.composite / 100
        else:
            c = next(c for c in j.criteria if c.criterion == key)
            value = c.score if c.status == "scored" else None
        if value is not None:
            judge.append(value)
            humans.append(sum(people[cid]) / len(people[cid]))
    return judge, humans


@pytest.mark.usefixtures("wide")
def test_sample_calibration_table(graded: str) -> None:
    result = runner.invoke(app, ["calibrate", str(LABELS), "--run", graded])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines[:-1]) <= 100  # the table fits; the stored line is one line
    prompt = judge_prompt_hash("offline-heuristic", get_rubric("v1"))
    assert lines[0] == f"judge offline-heuristic, rubric v1, judge prompt {prompt}"
    assert lines[1] == f"run {graded}: 40 rated conversations, 3 raters"
    # The packaged sample is recognised by its content and named as what it is.
    content = LABELS.read_bytes()
    with LABELS.open() as fh:
        ratings = len(list(csv.DictReader(fh)))
    assert lines[2:5] == [f"dataset: {SAMPLE_DATASET}",
                          f"labels: labels.csv, {ratings} ratings, {len(content):,} bytes, "
                          f"sha256 {hashlib.sha256(content).hexdigest()[:12]}",
                          "shown only on runs of the sample's calls, never as this judge's calibration elsewhere"]
    assert lines[5] == "bootstrap 95% intervals over conversations: 1000 resamples, seed 0"
    header = next(line for line in lines if line.lstrip().startswith("criterion"))
    assert header.split() == ["criterion", "n", "rho", "tau", "kappa", "exact", "one", "bias"]
    stored = CalibrationStore(usecases.open_stores().repo.engine).latest("offline-heuristic", "v1")
    assert stored is not None and stored.run_id == graded and stored.judge_prompt_hash == prompt
    assert [r.criterion for r in stored.rows] == ["goal_completion", "dialogue_quality", "persona_tone", OVERALL]
    overall = stored.row(OVERALL)
    judge, people = _reference(graded, OVERALL)
    assert overall.n == len(judge) == 40
    assert overall.rho.value == pytest.approx(spearmanr(judge, people).statistic, abs=1e-12)
    assert overall.tau.value == pytest.approx(kendalltau(judge, people).statistic, abs=1e-12)
    row = next(line for line in lines if line.lstrip().startswith(OVERALL))
    assert row.split()[:3] == [OVERALL, "40", f"{overall.rho.value:.2f}"]
    below = lines[lines.index(row) + 1]
    assert f"[{overall.rho.low:.2f}, {overall.rho.high:.2f}]" in below
    # Every call is rated on every key: a row compares what the judge scored, the rest is counted.
    for r in stored.rows:
        assert r.n == len(_reference(graded, r.criterion)[0])
        assert r.n + sum(r.left_out.values()) == 40
    assert ("left out (rated, not compared)" in result.stdout) == any(r.left_out for r in stored.rows)
    assert any(line.startswith("the people's own agreement, the ceiling (Krippendorff's alpha, ordinal): ")
               for line in lines)
    assert lines[-1] == ("stored: judge offline-heuristic, rubric v1: rho "
                         f"{overall.rho.value:.2f} [{overall.rho.low:.2f}, {overall.rho.high:.2f}] over 40 rated calls "
                         "of the packaged sample (hand-written, not real data)")
    assert stored.labels is not None and (stored.labels.sample, stored.labels.ratings, stored.import_sources) == (
        True, ratings, ["sample"])
    # The scorecard now says so, in one line.
    shown = runner.invoke(app, ["show", graded])
    assert shown.exit_code == 0, shown.output
    assert lines[-1].removeprefix("stored: ") in " ".join(shown.stdout.split())


def test_json_names_the_judge_and_matches_the_record(graded: str) -> None:
    result = runner.invoke(app, ["calibrate", str(LABELS), "--run", graded, "--judge", "offline",
                                 "--resamples", "50", "--seed", "3", "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert (out["judge_model"], out["rubric_version"], out["seed"], out["resamples"]) == (
        "offline-heuristic", "v1", 3, 50)
    assert (out["conversations"], out["raters"], out["judge_failed"]) == (40, 3, [])
    assert out["labels_hash"] == __import__("hashlib").sha256(LABELS.read_bytes()).hexdigest()
    page = CalibrationStore(usecases.open_stores().repo.engine).page(judge_model="offline-heuristic")[1]
    record = next(c for c in page if c.seed == 3 and c.resamples == 50)
    assert out["rows"] == [r.model_dump(mode="json") for r in record.rows]
    judge, people = _reference(graded, "dialogue_quality")
    dq = next(r for r in out["rows"] if r["criterion"] == "dialogue_quality")
    assert dq["n"] == len(judge) and dq["rho"]["value"] == pytest.approx(spearmanr(judge, people).statistic)


def test_unjudged_conversations_are_judged_first(graded: str) -> None:
    stores = usecases.open_stores()
    assert stores.repo.judgments(graded, "v2") == []
    result = runner.invoke(app, ["calibrate", str(LABELS), "--run", graded, "--rubric", "v2",
                                 "--resamples", "20", "--json"])
    assert result.exit_code == 0, result.output
    assert len(stores.repo.judgments(graded, "v2")) == 40
    out = json.loads(result.stdout)
    assert (out["rubric_version"], next(r for r in out["rows"] if r["criterion"] == OVERALL)["n"]) == ("v2", 40)
    # Each step's progress on stderr, ending on its exact count (issue #32, item 12); stdout is the JSON.
    finals = [line.split(" (")[0] for line in result.stderr.splitlines() if line.startswith("calibrate: ")]
    assert "calibrate: judged 40/40 conversations" in finals
    assert finals[-1] == f"calibrate: bootstrapped {len(out['rows'])}/{len(out['rows'])} rows"
    shown = runner.invoke(app, ["show", graded, "--rubric", "v3"])
    assert "judge offline-heuristic, rubric v3: not calibrated" in " ".join(shown.stdout.split())


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_bad_labels_exit_2_one_line_each(graded: str, tmp_path: Path) -> None:
    bad = _write(tmp_path, "labels.csv", "external_id,rater,criterion,score\nsample-001,a,overall,4\n"
                 "sample-002,,overall,9\nsample-003,a,tone,3\n")
    result = runner.invoke(app, ["calibrate", str(bad), "--run", graded])
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"error: {bad}:3: rater: missing; expected a non-empty rater name",
        f"error: {bad}:3: score: expected an integer from 1 to 5, got '9'",
        f"error: {bad}:4: criterion: unknown criterion 'tone'; expected one of overall, goal_completion, "
        "instruction_adherence, tool_use_quality, factuality, dialogue_quality, robustness, safety_compliance, "
        "persona_tone"]
    assert "Traceback" not in result.output


def test_unknown_ids_are_counted_and_listed(graded: str, tmp_path: Path) -> None:
    rows = "".join(f"call-{i},a,overall,3\n" for i in range(7))
    unknown = _write(tmp_path, "l.csv", "external_id,rater,criterion,score\nsample-001,a,overall,4\n" + rows)
    result = runner.invoke(app, ["calibrate", str(unknown), "--run", graded])
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "error: 7 external ids are not imported for source 'sample': call-0, call-1, call-2, call-3, call-4, ..."]
    by_id = _write(tmp_path, "l.jsonl", '{"conversation_id": "nope", "rater": "a", "criterion": "overall", '
                   '"score": 3}\n')
    result = runner.invoke(app, ["calibrate", str(by_id), "--run", graded])
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [f"error: 1 labelled conversation is not in run {graded}: nope"]


def test_fit_without_the_fitting_module_exits_2(graded: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(usecases, "fit_and_store", raising=False)  # not resolved yet
    monkeypatch.setitem(sys.modules, "polygon.usecases._fitting", None)  # so its import fails
    result = runner.invoke(app, ["calibrate", str(LABELS), "--run", graded, "--fit", "mine"])
    assert result.exit_code == 2
    assert result.stderr.strip() == "error: fitting is not available in this version of Polygon"


@dataclass(frozen=True)
class _Report:
    model_name: str
    training_hash: str
    n: int
    cv: dict[str, dict[str, float | list[float]]]
    offline: dict[str, dict[str, float | list[float]]]
    distinct: int
    warning: str | None = None


def test_fit_hands_the_labelled_conversations_over(graded: str, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, object] = {}

    def fit_and_store(stores: object, examples: list[LabelledConversation], *, name: str, seed: int = 0,
                      rubric_version: str = "v1", force: bool = False) -> _Report:
        seen.update(examples=examples, name=name, seed=seed, rubric_version=rubric_version, force=force)
        return _Report("fitted:mine@abc123", "f00d", len(examples),
                       {OVERALL: {"rho": 0.61, "interval": [0.5, 0.7], "n": 40.0, "folds": 5.0}},
                       {OVERALL: {"rho": 0.42, "interval": [0.3, 0.5], "n": 40.0}}, 38)

    monkeypatch.setattr(usecases, "fit_and_store", fit_and_store)
    before = CalibrationStore(usecases.open_stores().repo.engine).page()[0]
    result = runner.invoke(app, ["calibrate", str(LABELS), "--run", graded, "--fit", "mine", "--seed", "5"])
    assert result.exit_code == 0, result.output
    assert " ".join(result.stdout.split()) == (
        "fitted judge fitted:mine@abc123 on 40 labelled conversations (training set f00d) "
        "cross-validated rho (grouped by conversation, 95% interval): overall 0.61 [0.50, 0.70] "
        "(offline judge 0.42 [0.30, 0.50]) distinct out-of-fold overall predictions: 38 "
        "use it wherever a judge is named: --judge fitted:mine@abc123")
    assert CalibrationStore(usecases.open_stores().repo.engine).page()[0] == before  # nothing else stored
    examples = seen["examples"]
    assert (seen["name"], seen["seed"], len(examples), seen["rubric_version"], seen["force"]) == (
        "mine", 5, 40, "v1", False)
    by_id = {e.conversation.id: e for e in examples}
    ids = {r.external_id: r.conversation_id for r in
           ImportLedger(usecases.open_stores().repo.engine).known("sample", ["sample-004"]).values()}
    looping = by_id[ids["sample-004"]]  # the pharmacy call that asks for the date of birth again and again
    assert looping.raters == {"amara": {"overall": 1, "goal_completion": 1, "dialogue_quality": 2, "persona_tone": 1},
                              "bo": {"overall": 1, "goal_completion": 1, "dialogue_quality": 1, "persona_tone": 2},
                              "carmen": {"overall": 2, "goal_completion": 1, "dialogue_quality": 2,
                                         "persona_tone": 2}}
    assert looping.labels == pytest.approx({"overall": 4 / 3, "goal_completion": 1.0, "dialogue_quality": 5 / 3,
                                            "persona_tone": 5 / 3})
    assert looping.persona is None and looping.checks.metrics.turns == len(looping.conversation.turns)


def test_calibrate_flow(graded: str) -> None:
    from polygon.flows import calibrate

    out = calibrate(str(LABELS), graded, resamples=30, seed=11)
    assert (out["judge_failed"], out["calibration"]["judge_model"]) == ([], "offline-heuristic")
    stored = CalibrationStore(usecases.open_stores().repo.engine).page(judge_model="offline-heuristic",
                                                                      rubric_version="v1")[1]
    record = next(c for c in stored if c.seed == 11 and c.resamples == 30)
    assert out["calibration"] == record.model_dump(mode="json")


def test_a_failing_judge_is_left_out_and_exits_1(graded: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.fakes.llm_server import FakeLLMServer

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with FakeLLMServer() as server:
        server.behaviour.fault_for = lambda n: "401"
        judge = f"openai:qwen@{server.openai_url}"
        result = runner.invoke(app, ["calibrate", str(LABELS), "--run", graded, "--judge", judge,
                                     "--resamples", "10", "--json"])
    assert result.exit_code == 1, result.output
    out = json.loads(result.stdout)
    assert out["judge_model"] == judge and len(out["judge_failed"]) == 40
    assert [(r["n"], r["left_out"]) for r in out["rows"]] == [(0, {"judge_error": 40})] * 4
    # Beside the progress lines (issue #32, item 12), one error line.
    assert [line for line in result.stderr.splitlines() if not line.startswith("calibrate: ")] == [
        f"error: judge {judge} failed on 40 of 40 labelled conversations: 401 Unauthorized from openai:qwen at "
        f"{server.openai_url}: check OPENAI_API_KEY (left out of the calibration)"]


@dataclass(frozen=True)
class Forced:
    """A fit refused on the sample's labels and stored with --force: its name, the refusal and the fit's report."""

    name: str
    refused: str  # the refusal's stderr
    refused_stdout: str  # what the refusal printed on stdout: nothing
    report: dict[str, object]

    @property
    def warning(self) -> str:
        """The line every place that uses this judge shows (`usecases.fitted_judge_warning`)."""
        return f"warning: {self.name} was stored with --force: {self.report['warning']}"


@pytest.fixture(scope="module")
def forced(graded: str) -> Forced:
    """Fit on the sample's labels (refused: the offline judge agrees better on these 40 hand-written calls),
    then store it with --force and judge the production run with it (`rescore`), once for the module."""
    refused = runner.invoke(app, ["calibrate", str(LABELS), "--run", graded, "--fit", "sample-judge"])
    assert refused.exit_code == 1, refused.output
    fitted = runner.invoke(app, ["calibrate", str(LABELS), "--run", graded, "--fit", "sample-judge", "--force",
                                 "--json"])
    assert fitted.exit_code == 0, fitted.output
    report = json.loads(fitted.stdout)
    rescored = runner.invoke(app, ["rescore", graded, "--rubric", "v1", "--judge", report["model_name"], "--json"])
    assert rescored.exit_code == 0, rescored.output
    assert json.loads(rescored.stdout)["added"] == 40
    return Forced(name=report["model_name"], refused=refused.stderr, refused_stdout=refused.stdout, report=report)


def test_a_fitted_judge_judges_wherever_a_judge_is_named(graded: str, forced: Forced) -> None:
    """Fit on the sample's labels (refused: the offline judge agrees better on these 40 hand-written calls;
    stored with --force), then rescore, show and calibrate the production run with that judge."""
    from polygon_core.adapters.fitted_judges import load_fitted
    from polygon_core.calibration import judge_fitted

    assert (forced.refused_stdout, len(forced.refused.splitlines())) == ("", 1)
    assert forced.refused.startswith("error: fitted judge 'sample-judge' is not stored: its cross-validated rho for "
                                     "overall, ")
    assert forced.refused.rstrip().endswith("on the same 40 conversations (--force stores it with a warning)")
    report, name = forced.report, forced.name
    assert name.startswith("fitted:sample-judge@") and report["n"] == 40
    assert set(report["cv"]) == set(report["offline"]) == {OVERALL, "goal_completion", "dialogue_quality",
                                                           "persona_tone"}
    assert report["cv"][OVERALL]["rho"] <= report["offline"][OVERALL]["rho"]
    assert report["warning"] == forced.refused.split("is not stored: ", 1)[1].rsplit(" (--force", 1)[0]
    again = runner.invoke(app, ["rescore", graded, "--rubric", "v1", "--judge", name, "--json"])
    assert again.exit_code == 0, again.output
    out = json.loads(again.stdout)
    assert (out["judge"], out["added"], len(out["skipped"]), out["failed"]) == (name, 0, 40, [])
    assert out["judge_warning"] == forced.warning
    shown = runner.invoke(app, ["show", graded, "--rubric", "v1", "--judge", name])
    assert shown.exit_code == 0, shown.output
    assert f"warning: {name} was stored with --force: {report['warning']}" in " ".join(shown.stdout.split())
    shown_json = runner.invoke(app, ["show", graded, "--rubric", "v1", "--judge", name, "--json"])
    assert json.loads(shown_json.stdout)["judge_warning"] == f"warning: {name} was stored with --force: {report['warning']}"
    stores = usecases.open_stores()
    model = load_fitted(stores, name)
    rubric = get_rubric("v1")
    from polygon_core.imports import NOT_APPLICABLE_CRITERIA
    from polygon_core.judging import build_judgment

    for judgment in [j for j in stores.repo.judgments(graded, "v1") if j.judge_model == name][:5]:
        conv = usecases.load_conversation(stores, graded, judgment.conversation_id)
        ((_conv, checks, _scenario),) = list(usecases.scorable(stores, stores.repo.get_run(graded), None, None,
                                                               only={conv.id}))
        expected = build_judgment(conv, [judge_fitted(conv, checks, None, rubric, model)], rubric_version="v1",
                                  judge_model=name, not_applicable=list(NOT_APPLICABLE_CRITERIA),
                                  continuous_scores=True)
        assert (judgment.composite, judgment.verdict) == (expected.composite, expected.verdict)
    calibrated = runner.invoke(app, ["calibrate", str(LABELS), "--run", graded, "--judge", name, "--json"])
    assert calibrated.exit_code == 0, calibrated.output
    assert json.loads(calibrated.stdout)["judge_model"] == name
    refused = runner.invoke(app, ["probe", graded, "--model", name])
    assert refused.exit_code == 2
    assert "is a fitted judge: it can judge, not play the probe answerer" in refused.stderr


@pytest.fixture(scope="module")
def fitted_run(forced: Forced) -> str:
    """The sample calls imported again under another source and graded with the forced fit as the run's own
    judge (what the web app's run page shows); the run id."""
    imported = runner.invoke(app, ["import", str(SAMPLE / "calls.jsonl"), "--format", "polygon",
                                   "--source", "sample-fitted", "--json"])
    assert imported.exit_code == 0, imported.output
    graded_fitted = runner.invoke(app, ["grade-calls", "sample-fitted", "--judge-model", forced.name, "--json"])
    assert graded_fitted.exit_code == 0, graded_fitted.output
    (card,) = json.loads(graded_fitted.stdout)["runs"]
    assert card["judge_model"] == forced.name
    return str(card["run_id"])


@pytest.mark.usefixtures("wide")
def test_rescore_with_a_forced_fit_prints_its_warning(graded: str, forced: Forced) -> None:
    """`rescore --judge fitted:…` prints the fit's warning after the summary, as `show` does (once)."""
    result = runner.invoke(app, ["rescore", graded, "--rubric", "v1", "--judge", forced.name])
    assert result.exit_code == 0, result.output
    text = " ".join(result.stdout.split())
    assert text.count(forced.warning) == 1
    assert text.index(forced.warning) < text.index(f"See `polygon show {graded}")
    offline = runner.invoke(app, ["rescore", graded, "--rubric", "v1", "--judge", "offline", "--json"])
    assert json.loads(offline.stdout)["judge_warning"] is None
    assert "stored with --force" not in offline.stdout


def _web_client() -> TestClient:
    from polygon.web import create_app
    from polygon_core.adapters.settings import load_settings

    return TestClient(create_app(load_settings()), client=("127.0.0.1", 50123))


def test_the_api_run_detail_carries_the_forced_fits_warning(graded: str, forced: Forced, fitted_run: str) -> None:
    """`GET /api/runs/{run}`: `judge_warning` is the fit's warning when it judged the run's scorecard, else null;
    `GET /api/compare` gives it per card under `judge_warnings`."""
    client = _web_client()
    fitted = client.get(f"/api/runs/{fitted_run}")
    assert fitted.status_code == 200, fitted.text
    assert (fitted.json()["scorecard"]["judge_model"], fitted.json()["judge_warning"]) == (forced.name, forced.warning)
    assert client.get(f"/api/runs/{graded}").json()["judge_warning"] is None
    compared = client.get("/api/compare", params={"runs": [graded, fitted_run]})
    assert compared.status_code == 200, compared.text
    warnings = compared.json()["judge_warnings"]
    labels = compared.json()["labels"]
    assert len(labels) == 2 and sorted(warnings.values(), key=str) == sorted([None, forced.warning], key=str)


@flow(name="publish-forced-fit")
def _publish_and_compare(card: Scorecard, run_ids: list[str]) -> int:
    """The evaluate flow's artifact tasks, in a flow run as the flow calls them."""
    publish_artifacts_task(card)
    return compare_runs_task(run_ids)


def _artifacts(key: str) -> list[Any]:
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey

    with get_client(sync_client=True) as prefect:
        return list(prefect.read_artifacts(artifact_filter=ArtifactFilter(key=ArtifactFilterKey(any_=[key, key + "-md"]))))


def test_reports_and_artifacts_show_the_forced_fits_warning(graded: str, forced: Forced, fitted_run: str,
                                                            tmp_path: Path) -> None:
    """`compare -o x.md -o x.html` and the Prefect scorecard and comparison artifacts carry the warning
    of the forced fit beside the run it judged, and only that run."""
    stores = usecases.open_stores()
    label = {c.run_id: c.label for c in usecases.compare_runs(stores, [graded, fitted_run]).cards}[fitted_run]
    md, page = tmp_path / "c.md", tmp_path / "c.html"
    result = runner.invoke(app, ["compare", graded, fitted_run, "-o", str(md), "-o", str(page)])
    # The two runs hold the same calls under two sources, so no (scenario, seed) pairs: exit 1, and the
    # reports are written all the same.
    assert result.exit_code == 1, result.output
    assert "share no scored scenario and seed" in " ".join(result.stdout.split())
    line = f"**{md_text(label)}**: {md_text(forced.warning)}"
    assert md.read_text(encoding="utf-8").count("stored with --force") == 1
    assert line in md.read_text(encoding="utf-8").splitlines()
    html = page.read_text(encoding="utf-8")
    assert html.count("stored with --force") == 1
    assert f"<p class='judge-warning'>{escape(label)}: {escape(forced.warning)}</p>" in html
    assert _publish_and_compare(usecases.scorecard(stores, fitted_run), [graded, fitted_run]) == 1
    slug = "".join(ch if ch.isascii() and ch.isalnum() else "-" for ch in fitted_run.lower())
    found = _artifacts(f"scorecard-{slug}")
    table = next(a for a in found if a.type == "table")
    rows = json.loads(table.data) if isinstance(table.data, str) else table.data
    assert rows[-1] == {"metric": "judge warning", "value": forced.warning,
                        "detail": "a fitted judge stored with --force (docs/calibration.md)"}
    markdown = str(next(a for a in found if a.type == "markdown").data)
    assert f"| judge warning | {md_text(forced.warning)} |" in markdown
    matrix = "matrix-" + "".join(ch if ch.isascii() and ch.isalnum() else "-" for ch in graded.lower())
    compared = str(next(a for a in _artifacts(matrix) if a.type == "markdown").data)
    assert line in compared.splitlines() and compared.count("stored with --force") == 1


@pytest.mark.skipif(not browser.CHROMIUM.exists(), reason="Debian's chromium is not installed at /usr/bin/chromium")
def test_the_web_pages_show_the_forced_fits_warning(graded: str, forced: Forced, fitted_run: str) -> None:
    """The run page of a run the forced fit judged shows its warning beside the calibration and in the
    scorecard; the compare page shows it in the judged run's column only; another run's page shows none."""
    import threading

    import uvicorn
    from playwright.sync_api import expect, sync_playwright

    from polygon.web import create_app
    from polygon_core.adapters.settings import load_settings

    port = browser._free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(load_settings()), host="127.0.0.1", port=port,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        while not server.started:
            threading.Event().wait(0.05)
        with sync_playwright() as p:
            chromium = p.chromium.launch(executable_path=str(browser.CHROMIUM), args=browser.ARGS, headless=True)
            tab = chromium.new_page()
            tab.goto(f"http://127.0.0.1:{port}/runs/{fitted_run}")
            browser.settle(tab)
            assert tab.locator("p.judge-warning").inner_text() == forced.warning
            assert tab.locator("tr.judge-warning td").all_inner_texts() == [forced.warning]
            tab.goto(f"http://127.0.0.1:{port}/runs/{graded}")
            browser.settle(tab)
            assert tab.locator(".judge-warning").count() == 0
            tab.goto(f"http://127.0.0.1:{port}/compare?runs={graded}&runs={fitted_run}")
            # The compare page draws the stored scorecards first and again once the comparison is in, so
            # the row's cells are polled for (expect retries) rather than read the moment the row exists.
            expect(tab.locator("tr.judge-warning td")).to_have_text(["", forced.warning], timeout=60_000)
            chromium.close()
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def test_the_reevaluation_report_shows_the_forced_fits_warning(graded: str, forced: Forced, fitted_run: str) -> None:
    """The prompt-commit re-evaluation report (`usecases.version_comparison`): the judged run's scorecard
    has the `judge warning` row and the comparison the line under its verdict; the other run's none."""
    stores = usecases.open_stores()
    row = f"| judge warning | {md_text(forced.warning)} | a fitted judge stored with --force (docs/calibration.md) |"
    label = {c.run_id: c.label for c in usecases.compare_runs(stores, [graded, fitted_run]).cards}[fitted_run]
    lines = usecases.version_comparison(stores, graded, fitted_run).splitlines()
    assert (lines.count(row), lines.count(f"**{md_text(label)}**: {md_text(forced.warning)}")) == (1, 1)
    assert sum("stored with --force" in line for line in lines) == 2
    alone = usecases.version_comparison(stores, None, fitted_run).splitlines()
    assert alone.count(row) == 1 and sum("stored with --force" in line for line in alone) == 1
