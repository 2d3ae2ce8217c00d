"""The call on its clock (polygon_core.voice.CallLine) with tone voices: exact times and decisions."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from polygon_core.models import CascadeSettings, LineConditions, Turn
from polygon_core.voice import CallerHabits, CallLine, RoomSound, interaction_metrics, only_fillers, words_before
from polygon_core.voice import _call as call_module

from ._fakes import fake_parts, word_ms

QUIET = CallerHabits(barge_in_p=0.0, backchannel_p=0.0, reaction_ms=(400, 400), hello_after_ms=5000,
                     hangup_after_ms=12000)
BARGER = CallerHabits(1.0, 0.0, (400, 400), 5000, 12000)
NODDER = CallerHabits(0.0, 1.0, (400, 400), 5000, 12000)
EIGHT = "I can see two charges on your account this month"  # 10 words, 3,900 ms of speech


def make_line(habits: CallerHabits = QUIET, *, cascade: CascadeSettings | None = None,
              caller_type: str = "cooperative", mishear: dict[str, str] | None = None) -> CallLine:
    return CallLine(parts=fake_parts(mishear), conversation_id="c1", seed=0, caller_type=caller_type,
                    language="en", conditions=LineConditions(preset="clean"), cascade=cascade or CascadeSettings(),
                    agent_name="agent", habits=habits)


def agent(index: int, text: str, latency: float = 0.0, end: Any = None) -> Turn:
    return Turn(index=index, speaker="agent", text=text, latency_ms=latency, end=end)


def run(coro: Any) -> Any:
    return asyncio.run(coro)


async def _opening(line: CallLine, *, reply: str = EIGHT, latency: float = 1000.0) -> list[Any]:
    greeting = await line.agent_spoke(agent(0, "Hi how can I help"))  # 1.9 s: too short to talk over
    said = await line.caller_spoke(1, "I was charged twice")
    answer = await line.agent_spoke(agent(2, reply, latency))
    return [greeting, said, answer]


def test_times_follow_the_cascade_chain() -> None:
    line = make_line()
    greeting, said, answer = run(_opening(line))
    # greeting: synthesis latency 200 ms; five words of 300 ms with 100 ms gaps
    assert (greeting.start_ms, greeting.end_ms) == (200, 200 + word_ms(5))
    # the caller reacts after 400 ms, on the tick
    assert (said.start_ms, said.end_ms, said.heard) == (2600, 2600 + word_ms(4), "I was charged twice")
    # end of turn 4,100 + endpoint 600 + recognition 150 + agent 1,000 + synthesis 200 = 6,050 -> tick 6,200
    assert (answer.start_ms, answer.end_ms) == (6200, 6200 + word_ms(10))
    assert answer.heard == EIGHT and not answer.interrupted
    metrics = interaction_metrics(line.timeline())
    assert metrics["response_latency"].value == pytest.approx(2.1)
    assert metrics["response_rate"].value == 1.0 and metrics["response_rate"].count == 1
    assert metrics["time_to_first_audio"].value == pytest.approx(0.2)
    assert metrics["word_error_rate"].value == 0.0


def test_the_agent_hears_the_recogniser_not_the_text() -> None:
    line = make_line(mishear={"I was charged twice": "I was charged twice fifty"})
    _, said, _ = run(_opening(line))
    assert said.heard == "I was charged twice fifty"
    caller = [s for s in line.timeline().segments if s.side == "caller"]
    assert [(s.text, s.heard, s.turn) for s in caller] == [("I was charged twice", "I was charged twice fifty", 1)]
    assert interaction_metrics(line.timeline())["word_error_rate"].value == pytest.approx(0.25)


def test_a_barge_in_makes_a_yielding_agent_stop() -> None:
    line = make_line(BARGER)
    _, _, answer = run(_opening(line))
    barge = next(e for e in line.events if e.kind == "barge_in").start_ms
    speech = word_ms(10)
    assert 6200 + 0.3 * speech <= barge <= 6200 + 0.7 * speech + 200 and barge % 200 == 0
    said = run(line.caller_spoke(3, "No stop"))
    assert said.start_ms == barge  # the caller's line starts over the agent
    assert answer.end_ms == barge + 600 and answer.interrupted  # barge_in_ms, on the tick
    assert [e.start_ms for e in line.events if e.kind == "yield"] == [barge + 600]
    assert answer.heard == words_before(EIGHT, (barge + 600 - 6200) / speech)
    assert answer.heard and answer.heard != EIGHT
    metrics = interaction_metrics(line.timeline())
    assert metrics["yield_rate"].value == 1.0
    assert metrics["yield_latency"].value == pytest.approx(0.6)


def test_an_agent_that_does_not_yield_talks_on() -> None:
    line = make_line(BARGER, cascade=CascadeSettings(yields=False))
    _, _, answer = run(_opening(line))
    run(line.caller_spoke(3, "No stop"))
    assert answer.end_ms == 6200 + word_ms(10) and answer.interrupted and answer.heard == EIGHT
    assert not [e for e in line.events if e.kind == "yield"]
    metrics = interaction_metrics(line.timeline())
    assert metrics["yield_rate"].value == 0.0 and metrics["yield_rate"].count == 1


def test_no_barge_in_over_a_short_or_final_agent_turn() -> None:
    line = make_line(BARGER)
    run(line.agent_spoke(agent(0, "Hello")))  # 300 ms: too short to talk over
    run(line.caller_spoke(1, "Hi"))
    run(line.agent_spoke(agent(2, EIGHT, end="end")))  # the agent ends the call
    assert not [e for e in line.events if e.kind == "barge_in"]


def test_a_short_backchannel_is_not_yielded_to() -> None:
    line = make_line(NODDER)
    _, _, answer = run(_opening(line))
    backchannels = [s for s in line.segments if s.kind == "backchannel"]
    assert len(backchannels) == 1 and backchannels[0].end_ms - backchannels[0].start_ms == 300
    assert 6200 < backchannels[0].start_ms < answer.end_ms
    assert answer.end_ms == 6200 + word_ms(10) and not answer.interrupted
    assert interaction_metrics(line.timeline())["selectivity_backchannel"].value == 1.0


def test_a_twitchy_cascade_yields_to_a_backchannel() -> None:
    line = make_line(NODDER, cascade=CascadeSettings(barge_in_ms=200))
    _, _, answer = run(_opening(line))
    nod = next(s for s in line.segments if s.kind == "backchannel")
    assert answer.end_ms == nod.start_ms + 200
    assert interaction_metrics(line.timeline())["selectivity_backchannel"].value == 0.0


def test_a_long_wait_gets_a_hello_then_a_hang_up() -> None:
    line = make_line()
    run(line.agent_spoke(agent(0, "Hello how can I help you")))
    said = run(line.caller_spoke(1, "I was charged twice"))
    late = run(line.agent_spoke(agent(2, "One moment", latency=6000)))
    hello = [s for s in line.segments if s.kind == "hello"]
    assert [s.start_ms for s in hello] == [200 * -(-(said.end_ms + 5000) // 200)] and late.hangup is None
    run(line.caller_spoke(3, "Are you there"))
    gone = run(line.agent_spoke(agent(4, "Sorry", latency=30000)))
    assert gone.hangup == "caller hung up after 12.0 s of silence"
    assert [e.kind for e in line.events if e.kind == "hangup"] == ["hangup"]


def test_an_agent_that_says_nothing_twice_is_hung_up_on() -> None:
    line = make_line()
    run(line.agent_spoke(agent(0, "Hello")))
    run(line.caller_spoke(1, "Hi"))
    first = run(line.agent_spoke(agent(2, "")))
    assert first.hangup is None and [s.kind for s in line.segments].count("hello") == 1
    run(line.caller_spoke(3, "Hi"))
    second = run(line.agent_spoke(agent(4, "")))
    assert second.hangup == "the agent said nothing twice"


def test_a_pause_inside_the_line_ends_the_cascades_turn_early() -> None:
    # A confused caller pauses 700 ms between sentences: longer than the 600 ms endpoint.
    line = make_line(caller_type="confused")
    run(line.agent_spoke(agent(0, "Hello how can I help you")))
    said = run(line.caller_spoke(1, "I am not sure. It was the bill."))
    start = said.start_ms
    assert said.end_ms == start + word_ms(4) + 100 + 700 + word_ms(4)
    answer = run(line.agent_spoke(agent(2, EIGHT)))
    first_end = start + word_ms(4)
    early = 200 * -(-(first_end + 600 + 150 + 200) // 200)
    assert answer.start_ms == early < said.end_ms  # it talked over the caller
    fragments = [s for s in line.segments if s.side == "agent" and s.turn == 2]
    assert [(f.start_ms, f.end_ms, f.interrupted) for f in fragments[:1]] == [(early, early + 600, True)]
    again = 200 * -(-(said.end_ms + 600 + 150 + 200) // 200)
    assert (fragments[1].start_ms, fragments[1].end_ms) == (again, again + word_ms(10))
    assert answer.heard == EIGHT and answer.interrupted
    assert interaction_metrics(line.timeline())["agent_interruption_rate"].value == 1.0


def _room(monkeypatch: pytest.MonkeyPatch, sounds: dict[int, list[RoomSound]]) -> None:
    monkeypatch.setattr(call_module, "plan_room_sounds", lambda conditions, *, turn, **_: sounds.get(turn, []))


def test_an_aside_in_a_silence_is_answered_and_a_tic_is_not(monkeypatch: pytest.MonkeyPatch) -> None:
    _room(monkeypatch, {0: [RoomSound("non_directed", "Hold on honey", "silence", 0.5),
                            RoomSound("vocal_tic", "um", "silence", 0.1)]})
    line = make_line()
    greeting = run(line.agent_spoke(agent(0, "Hello how can I help you")))
    answered = run(line.interjections(1))
    tic, aside = sorted((s for s in line.segments if s.side == "caller"), key=lambda s: s.start_ms)
    assert (tic.kind, tic.start_ms, tic.heard) == ("vocal_tic", 200 * -(-(greeting.end_ms + 150) // 200), "um")
    assert (aside.kind, aside.heard) == ("non_directed", "Hold on honey")
    assert aside.start_ms == 200 * -(-(tic.end_ms + 750) // 200)
    assert [(a.kind, a.heard, a.start_ms) for a in answered] == [("non_directed", "Hold on honey", aside.start_ms)]
    reply = run(line.agent_spoke(agent(1, "Sorry")))
    assert reply.start_ms == 200 * -(-(aside.end_ms + 950) // 200)
    assert interaction_metrics(line.timeline())["selectivity_non_directed"].value == 0.0


def test_a_cough_over_the_agent_is_not_a_barge_in(monkeypatch: pytest.MonkeyPatch) -> None:
    _room(monkeypatch, {0: [RoomSound("vocal_tic", "", "agent_speech", 0.5)]})
    line = make_line()
    greeting = run(line.agent_spoke(agent(0, EIGHT)))
    cough = next(s for s in line.segments if s.kind == "vocal_tic")
    assert cough.text == "(cough)" and greeting.start_ms < cough.start_ms < greeting.end_ms
    assert cough.end_ms - cough.start_ms < 600 and not greeting.interrupted
    assert interaction_metrics(line.timeline())["selectivity_vocal_tic"].value == 1.0


def test_same_call_same_bytes() -> None:
    def call() -> tuple[bytes, str]:
        line = make_line(BARGER)
        run(_opening(line))
        run(line.caller_spoke(3, "No stop"))
        return line.render(), line.timeline().model_dump_json()

    first, second = call(), call()
    assert first == second
    assert first[0][:4] == b"RIFF" and len(first[0]) > 44


def test_words_before_and_fillers() -> None:
    assert words_before("one two three four", 0.5) == "one two"
    assert words_before("one two three", 0.0) == "" and words_before("one two", 1.0) == "one two"
    assert only_fillers("Um, uh...") and only_fillers("") and only_fillers("Э-э")
    assert not only_fillers("um, fifteen")


def test_asides_in_one_silence_are_answered_one_after_another(monkeypatch: pytest.MonkeyPatch) -> None:
    _room(monkeypatch, {0: [RoomSound("non_directed", "Hold on honey", "silence", 0.6),
                            RoomSound("non_directed", "Not now Sam", "silence", 0.2)]})
    line = make_line()
    run(line.agent_spoke(agent(0, "Hello how can I help you")))
    first = run(line.interjections(1))
    assert [(a.heard, a.kind) for a in first] == [("Not now Sam", "non_directed")]
    reply = run(line.agent_spoke(agent(2, "Sorry")))  # its own silence plans no new room sounds
    second = run(line.interjections(3))
    assert [a.heard for a in second] == ["Hold on honey"] and second[0].start_ms > reply.end_ms
    run(line.agent_spoke(agent(4, "Sorry")))
    assert run(line.interjections(5)) == []
    asides = sorted((s for s in line.segments if s.kind == "non_directed"), key=lambda s: s.start_ms)
    assert [(s.text, s.turn) for s in asides] == [("Not now Sam", 1), ("Hold on honey", 3)]  # the transcript's turns


def test_a_line_said_again_is_said_slower() -> None:
    line = make_line()
    voice = line.parts.caller_voice
    run(line.agent_spoke(agent(0, "Hi")))
    for turn in (1, 3, 5, 7, 9):
        run(line.caller_spoke(turn, "My account number is 4821." if turn != 5 else "Sorry?"))
        run(line.agent_spoke(agent(turn + 1, "Could you say that again")))
    said = [(rate, pause) for text, rate, pause in voice.calls if text.startswith("My account")]  # type: ignore[attr-defined]
    first, pause = said[0]
    assert said == [(first, pause), (round(first * 0.85), pause + 150), (round(first * 0.85 ** 2), pause + 300),
                    (max(110, round(first * 0.85 ** 3)), pause + 450)]
