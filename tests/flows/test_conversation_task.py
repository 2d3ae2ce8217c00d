"""One task per conversation: simulate, judge and probe on one event loop, each stage idempotent."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import exc as sa_exc

from polygon import usecases
from polygon_core.demo import demo_dir
from polygon_core.models import Run
from tests.adapters.test_write_retry import CALLS

SUITE = str(demo_dir() / "suite")
V1 = demo_dir() / "agents" / "agent_v1.yaml"


def _counted_run(tmp_path: Path, stores: usecases.Stores) -> tuple[Run, str]:
    agent = tmp_path / "agent.yaml"
    agent.write_text("name: counted\nprompt: Help.\ncallable: tests.adapters.test_write_retry:counting_agent\n",
                     encoding="utf-8")
    _c, _p, version = usecases.agent_identity(str(agent), SUITE)
    run = Run(id="one-task", suite="demo", agent_name="counted", agent_version=version, rubric_version="v1",
              seeds=[0], models={"judge": "offline-heuristic", "probe": "offline-heuristic"})
    usecases.create_run(stores, run, suite_path=SUITE, agent_path=str(agent))
    return run, str(agent)


def test_a_retry_after_a_failed_judgment_write_never_simulates_again(
        polygon_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stores = usecases.shared_stores()
    run, _agent = _counted_run(tmp_path, stores)
    (scenario_id, seed), *_ = usecases.plan_conversations(SUITE, [0])

    def evaluate() -> usecases.Evaluated:
        return asyncio.run(usecases.evaluate_conversation(stores, run.id, scenario_id, seed))

    def broken(*args: object, **kwargs: object) -> None:
        raise sa_exc.IntegrityError("INSERT ...", {}, sqlite3.IntegrityError("disk I/O error"))

    with monkeypatch.context() as patch:
        patch.setattr(stores.repo, "save_judgment", broken)
        with pytest.raises(sa_exc.IntegrityError):
            evaluate()
    acted = len(CALLS)
    assert acted > 0 and len(stores.repo.conversation_ids(run.id)) == 1 and not stores.repo.judgments(run.id)

    retried = evaluate()  # the task's retry: the stored conversation is read back, not run again
    assert len(CALLS) == acted
    assert retried.simulated is False and retried.probes > 0
    (judgment,) = stores.repo.judgments(run.id)
    assert judgment.composite == retried.composite
    answers = stores.repo.probe_answers(run.id)

    again = evaluate()  # everything is stored: the stored judgment and answers are kept as they are
    assert len(CALLS) == acted
    assert again == retried
    assert stores.repo.judgments(run.id) == [judgment] and stores.repo.probe_answers(run.id) == answers


def test_the_same_stages_give_the_same_results_as_the_separate_steps(polygon_home: Path, tmp_path: Path) -> None:
    stores = usecases.shared_stores()
    run, agent = _counted_run(tmp_path, stores)
    plan = usecases.plan_conversations(SUITE, [0])
    separate = run.model_copy(update={"id": "separate"})
    usecases.create_run(stores, separate, suite_path=SUITE, agent_path=agent)
    for scenario_id, seed in plan:
        cid = usecases.simulate(stores, separate.id, SUITE, agent, scenario_id, seed)
        usecases.judge(stores, separate.id, cid, suite_path=SUITE, agent_path=agent, rubric_version="v1")
        usecases.probe(stores, separate.id, cid, suite_path=SUITE, agent_path=agent)

    async def together() -> tuple[list[object], usecases.InFlight]:
        return await usecases.run_bounded(plan, lambda item: usecases.evaluate_conversation(
            stores, run.id, *item), limit=4)

    results, flight = asyncio.run(together())
    assert flight.peak == 4 and flight.errors == [] and len(results) == len(plan)
    assert sorted(r.conversation_id for r in results) == sorted(stores.repo.conversation_ids(run.id))  # type: ignore[attr-defined]
    for cid in stores.repo.conversation_ids(run.id):
        assert (usecases.fingerprint(usecases.load_conversation(stores, run.id, cid))
                == usecases.fingerprint(usecases.load_conversation(stores, separate.id, cid)))

    def scores(run_id: str) -> list[tuple[str, float | None, str | None]]:
        return sorted((j.conversation_id, j.composite, j.verdict) for j in stores.repo.judgments(run_id))

    def answers(run_id: str) -> list[tuple[str, str, str]]:
        return sorted((a.conversation_id, a.probe_id, a.answer) for a in stores.repo.probe_answers(run_id))

    assert scores(run.id) == scores(separate.id) and len(scores(run.id)) == len(plan)
    assert answers(run.id) == answers(separate.id)


def test_run_bounded_keeps_order_and_the_limit() -> None:
    async def work(i: int) -> int:
        await asyncio.sleep(0.01)
        if i == 5:
            raise ValueError("five")
        return i * i

    finished: list[object] = []
    results, flight = asyncio.run(usecases.run_bounded(list(range(10)), work, limit=3, done=finished.append))
    assert results[:5] == [0, 1, 4, 9, 16] and results[6:] == [36, 49, 64, 81]
    assert isinstance(results[5], ValueError) and flight.errors == [results[5]]
    assert flight.peak == 3 and flight.now == 0 and len(finished) == 10


@pytest.mark.prefect
@pytest.mark.usefixtures("prefect_harness")
def test_the_flow_records_its_concurrency_and_resumes_without_simulating(polygon_home: Path) -> None:
    from polygon.flows import evaluate_suite

    stores = usecases.open_stores()
    run = usecases.new_run(str(V1), SUITE, seeds=[0], run_id="flow-conc")
    evaluate_suite(suite_path=SUITE, runs=[run], agent_paths=[str(V1)], concurrency=2)
    first = usecases.run_execution(stores, run.id)
    assert first is not None
    assert {k: first[k] for k in ("concurrency", "peak_in_flight", "conversations", "simulated", "already_stored",
                                  "model_limits_below_concurrency")} == {
        "concurrency": 2, "peak_in_flight": 2, "conversations": 6, "simulated": 6, "already_stored": 0,
        "model_limits_below_concurrency": {}}
    judged = stores.repo.judgments(run.id)
    evaluate_suite(suite_path=SUITE, runs=[run], agent_paths=[str(V1)], concurrency=2)
    again = usecases.run_execution(stores, run.id)
    assert again is not None and (again["simulated"], again["already_stored"]) == (0, 6)
    assert stores.repo.judgments(run.id) == judged  # resumed: the stored judgments are kept, not redone


def test_concurrency_precedence(tmp_path: Path) -> None:
    from polygon_core.adapters.settings import load_settings

    settings = load_settings(home=tmp_path, concurrency=5)
    suite = tmp_path / "suite"
    (suite / "scenarios").mkdir(parents=True)
    for name in ("tools.yaml", "scenarios/01_billing_dispute.yaml"):
        (suite / name).write_text((demo_dir() / "suite" / name).read_text(encoding="utf-8"), encoding="utf-8")
    (suite / "suite.yaml").write_text("name: s\nrubric: v1\nseeds: [0]\n", encoding="utf-8")
    assert usecases.run_concurrency(None, str(suite), settings) == 5  # POLYGON_CONCURRENCY
    (suite / "suite.yaml").write_text("name: s\nrubric: v1\nseeds: [0]\nconcurrency: 3\n", encoding="utf-8")
    assert usecases.run_concurrency(None, str(suite), settings) == 3  # the suite's
    assert usecases.run_concurrency(40, str(suite), settings) == 40  # --concurrency
    with pytest.raises(ValueError, match="--concurrency must be at least 1, got 0"):
        usecases.run_concurrency(0, str(suite), settings)
    limited = load_settings(home=tmp_path, model_concurrency=4)
    models = {"agent": "openai:gpt-4o-mini", "caller": "offline", "judge": "offline-heuristic"}
    assert usecases.model_limits_below(limited, models, 40) == {"openai:gpt-4o-mini": 4}
    assert usecases.model_limits_below(limited, models, 4) == {}
    assert usecases.model_limits_below(settings, models, 40) == {}  # unset: bounded by the conversations


@pytest.mark.prefect
@pytest.mark.usefixtures("prefect_harness")
def test_run_concurrency_flag_governs_and_reports_the_peak(polygon_home: Path) -> None:
    from typer.testing import CliRunner

    from polygon.cli import app

    runner = CliRunner()
    bad = runner.invoke(app, ["run", SUITE, "--agent", str(V1), "--seeds", "1", "--concurrency", "0"])
    assert bad.exit_code == 2 and " ".join(bad.stderr.split()) == "error: --concurrency must be at least 1, got 0"
    ok = runner.invoke(app, ["run", SUITE, "--agent", str(V1), "--seeds", "1", "--concurrency", "3",
                             "--run-id", "c3"])
    assert ok.exit_code == 0, ok.output
    assert "c3: peak 3 of 3 conversations in flight" in ok.stderr


def test_rubric_precedence_flag_suite_environment_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from polygon_core.adapters.settings import load_settings
    from polygon_core.files import load_suite_config

    (tmp_path / "set.yaml").write_text("name: s\nrubric: v3\n", encoding="utf-8")
    (tmp_path / "unset.yaml").write_text("name: s\n", encoding="utf-8")
    explicit, silent = load_suite_config(tmp_path / "set.yaml"), load_suite_config(tmp_path / "unset.yaml")
    monkeypatch.delenv("POLYGON_RUBRIC", raising=False)
    plain = load_settings(home=tmp_path)
    monkeypatch.setenv("POLYGON_RUBRIC", "v2")
    env = load_settings(home=tmp_path)
    assert usecases.resolve_rubric("v1", explicit, env) == "v1"  # --rubric
    assert usecases.resolve_rubric(None, explicit, env) == "v3"  # the suite's
    assert usecases.resolve_rubric(None, silent, env) == "v2"  # POLYGON_RUBRIC
    assert usecases.resolve_rubric(None, silent, plain) == "v1"  # the default
    with pytest.raises(ValueError, match=r"^--rubric: unknown rubric version 'v7'; known versions: v1, v2, v3$"):
        usecases.resolve_rubric("v7", explicit, env)
    monkeypatch.setenv("POLYGON_RUBRIC", "v9")
    with pytest.raises(ValueError, match="POLYGON_RUBRIC='v9' is not a rubric version; known versions: v1, v2, v3"):
        load_settings(home=tmp_path)


def test_a_bad_setting_is_one_line_and_exit_2(polygon_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from polygon.cli import app

    monkeypatch.setenv("POLYGON_RUBRIC", "v9")
    result = CliRunner().invoke(app, ["runs"])
    assert result.exit_code == 2 and "Traceback" not in result.stderr
    assert " ".join(result.stderr.split()) == ("error: rubric: Value error, POLYGON_RUBRIC='v9' is not a rubric "
                                               "version; known versions: v1, v2, v3")


def test_polygon_run_takes_the_environment_rubric_when_the_suite_names_none(
        polygon_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from polygon.cli import app

    suite = tmp_path / "suite"
    (suite / "scenarios").mkdir(parents=True)
    for name in ("tools.yaml", "scenarios/02_address_change.yaml"):
        (suite / name).write_text((demo_dir() / "suite" / name).read_text(encoding="utf-8"), encoding="utf-8")
    (suite / "suite.yaml").write_text("name: s\nseeds: [0]\n", encoding="utf-8")
    monkeypatch.setenv("POLYGON_RUBRIC", "v2")
    bad = CliRunner().invoke(app, ["run", str(suite), "--agent", str(V1), "--rubric", "v9"])
    assert bad.exit_code == 2
    assert " ".join(bad.stderr.split()) == "error: --rubric: unknown rubric version 'v9'; known versions: v1, v2, v3"
    run = usecases.new_run(str(V1), str(suite), settings=None)
    assert run.rubric_version == "v2"  # POLYGON_RUBRIC, since suite.yaml names none


@pytest.mark.prefect
@pytest.mark.usefixtures("prefect_harness")
def test_the_flow_refuses_a_run_passed_with_a_stored_run_s_id_and_other_settings(polygon_home: Path) -> None:
    from polygon.flows import evaluate_suite

    run = usecases.new_run(str(V1), SUITE, seeds=[0], run_id="flow-carried")
    # A run passed with the id of a stored one must be that run: other seeds are refused, not mixed in.
    stores = usecases.open_stores()
    usecases.create_run(stores, run, suite_path=SUITE, agent_path=str(V1))
    other = usecases.new_run(str(V1), SUITE, seeds=[0, 1], run_id="flow-carried")
    with pytest.raises(ValueError, match=r"run flow-carried was created with seeds \[0\], not \[0, 1\]"):
        evaluate_suite(suite_path=SUITE, runs=[other], agent_paths=[str(V1)])
    judged = usecases.new_run(str(V1), SUITE, seeds=[0], rubric="v2", run_id="flow-carried")
    with pytest.raises(ValueError, match="run flow-carried was created with rubric version v1, not v2"):
        evaluate_suite(suite_path=SUITE, runs=[judged], agent_paths=[str(V1)])
    assert stores.repo.conversation_ids(run.id) == set()
