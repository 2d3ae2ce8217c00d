"""A voice bot on a real-time line (issue 30): Polygon dials a scripted Twilio Media Streams bot on
loopback, streams the offline caller in real time, serves the scenario's stubs to it, and stores the
call as it stores its own cascade's calls."""

from __future__ import annotations

from pathlib import Path

import pytest

from polygon import usecases
from polygon_core.demo import demo_dir
from polygon_core.models import Conversation, EndReason, LineConditions, Run

from ._scripted_bot import BotOptions, ScriptedBot

SUITE = str(demo_dir() / "suite")
SCENARIO = "billing-dispute-v3"


def _call(tmp_path: Path, bot: ScriptedBot, run_id: str,
          scenario: str = SCENARIO) -> tuple[usecases.Stores, str]:
    agent = tmp_path / f"{run_id}.yaml"
    agent.write_text(f"name: scripted-bot\nvoice: {{url: '{bot.url}'}}\n", encoding="utf-8")
    stores = usecases.open_stores()
    _c, _p, version = usecases.agent_identity(str(agent), SUITE)
    run = Run(id=run_id, suite="demo", agent_name="scripted-bot", agent_version=version, rubric_version="v1",
              seeds=[0])
    usecases.create_run(stores, run, suite_path=SUITE, agent_path=str(agent),
                        line=usecases.LineRequest(channel="voice", conditions=LineConditions(preset="phone")))
    return stores, usecases.simulate(stores, run_id, SUITE, str(agent), scenario, 0)


def test_a_bot_is_called_its_tools_reach_the_stubs_and_the_call_is_stored(polygon_home: Path,
                                                                          tmp_path: Path) -> None:
    options = BotOptions(turns=2)
    with ScriptedBot(options) as bot:
        stores, cid = _call(tmp_path, bot, "bot")
    conv = usecases.load_conversation(stores, "bot", cid)
    assert conv.channel == "voice" and conv.models["agent"] == f"bot:{bot.url}"
    assert conv.end_reason.value == "agent_end", conv.end_detail  # the bot hung up cleanly
    assert options.tool_calls[0][0] == 200 and options.tool_calls[0][1]["verified"] is True
    calls = [c for t in conv.turns for c in t.tool_calls]
    assert [c.name for c in calls] == ["lookup_account"] and calls[0].arguments == {"account_id": "4821",
                                                                                  "postcode": "SW1A 2AA"}
    agent_turns = [t for t in conv.turns if t.speaker == "agent" and t.text]
    assert len(agent_turns) >= 2 and all(t.start_ms is not None for t in agent_turns)
    assert "help you" in agent_turns[0].text.lower()  # heard by Polygon's recogniser, in real time
    assert conv.voice is not None and conv.voice.metrics["response_rate"].count >= 1
    wav = usecases.call_audio(stores, "bot", cid)
    assert wav[:4] == b"RIFF"
    timeline = usecases.call_timeline(stores, "bot", cid)
    assert {s.side for s in timeline.segments} == {"agent", "caller"}


def test_a_slow_bot_answers_late(polygon_home: Path, tmp_path: Path) -> None:
    # A cooperative caller says "hello?" after 5 s of silence: the bot's answer (its 0.6 s end of
    # turn plus 2.5 s) comes well before it. The impatient caller of billing-dispute-v3 says it
    # after 3 s, a race with the answer: on a loaded machine the "hello?" came first and the
    # latency was measured from it (0.13 s), as the metric's definition says it should be. The
    # bot takes no backchannel ("Okay.", 560 ms) for a line to answer.
    with ScriptedBot(BotOptions(turns=1, delay_s=2.5, use_tools=False, min_line_ms=800)) as bot:
        stores, cid = _call(tmp_path, bot, "slow", scenario="address-change")
    conv = usecases.load_conversation(stores, "slow", cid)
    assert conv.voice is not None
    assert conv.voice.metrics["response_latency"].value is not None
    assert conv.voice.metrics["response_latency"].value > 2.5


def test_a_bot_that_drops_the_line_ends_the_call_with_the_reason(polygon_home: Path, tmp_path: Path) -> None:
    with ScriptedBot(BotOptions(turns=3, drop_after=1)) as bot:
        stores, cid = _call(tmp_path, bot, "drop")
    conv = usecases.load_conversation(stores, "drop", cid)
    assert conv.end_reason.value == "agent_error" and "closed" in (conv.end_detail or "")


def test_a_call_to_a_bot_is_not_replayed(polygon_home: Path, tmp_path: Path) -> None:

    agent = tmp_path / "bot.yaml"
    agent.write_text("name: scripted-bot\nvoice: {url: 'ws://127.0.0.1:9/bot'}\n", encoding="utf-8")
    stores = usecases.open_stores()
    _c, _p, version = usecases.agent_identity(str(agent), SUITE)
    run = Run(id="stored-bot", suite="demo", agent_name="scripted-bot", agent_version=version,
              rubric_version="v1", seeds=[0])
    usecases.create_run(stores, run, suite_path=SUITE, agent_path=str(agent))
    conv = Conversation(id="c-bot", scenario_id=SCENARIO, seed=0, agent_name="scripted-bot", agent_version=version,
                        persona_hash="p", caller_type="busy", difficulty=3, end_reason=EndReason.AGENT_END,
                        channel="voice")
    uri = stores.artifacts.put_text(usecases.transcript_key(run.id, conv.id), conv.model_dump_json())
    stores.repo.save_conversation(run.id, conv, artifact_uri=uri, assertions=[], metrics={})
    with pytest.raises(ValueError) as refused:
        usecases.replay_conversation(stores, run.id, conv.id)
    assert str(refused.value) == ("conversation 'c-bot' of run 'stored-bot' is a call to a voice bot "
                                  "(ws://127.0.0.1:9/bot): a real-time call to a deployed bot cannot be replayed")
