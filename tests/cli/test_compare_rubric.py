"""`polygon compare --rubric V [--judge M]`: runs compared under judgments a rescore added; refusals
name the run and the rescore that fixes them; a failing judge is one `error:` line on stderr."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polygon.cli import app
from polygon_core.models import Run
from tests.fakes.llm_server import FakeLLMServer
from tests.verdicts._files import scenario, write_suite

runner = CliRunner()

AGENT = """\
name: steady
prompt: Help the caller.
callable: tests.engine.script_agent:script_agent
"""


@pytest.fixture
def files(tmp_path: Path, polygon_home: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-polygon-test-0000")
    monkeypatch.setenv("POLYGON_MODEL_TIMEOUT", "5")
    monkeypatch.setenv("POLYGON_MODEL_MAX_ATTEMPTS", "1")
    monkeypatch.setenv("POLYGON_MODEL_CACHE", "off")
    return write_suite(tmp_path, scenario(), AGENT)


def _stored_run(files: tuple[Path, Path], run_id: str, rubric: str, judge: str = "offline-heuristic") -> str:
    """A run made by the pipeline steps (no Prefect), one seed, judged offline under `rubric` unless
    its judge is a model (then judged by `rescore_run`, as `run --judge-model` would)."""
    from polygon import usecases

    suite, agent = (str(p) for p in files)
    stores = usecases.open_stores()
    _config, _prompt, version = usecases.agent_identity(agent, suite)
    run = Run(id=run_id, suite="check", agent_name="steady", agent_version=version, rubric_version=rubric,
              seeds=[0], models={"judge": judge})
    usecases.create_run(stores, run, suite_path=suite, agent_path=agent)
    for scenario_id, seed in usecases.plan_conversations(suite, [0]):
        cid = usecases.simulate(stores, run.id, suite, agent, scenario_id, seed)
        if judge == "offline-heuristic":
            usecases.judge(stores, run.id, cid, suite_path=suite, agent_path=agent, rubric_version=rubric)
    if judge != "offline-heuristic":
        usecases.rescore_run(stores, run.id, rubric_version=rubric, judge_model=judge)
    usecases.finish_run(stores, run.id)
    return run.id


def _invoke(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    assert "Traceback" not in result.stderr, result.stderr
    return result.exit_code, result.stdout, result.stderr


def _cards(stdout: str) -> list[tuple[str, str, str, float | None]]:
    data = json.loads(stdout)
    return [(c["run_id"], c["rubric_version"], c["judge_model"], c["mean_composite"]) for c in data["cards"]]


def test_compare_rubric_compares_the_judgments_a_rescore_added(files: tuple[Path, Path]) -> None:
    old = _stored_run(files, "run-made-v2", "v2")
    new = _stored_run(files, "run-made-v3", "v3")

    code, _out, err = _invoke("compare", old, new)
    assert code == 2
    assert err.strip() == ("error: cannot compare runs judged under different rubric versions (v2 and v3): "
                           "run-made-v2: v2, run-made-v3: v3; --rubric v3 compares the judgments stored "
                           "under v3 (`polygon rescore RUN --rubric v3` adds them to a run that has none)")

    code, _out, err = _invoke("compare", old, new, "--rubric", "v3")
    assert code == 2
    assert err.strip() == ("error: run run-made-v2 has no judgments under rubric v3 (it has: v2); "
                           "`polygon rescore run-made-v2 --rubric v3` makes them")

    code, out, err = _invoke("rescore", old, "--rubric", "v3", "--json")
    assert code == 0, err
    assert json.loads(out)["added"] == 1

    code, out, err = _invoke("compare", old, new, "--rubric", "v3", "--json")
    assert code == 0, err
    from polygon import usecases

    v3 = usecases.scorecard(usecases.open_stores(), new).mean_composite
    assert v3 is not None
    # The rescored run's v3 judgment is the same offline judge's on the same conversation.
    assert _cards(out) == [(old, "v3", "offline-heuristic", v3), (new, "v3", "offline-heuristic", v3)]
    # Its own v2 judgment is what a plain comparison with another v2 run still uses.
    other = _stored_run(files, "run-made-v2-again", "v2")
    code, out, err = _invoke("compare", old, other, "--json")
    v2 = usecases.scorecard(usecases.open_stores(), other).mean_composite
    assert code == 0, err
    assert _cards(out) == [(old, "v2", "offline-heuristic", v2), (other, "v2", "offline-heuristic", v2)]

    code, _out, err = _invoke("compare", old, new, "--rubric", "v9")
    assert code == 2 and err.startswith("error: --rubric: "), err


def test_compare_judge_picks_a_second_judge_under_the_same_rubric(files: tuple[Path, Path]) -> None:
    first = _stored_run(files, "run-first", "v2")
    second = _stored_run(files, "run-second", "v2")
    with FakeLLMServer() as server:
        judge = f"openai:qwen@{server.openai_url}"
        code, _out, err = _invoke("rescore", first, "--rubric", "v2", "--judge", judge, "--json")
        assert code == 0, err

        code, _out, err = _invoke("compare", first, second, "--judge", judge)
        assert code == 2
        assert err.strip() == (f"error: run run-second has no judgments by {judge} under rubric v2 (judged by: "
                               f"offline-heuristic); `polygon rescore run-second --rubric v2 --judge {judge}` "
                               "makes them")

        code, _out, err = _invoke("rescore", second, "--rubric", "v2", "--judge", judge, "--json")
        assert code == 0, err
    from polygon import usecases

    stores = usecases.open_stores()
    by_model = [usecases.scorecard(stores, rid, judge=judge).mean_composite for rid in (first, second)]
    offline = [usecases.scorecard(stores, rid).mean_composite for rid in (first, second)]
    code, out, err = _invoke("compare", first, second, "--judge", judge, "--json")
    assert code == 0, err
    assert _cards(out) == [(first, "v2", judge, by_model[0]), (second, "v2", judge, by_model[1])]
    # Without --judge each run's own judge (the offline one) is compared, as before.
    code, out, err = _invoke("compare", first, second, "--json")
    assert code == 0, err
    assert _cards(out) == [(first, "v2", "offline-heuristic", offline[0]),
                           (second, "v2", "offline-heuristic", offline[1])]


def test_compare_after_a_judge_failure_prints_one_error_line(files: tuple[Path, Path]) -> None:
    good = _stored_run(files, "run-judged", "v1")
    with FakeLLMServer() as server:
        server.behaviour.fault_for = lambda n: "401"
        judge = f"openai:qwen@{server.openai_url}"
        failed = _stored_run(files, "run-judge-failed", "v1", judge=judge)
    for extra in ((), ("--json",)):
        code, out, err = _invoke("compare", good, failed, *extra)
        assert code == 1
        # Beside the progress lines (issue #32, item 12), one error line.
        assert err.splitlines()[0].startswith("compare: 1/1 pairs (100%)"), err
        lines = [ln for ln in err.splitlines() if ln.strip() and not ln.startswith("compare: ")]
        assert len(lines) == 1, err
        assert lines[0].startswith(f"error: judge {judge} failed on 1 of 1 conversations: 401"), lines[0]
        if extra:
            assert json.loads(out)["exit_code"] == 1
