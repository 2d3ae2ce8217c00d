"""The grade_production_calls flow and `polygon grade-calls`, through Prefect's test server."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polygon import usecases
from polygon.cli import app
from polygon_core.imports import sample_path

pytestmark = [pytest.mark.prefect, pytest.mark.usefixtures("prefect_harness")]


def test_grade_calls_imports_a_folder_and_grades_the_window(polygon_home: Path, tmp_path: Path) -> None:
    folder = tmp_path / "calls"
    folder.mkdir()
    shutil.copy(sample_path("vapi"), folder / "vapi_calls.json")
    shutil.copy(sample_path("retell"), folder / "retell_calls.json")
    result = CliRunner().invoke(app, ["grade-calls", str(folder), "--since", "2024-05-06",
                                      "--until", "2024-05-07", "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["import"] == {"read": 4, "imported": 4, "duplicates": 0, "rejected": 0, "errors": []}
    (card,) = out["runs"]
    assert card["conversations"] == 3  # the May 9 Vapi call is outside the window
    stores = usecases.open_stores()
    run = stores.repo.get_run(card["run_id"], exact=True)
    assert run is not None and (run.source, run.status) == ("production", "complete")
    again = json.loads(CliRunner().invoke(app, ["grade-calls", str(folder), "--since", "2024-05-06",
                                                "--until", "2024-05-07", "--json"]).stdout)
    assert again["import"]["duplicates"] == 4 and again["runs"][0]["run_id"] == card["run_id"]
    assert len(stores.repo.list_conversations(card["run_id"])) == 3
    # Another judge asked for by name on the graded window is refused, not replaced by the stored one.
    other = "openai:gpt-4o-mini@http://127.0.0.1:9/v1"
    refused = CliRunner().invoke(app, ["grade-calls", str(folder), "--since", "2024-05-06",
                                       "--until", "2024-05-07", "--judge-model", other])
    assert refused.exit_code == 2, refused.output
    assert [ln for ln in refused.stderr.splitlines() if ln.strip()] == [
        f"error: {card['run_id']} was already graded with judge offline-heuristic, not {other}: "
        f"`polygon rescore {card['run_id']} --rubric v1 --judge {other}` adds {other}'s answers to it"]
    assert {j.judge_model for j in stores.repo.judgments(card["run_id"])} == {"offline-heuristic"}
    stores.repo.close()


def test_grade_calls_rejects_a_bad_date(polygon_home: Path) -> None:
    result = CliRunner().invoke(app, ["grade-calls", "x", "--since", "yesterday"])
    assert result.exit_code == 2
    assert "'yesterday' is not a date" in result.output


def test_grade_calls_by_model_through_batches(polygon_home: Path, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Weekly grading's cheap path: production calls judged and probed through batch APIs."""
    from polygon_core.imports import NOT_APPLICABLE_CRITERIA, NOT_APPLICABLE_PROBES
    from tests.fakes.llm_server import FakeLLMServer

    monkeypatch.setenv("POLYGON_BATCH_POLL_SECONDS", "0.01")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    folder = tmp_path / "calls"
    folder.mkdir()
    shutil.copy(sample_path("vapi"), folder / "vapi_calls.json")
    shutil.copy(sample_path("retell"), folder / "retell_calls.json")
    offline = CliRunner().invoke(app, ["grade-calls", str(folder), "--batch-judging"])
    assert offline.exit_code == 2 and "--batch-judging needs a model judge" in offline.output
    with FakeLLMServer() as srv:
        judge = f"openai:gpt-4o-mini@{srv.openai_url}"
        probe = f"anthropic:claude-3-5-haiku-latest@{srv.anthropic_url}"
        result = CliRunner().invoke(app, ["grade-calls", str(folder), "--since", "2024-05-06",
                                          "--until", "2024-05-07", "--judge-model", judge,
                                          "--probe-model", probe, "--batch-judging", "--json"])
        batches = list(srv.batches.values())
        live = [b for b in srv.behaviour.seen if "messages" in b]
    assert result.exit_code == 0, result.output
    (card,) = json.loads(result.stdout)["runs"]
    assert [len(b["items"]) for b in batches] == [3, 3] and live == []  # nothing went live
    stores = usecases.open_stores()
    judgments = stores.repo.judgments(card["run_id"])
    assert len(judgments) == 3 and {j.judge_model for j in judgments} == {judge}
    assert all(set(j.not_applicable) == set(NOT_APPLICABLE_CRITERIA) for j in judgments)
    answers = stores.repo.probe_answers(card["run_id"])
    assert {a.answered_by for a in answers} == {probe}
    assert all(a.answer == "na" for a in answers if a.probe_id in NOT_APPLICABLE_PROBES)
    assert sum(card["verdicts"].values()) == 3
    stores.repo.close()
