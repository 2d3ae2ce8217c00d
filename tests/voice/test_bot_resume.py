"""Resuming a run of calls to a voice bot redials only the calls that are not stored: a stored call
(a finished one, or one that ended `agent_error` on a fault) is kept as it is, never dialled again."""

from __future__ import annotations

from pathlib import Path

from polygon import usecases
from polygon_core.demo import demo_dir
from polygon_core.models import LineConditions, Run

from ._scripted_bot import BotOptions, ScriptedBot

SUITE = str(demo_dir() / "suite")
SCENARIO = "billing-dispute-v3"


def test_resume_dials_only_the_calls_not_stored(polygon_home: Path, tmp_path: Path) -> None:
    options = BotOptions(turns=1)  # each dial: one caller line, one tool call, then the bot hangs up
    with ScriptedBot(options) as bot:
        agent = tmp_path / "bot.yaml"
        agent.write_text(f"name: scripted-bot\nvoice: {{url: '{bot.url}'}}\n", encoding="utf-8")
        stores = usecases.open_stores()
        _c, _p, version = usecases.agent_identity(str(agent), SUITE)
        run = Run(id="resumed", suite="demo", agent_name="scripted-bot", agent_version=version,
                  rubric_version="v1", seeds=[0, 1])
        usecases.create_run(stores, run, suite_path=SUITE, agent_path=str(agent),
                            line=usecases.LineRequest(channel="voice", conditions=LineConditions(preset="phone")))
        first = usecases.simulate(stores, "resumed", SUITE, str(agent), SCENARIO, 0)
        stored = usecases.load_conversation(stores, "resumed", first)
        wav = usecases.call_audio(stores, "resumed", first)
        assert len(options.tool_calls) == 1
        # The run resumed: seed 0 is stored, so only seed 1 is dialled.
        again = usecases.simulate(stores, "resumed", SUITE, str(agent), SCENARIO, 0)
        second = usecases.simulate(stores, "resumed", SUITE, str(agent), SCENARIO, 1)
    assert again == first and second != first
    assert len(options.tool_calls) == 2
    assert usecases.load_conversation(stores, "resumed", first) == stored
    assert usecases.call_audio(stores, "resumed", first) == wav
    assert usecases.load_conversation(stores, "resumed", second).seed == 1
