"""The caller's turn-taking on a real-time bot line (issue 30): it talks over the scripted bot,
backchannels while it talks and says "hello?" into its silence, and the interaction metrics read the
bot's speech as it really played: a bot that sends `clear` yielded, one that talks on did not.

The caller speaks in tone words (`_fakes.ToneVoice`: 300 ms a word) and the bot in eSpeak's voice,
sending its own transcripts; habits with chances of 0 or 1 make the decisions certain. Each call
lasts a few seconds of real time.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import pytest

from polygon_core.adapters.transports import make_transport
from polygon_core.adapters.voice_bot import BotCall
from polygon_core.adapters.voice_bot import _call as call_module
from polygon_core.adapters.voice_bot._turn_taking import SpokenTurn, agent_segments, turn_plan
from polygon_core.conversation import CallerUtterance, CallerView, run_conversation
from polygon_core.demo import demo_dir
from polygon_core.files import load_suite
from polygon_core.models import Conversation, LineConditions
from polygon_core.voice import BACKCHANNEL_MIN_MS, BARGE_MIN_MS, CallerHabits, backchannels

from ._fakes import fake_parts
from ._scripted_bot import BotOptions, ScriptedBot

SUITE = load_suite(demo_dir() / "suite")
SCENARIO = "billing-dispute-v3"
PRIVACY = "Hello, this is Northwind billing. Before we start, I will read you our privacy notice, which takes a little while."
LINE = "I was charged twice."  # four tone words: 1,500 ms

BARGER = CallerHabits(barge_in_p=1.0, backchannel_p=0.0, reaction_ms=(200, 200), hello_after_ms=8000,
                      hangup_after_ms=15000)
NODDER = CallerHabits(0.0, 1.0, (200, 200), 8000, 15000)
WAITER = CallerHabits(0.0, 0.0, (200, 200), 1500, 15000)


@dataclass
class LinesCaller:
    """Says its lines in order, then hangs up."""

    lines: list[str]

    async def speak(self, view: CallerView) -> CallerUtterance:
        return CallerUtterance(text=self.lines.pop(0)) if self.lines else CallerUtterance(end="hangup")


def _call(options: BotOptions, habits: CallerHabits, cid: str = "bot-tt") -> tuple[Conversation, BotCall]:
    options.transcripts, options.use_tools, options.min_line_ms = True, False, 400
    scenario = SUITE.scenario(SCENARIO).model_copy(update={"max_turns": 6})
    with ScriptedBot(options) as bot:
        async def go() -> tuple[Conversation, BotCall]:
            call = BotCall(transport=make_transport("twilio"), url=bot.url, route=None, parts=fake_parts(),
                           conversation_id=cid, scenario_id=SCENARIO, seed=0, caller_type="busy", language="en",
                           conditions=LineConditions(preset="clean"), habits=habits)
            async with call:
                conv = await run_conversation(scenario, call, LinesCaller([LINE]), SUITE.tools, seed=0,
                                              agent_name="bot", agent_version="v", line=call)
            return conv, call

        return asyncio.run(go())


def _kinds(call: BotCall) -> list[str]:
    return [e.kind for e in call.timeline().events]


def test_a_bot_that_clears_when_talked_over_has_yielded() -> None:
    conv, call = _call(BotOptions(turns=1, yields=True, lines=[PRIVACY, "Sorry. Go on."]), BARGER)
    assert conv.end_reason.value in ("agent_end", "caller_hangup"), conv.end_detail
    assert _kinds(call) == ["barge_in", "yield"]
    greeting = conv.turns[0]
    assert greeting.interrupted and greeting.text == PRIVACY
    assert greeting.heard and PRIVACY.startswith(greeting.heard) and greeting.heard != PRIVACY
    timeline = call.timeline()
    bot = timeline.side("agent")
    caller = timeline.side("caller")
    assert [(s.turn, s.interrupted) for s in bot] == [(0, True), (2, False)]
    barge, cut = timeline.events[0].start_ms, timeline.events[1].start_ms
    assert caller[0].start_ms == barge and bot[0].end_ms <= cut  # the bot's speech ends at its clear
    assert bot[0].start_ms + BARGE_MIN_MS <= barge < bot[0].start_ms + 4000  # loose: 2-3 s in, plus the line's start
    metrics = call.metrics()
    assert (metrics["yield_rate"].value, metrics["yield_rate"].count) == (1.0, 1)
    assert metrics["yield_latency"].count == 1
    assert 0 < metrics["yield_latency"].value < 2.0  # type: ignore[operator]
    assert (metrics["response_rate"].value, metrics["response_rate"].count) == (1.0, 1)
    # Same conversation, same seed: the same decisions.
    _again_conv, again = _call(BotOptions(turns=1, yields=True, lines=[PRIVACY, "Sorry. Go on."]), BARGER)
    assert _kinds(again) == _kinds(call)
    assert [(s.side, s.kind, s.turn) for s in again.timeline().segments] == \
        [(s.side, s.kind, s.turn) for s in timeline.segments]


def test_a_bot_that_talks_on_over_the_caller_does_not_yield() -> None:
    options = BotOptions(turns=1, lines=[PRIVACY, "Sorry. Go on."])
    conv, call = _call(options, BARGER)
    assert options.cleared == []
    assert _kinds(call) == ["barge_in"]
    assert conv.turns[0].interrupted
    timeline = call.timeline()
    bot, caller = timeline.side("agent"), timeline.side("caller")
    assert [s.turn for s in bot] == [0, 2] and [s.turn for s in caller] == [1]
    # The bot's greeting runs on over the whole of the caller's line and past it.
    assert bot[0].start_ms < caller[0].start_ms and bot[0].end_ms > caller[0].end_ms
    assert bot[0].end_ms - caller[0].start_ms >= 2000
    assert bot[1].start_ms >= bot[0].end_ms  # the answer is the next turn, after the rest played
    metrics = call.metrics()
    assert (metrics["yield_rate"].value, metrics["yield_rate"].count) == (0.0, 1)
    assert metrics["yield_latency"].value is None and metrics["yield_latency"].count == 0
    assert conv.turns[2].text == "Sorry. Go on."


def test_the_caller_backchannels_while_the_bot_talks() -> None:
    conv, call = _call(BotOptions(turns=1, lines=[PRIVACY, "I see."]), NODDER)
    timeline = call.timeline()
    nods = [s for s in timeline.segments if s.kind == "backchannel"]
    assert len(nods) == 1 and nods[0].side == "caller" and nods[0].turn is None
    assert nods[0].text in backchannels("en")
    greeting = timeline.side("agent")[0]
    assert greeting.turn == 0 and greeting.start_ms + BACKCHANNEL_MIN_MS <= nods[0].start_ms < greeting.end_ms
    assert [t.speaker for t in conv.turns[:3]] == ["agent", "caller", "agent"]  # no transcript turn for it
    assert not conv.turns[0].interrupted and _kinds(call) == []
    metrics = call.metrics()
    assert (metrics["selectivity_backchannel"].value, metrics["selectivity_backchannel"].count) == (1.0, 1)


def test_the_caller_says_hello_into_a_slow_bots_silence() -> None:
    conv, call = _call(BotOptions(turns=1, delay_s=3.0, lines=["Hi. How can I help?", "I see."]), WAITER)
    caller = call.timeline().side("caller")
    assert [(s.kind, s.text) for s in caller] == [("speech", LINE), ("hello", "Hello?")]
    line, hello = caller
    assert hello.start_ms - line.end_ms >= 1500 and hello.turn is None
    answer = call.timeline().side("agent")[-1]
    assert answer.turn == 2 and answer.start_ms > hello.end_ms
    assert conv.turns[2].text == "I see."


def test_the_plan_of_a_turn_is_seeded_by_the_conversation_and_the_turn() -> None:
    habits = CallerHabits(0.5, 0.5, (200, 400), 3000, 9000)
    plans = [turn_plan(habits, "c1", turn, "en") for turn in range(40)]
    assert plans == [turn_plan(habits, "c1", turn, "en") for turn in range(40)]
    assert plans != [turn_plan(habits, "c2", turn, "en") for turn in range(40)]
    barges = [p.barge_at_ms for p in plans if p.barge_at_ms is not None]
    assert 0 < len(barges) < 40 and all(BARGE_MIN_MS <= b < BARGE_MIN_MS + 1000 for b in barges)
    nods = [p.backchannel_at_ms for p in plans if p.backchannel_at_ms is not None]
    assert 0 < len(nods) < 40 and all(BACKCHANNEL_MIN_MS <= n < BACKCHANNEL_MIN_MS + 1000 for n in nods)
    never = CallerHabits(0.0, 0.0, (200, 400), 3000, 9000)
    assert all(turn_plan(never, "c1", t, "en").barge_at_ms is None for t in range(40))


def test_the_bots_segments_are_its_speech_by_turn_cut_at_its_clear() -> None:
    frames = [*range(100, 2100, 20), *range(2500, 3000, 20), *range(3100, 3500, 20), *range(5000, 5400, 20)]
    turns = [SpokenTurn(0, 100, "greeting", "greet", barged=True), SpokenTurn(2, 3100, "answer", "answer")]
    got = agent_segments(frames, 20, turns, gap_ms=900, cuts=[3010])
    assert [(s.start_ms, s.end_ms, s.turn, s.text, s.interrupted) for s in got] == [
        (100, 3000, 0, "greeting", True),  # a 400 ms pause inside a turn does not split it
        (3100, 3500, 2, "answer", False),  # the next turn's speech is its own, even 100 ms later
        (5000, 5400, 2, "", False),  # 1.5 s later: a segment of its own, of the same turn
    ]


def test_a_bot_that_never_speaks_hears_one_hello_then_fails_the_call_silent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(call_module, "SILENT_LIMIT_S", 2.5)  # the 15 s limit, shortened for the test
    quick = CallerHabits(0.0, 0.0, (200, 200), 1000, 15000)
    conv, call = _call(BotOptions(silent=True), quick)
    assert conv.end_reason.value == "agent_error" and "silent" in (conv.end_detail or "")
    caller = call.timeline().side("caller")
    assert [(s.kind, s.text, s.turn) for s in caller] == [("hello", "Hello?", None)]  # once per wait
    assert 1000 <= caller[0].start_ms < 2500 and call.timeline().side("agent") == []
