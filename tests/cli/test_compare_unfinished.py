"""`polygon compare` refuses a run that is not complete (it used to pass an interrupted run, exit 0,
on the pairs it had stored), `show` says a run is unfinished above its scorecard, and the terminal
says how many conversations of each run have no pair."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from polygon.cli import app
from polygon_core.demo import demo_dir

runner = CliRunner()
SUITE, AGENT = str((demo_dir() / "suite").resolve()), str((demo_dir() / "agents" / "agent_v1.yaml").resolve())


def _run(run_id: str, *, stored: int | None = None, status: str = "interrupted") -> None:
    """The demo's v1 on seed 0 (6 scenarios) through the pipeline's steps, without Prefect; with
    `stored`, only the first `stored` conversations, left with `status` as a stopped run is."""
    from polygon import usecases

    stores = usecases.open_stores()
    run = usecases.create_run(stores, usecases.new_run(AGENT, SUITE, seeds=[0], run_id=run_id),
                              suite_path=SUITE, agent_path=AGENT)
    plan = usecases.plan_conversations(SUITE, [0])
    for scenario_id, seed in plan[:stored]:
        cid = usecases.simulate(stores, run.id, SUITE, AGENT, scenario_id, seed)
        usecases.judge(stores, run.id, cid, suite_path=SUITE, agent_path=AGENT, rubric_version="v1")
    if stored is None:
        usecases.finish_run(stores, run.id)
    else:
        stores.repo.set_run_status(run.id, status)
    stores.repo.close()


def _invoke(*args: str) -> tuple[int, str, str]:
    from polygon.cli import _app

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_app.console, "_width", 220)
        result = runner.invoke(app, list(args), terminal_width=220)
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("status", ["interrupted", "running", "failed"])
def test_compare_refuses_a_run_that_is_not_complete(polygon_home: Path, status: str) -> None:
    _run("base")
    _run("part", stored=2, status=status)
    code, out, errors = _invoke("compare", "base", "part")
    assert code == 1 and out == ""
    said = {"interrupted": "interrupted", "failed": "failed",
            "running": "running (still in progress, or stopped before it could be marked)"}[status]
    assert " ".join(errors.split()) == (
        f"error: run part is {said}: 2 of 6 planned conversations stored; resume it with the same "
        "`polygon run` command and --run-id part, then compare")


def test_show_says_an_unfinished_run_is_unfinished_and_a_complete_one_says_nothing(polygon_home: Path) -> None:
    _run("base")
    _run("part", stored=2, status="interrupted")
    code, out, _ = _invoke("show", "part")
    assert code == 0
    assert out.splitlines()[0] == ("run part is interrupted: 2 of 6 planned conversations stored; the scorecard "
                                   "covers only those")
    code, out, _ = _invoke("show", "base")
    assert code == 0 and "planned conversations" not in out


def test_compare_says_how_many_conversations_have_no_pair(polygon_home: Path) -> None:
    from polygon import usecases

    _run("base")
    _run("part", stored=2, status="complete")  # marked complete by hand: a smaller run on the same suite
    code, out, _ = _invoke("compare", "base", "part")
    stores = usecases.open_stores()
    runs = [stores.repo.get_run(r, exact=True) for r in ("base", "part")]
    labels = usecases.run_labels([r for r in runs if r is not None])
    base, part = labels["base"], labels["part"]
    assert f"Pairs: {part} vs {base}: 2 (scenario, seed) pair(s); no pair for 4 of {base}'s 6 conversations " \
           f"and 0 of {part}'s 2" in out.splitlines()
    assert code == 0


def test_no_agent_turn_with_a_latency_is_an_unknown_latency_not_zero() -> None:
    """Imported calls carry no latency: their mean agent latency is unknown (shown —), not 0.0 ms."""
    from polygon.usecases._compare import _Gathered
    from polygon.usecases._results import _latency
    from polygon_core.models import Conversation, EndReason, Turn

    turns = [Turn(index=0, speaker="caller", text="Hello?"), Turn(index=1, speaker="agent", text="Hi.")]
    call = Conversation(id="prod-1", scenario_id="production", seed=1, agent_name="a", agent_version="v",
                        persona_hash="", caller_type="real", difficulty=0, turns=turns,
                        end_reason=EndReason.CALLER_HANGUP)
    gathered = _Gathered()
    gathered.add(call.id, call.model_dump(mode="json"))
    assert gathered.latency == {"prod-1": None} and _latency(call) is None
    measured = call.model_copy(update={"turns": [turns[0], turns[1].model_copy(update={"latency_ms": 40.0})]})
    gathered.add("sim-1", measured.model_dump(mode="json"))
    assert gathered.latency["sim-1"] == 40.0 and _latency(measured) == 40.0
