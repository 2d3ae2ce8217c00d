"""Interaction metrics on hand-laid timelines: every value is worked out by hand in the comments."""

from __future__ import annotations

import math

import pytest

from polygon_core.models import InteractionMetric
from polygon_core.voice import (
    ALL_CALL_METRICS,
    MetricSummary,
    Segment,
    Timeline,
    assertion_values,
    interaction_metrics,
    normalise_words,
    summarise,
)

# Student's t quantiles t(0.975, df), written out so the interval is checked against a constant.
T975 = {2: 4.302652729749462, 3: 3.1824463052837078}


def agent(start: int, end: int) -> Segment:
    return Segment(side="agent", start_ms=start, end_ms=end)


def caller(start: int, end: int, kind: str = "speech", text: str = "", heard: str | None = None,
           turn: int | None = None) -> Segment:
    return Segment(side="caller", start_ms=start, end_ms=end, kind=kind, text=text, heard=heard,  # type: ignore[arg-type]
                   turn=turn)


def call(*segments: Segment, duration: int = 0) -> Timeline:
    return Timeline(conversation_id="c1", duration_ms=duration,
                    segments=sorted(segments, key=lambda s: (s.start_ms, s.side)))


def values(metrics: dict[str, InteractionMetric]) -> dict[str, tuple[float | None, int]]:
    return {name: (m.value, m.count) for name, m in metrics.items()}


# A whole call, 49 s. Agent spans A, caller turns T (speech/hello), backchannels B, tics V, asides N.
RICH = call(
    agent(600, 2600),                                          # A0: first audio at 0.6 s
    caller(3000, 4600, text="I was charged twice", heard="I want charge twice", turn=1),   # T1
    agent(5400, 9400),                                         # A2 answers T1 after 800 ms
    caller(6000, 6400, kind="backchannel", text="mm-hmm", heard="hmm"),  # B1: A2 goes on 3.4 s: correct
    caller(10000, 11000, text="forty nine dollars", heard="$49", turn=3),  # T3
    agent(12000, 18000),                                       # A4 answers T3 after 1000 ms
    caller(13000, 14000, text="wait", turn=5),                 # T5 barges in; A4 goes on 5 s: no yield;
    caller(15000, 15300, kind="backchannel"),                  # B2: A4 goes on 3 s: correct
    caller(19000, 20000, text="stop please", heard="stop please", turn=6),  # T6 (A4 ended 18000)
    agent(19800, 22400),                                       # A7 starts inside T6: agent interrupts
    caller(22000, 23000, text="no", turn=8),                   # T8 barges in on A7, which stops 400 ms later
    agent(23800, 25200),                                       # A9 answers T8 after 800 ms
    caller(24500, 24800, kind="backchannel"),                  # B3: A9 stops 700 ms later: error
    caller(26000, 26300, kind="vocal_tic", text="um"),         # V1: caller's floor; A starts 1.0 s after
    agent(27300, 28000),                                       #   its end: error
    caller(29000, 29300, kind="vocal_tic", text="[cough]"),    # V2: no agent start until 31800 (> 31300)
    caller(30000, 30500, kind="non_directed", text="one sec honey"),  # N2: A starts 1.3 s after: error
    agent(31800, 33000),
    caller(33500, 34500, kind="non_directed", text="hold on"),  # N1: the window closes at T10 (36000)
    caller(36000, 37000, text="sorry I am back", turn=10),     # T10
    agent(37500, 39000),                                       # A10 answers T10 after 500 ms
    caller(38000, 38500, kind="non_directed", text="not now"),  # N3: A10 stops exactly 1000 ms later
    caller(40000, 41000, text="are you there", turn=11),       # T11: the caller speaks again first
    caller(45000, 45500, kind="hello", text="hello?", heard="hello", turn=12),  # T12
    agent(46000, 47000),                                       # answers T12 after 500 ms
    caller(47500, 48000, text="bye", turn=13),                 # T13: the last turn, nothing after
    duration=49000,
)


def test_every_metric_of_a_whole_call() -> None:
    # Counted turns (agent silent as they end): T1 T3 T8 T10 T11 T12 (T13 is last; T5 and T6 end
    # under agent speech). Answered: 800 1000 800 500 500 ms; T11 not.
    # Barge-ins: T5 (no yield), T8 (400 ms). Agent interruptions: A7 only.
    # Silences: 20 gaps, the longest 41000-45000. Words: T1 2 edits of 4, T3 0/3, T6 0/2, T12 0/1.
    assert values(interaction_metrics(RICH)) == {
        "response_latency": (0.72, 5),
        "yield_latency": (0.4, 1),
        "response_rate": (5 / 6, 6),
        "yield_rate": (0.5, 2),
        "agent_interruption_rate": (1 / 6, 6),
        "selectivity_backchannel": (2 / 3, 3),
        "selectivity_vocal_tic": (0.5, 2),
        "selectivity_non_directed": (2 / 3, 3),
        "time_to_first_audio": (0.6, 1),
        "longest_silence": (4.0, 20),
        "word_error_rate": (0.2, 10),
        "response_latency_p50": (0.8, 5),
        "response_latency_p95": (0.96, 5),  # numpy linear: 800 + 0.8 * (1000 - 800) ms
        "yield_latency_p50": (0.4, 1),
        "yield_latency_p95": (0.4, 1),
    }


def test_the_keys_are_exactly_the_metric_names_in_order() -> None:
    assert tuple(interaction_metrics(RICH)) == ALL_CALL_METRICS


def test_an_empty_timeline_measures_nothing() -> None:
    metrics = interaction_metrics(Timeline(conversation_id="c0"))
    assert values(metrics) == {name: (None, 0) for name in ALL_CALL_METRICS}
    assert assertion_values(metrics) == {}


def test_a_backchannel_the_agent_yields_to_is_an_error_and_one_it_talks_through_is_not() -> None:
    yielded = call(agent(0, 1600), caller(1000, 1300, kind="backchannel"))  # stops 600 ms later
    ignored = call(agent(0, 5000), caller(1000, 1300, kind="backchannel"))  # goes on 4 s
    both = call(agent(0, 1600), caller(1000, 1300, kind="backchannel"),
                agent(3000, 8000), caller(4000, 4300, kind="backchannel"))
    assert interaction_metrics(yielded)["selectivity_backchannel"] == InteractionMetric(value=0.0, count=1)
    assert interaction_metrics(ignored)["selectivity_backchannel"] == InteractionMetric(value=1.0, count=1)
    assert interaction_metrics(both)["selectivity_backchannel"] == InteractionMetric(value=0.5, count=2)
    # A backchannel is never a turn, a barge-in or an interruption.
    assert values(interaction_metrics(both))["yield_rate"] == (None, 0)
    assert values(interaction_metrics(both))["response_rate"] == (None, 0)


def test_stopping_exactly_one_second_after_a_backchannel_is_not_yielding_to_it() -> None:
    assert interaction_metrics(call(agent(0, 2000), caller(1000, 1200, kind="backchannel")))[
        "selectivity_backchannel"].value == 1.0
    assert interaction_metrics(call(agent(0, 1999), caller(1000, 1200, kind="backchannel")))[
        "selectivity_backchannel"].value == 0.0


def test_a_backchannel_in_silence_is_not_scored() -> None:
    assert values(interaction_metrics(call(agent(0, 1000), caller(2000, 2300, kind="backchannel"))))[
        "selectivity_backchannel"] == (None, 0)


def test_a_vocal_tic_in_silence_answered_within_two_seconds_errs_and_one_answered_after_does_not() -> None:
    base = (caller(0, 1000, turn=1), agent(1500, 3000))  # the turn is answered: the floor is the caller's
    answered = call(*base, caller(4000, 4300, kind="vocal_tic"), agent(5300, 6000))  # 1.0 s after its end
    late = call(*base, caller(4000, 4300, kind="vocal_tic"), agent(6800, 7000))  # 2.5 s after its end
    edge = call(*base, caller(4000, 4300, kind="vocal_tic"), agent(6300, 7000))  # exactly 2.0 s: errs
    assert interaction_metrics(answered)["selectivity_vocal_tic"] == InteractionMetric(value=0.0, count=1)
    assert interaction_metrics(late)["selectivity_vocal_tic"] == InteractionMetric(value=1.0, count=1)
    assert interaction_metrics(edge)["selectivity_vocal_tic"] == InteractionMetric(value=0.0, count=1)


def test_a_vocal_tic_during_agent_speech_errs_only_if_the_agent_stops_within_one_second() -> None:
    stops = call(agent(0, 1500), caller(1000, 1200, kind="vocal_tic"))
    goes_on = call(agent(0, 3000), caller(1000, 1200, kind="vocal_tic"))
    assert interaction_metrics(stops)["selectivity_vocal_tic"] == InteractionMetric(value=0.0, count=1)
    assert interaction_metrics(goes_on)["selectivity_vocal_tic"] == InteractionMetric(value=1.0, count=1)


def test_a_tic_the_agent_cannot_be_judged_on_is_not_scored() -> None:
    # Inside the caller's own turn: the agent answers the turn.
    inside = call(caller(0, 2000, turn=1), caller(500, 700, kind="vocal_tic"), agent(2500, 4000))
    # While the caller's turn awaits its answer: the agent's next words answer the turn.
    pending = call(caller(0, 1000, turn=1), caller(1200, 1400, kind="vocal_tic"), agent(2000, 4000))
    for timeline, latency in ((inside, 0.5), (pending, 1.0)):
        metrics = interaction_metrics(timeline)
        assert metrics["selectivity_vocal_tic"] == InteractionMetric(value=None, count=0)
        assert metrics["response_latency"] == InteractionMetric(value=latency, count=1)


def test_the_window_after_a_tic_closes_when_the_caller_takes_the_floor() -> None:
    # Tic ends 4300; the caller speaks 4800-5300; the agent answers the turn at 5800 (< 4300 + 2000).
    timeline = call(caller(0, 1000, turn=1), agent(1500, 3000), caller(4000, 4300, kind="vocal_tic"),
                    caller(4800, 5300, turn=3), agent(5800, 7000), caller(7500, 8000, turn=5))
    metrics = interaction_metrics(timeline)
    assert metrics["selectivity_vocal_tic"] == InteractionMetric(value=1.0, count=1)
    assert metrics["response_latency"] == InteractionMetric(value=0.5, count=2)


def test_non_directed_speech_in_silence_answered_and_not_answered() -> None:
    base = (caller(0, 1000, turn=1), agent(1500, 3000))
    answered = call(*base, caller(4000, 5000, kind="non_directed", text="hold on, honey"), agent(6000, 7000))
    ignored = call(*base, caller(4000, 5000, kind="non_directed", text="hold on, honey"), agent(7500, 8000))
    both = call(*base, caller(4000, 5000, kind="non_directed"), agent(6000, 7000),
                caller(8000, 9000, kind="non_directed"), agent(11500, 12000))
    assert interaction_metrics(answered)["selectivity_non_directed"] == InteractionMetric(value=0.0, count=1)
    assert interaction_metrics(ignored)["selectivity_non_directed"] == InteractionMetric(value=1.0, count=1)
    assert interaction_metrics(both)["selectivity_non_directed"] == InteractionMetric(value=0.5, count=2)


def test_non_directed_speech_during_agent_speech_is_scored_like_a_tic() -> None:
    assert interaction_metrics(call(agent(0, 1800), caller(1000, 1500, kind="non_directed")))[
        "selectivity_non_directed"] == InteractionMetric(value=0.0, count=1)


def test_an_interruption_the_agent_does_not_yield_to() -> None:
    timeline = call(agent(0, 6000), caller(1000, 2000, turn=1))  # the agent talks on for 5 s
    metrics = interaction_metrics(timeline)
    assert metrics["yield_rate"] == InteractionMetric(value=0.0, count=1)
    assert metrics["yield_latency"] == InteractionMetric(value=None, count=0)
    assert metrics["yield_latency_p95"] == InteractionMetric(value=None, count=0)
    # The turn ended under agent speech: it is not counted for R_R, so I_A has no denominator.
    assert metrics["response_rate"] == InteractionMetric(value=None, count=0)
    assert metrics["agent_interruption_rate"] == InteractionMetric(value=None, count=0)


def test_yielding_means_stopping_less_than_two_seconds_after_the_barge_in() -> None:
    def barge_in(stop: int) -> InteractionMetric:
        return interaction_metrics(call(agent(0, stop), caller(1000, 4000, turn=1)))["yield_rate"]

    assert barge_in(2999) == InteractionMetric(value=1.0, count=1)
    assert barge_in(3000) == InteractionMetric(value=0.0, count=1)
    metrics = interaction_metrics(call(agent(0, 1600), caller(1000, 4000, turn=1), agent(4800, 5000)))
    assert metrics["yield_latency"] == InteractionMetric(value=0.6, count=1)
    assert metrics["response_latency"] == InteractionMetric(value=0.8, count=1)  # the yielded turn is answered


def test_agent_speech_cut_by_the_end_of_the_call_is_no_yield() -> None:
    timeline = call(agent(0, 1500), caller(1000, 1400, turn=1), duration=1500)
    assert interaction_metrics(timeline)["yield_rate"] == InteractionMetric(value=0.0, count=1)


def test_an_agent_starting_while_the_caller_speaks_interrupts() -> None:
    # The agent starts 1 s into T3 and stops with it, and starts again 0.5 s into T5 and talks on.
    timeline = call(caller(0, 1000, turn=1), agent(1500, 2500), caller(3000, 5000, turn=3),
                    agent(4000, 5000), caller(6000, 7000, turn=5), agent(6500, 8000),
                    caller(9000, 9500, turn=7))
    metrics = interaction_metrics(timeline)
    # Counted turns: T1 and T3 (T5 ends under agent speech, T7 is last with nothing after). T1 is
    # answered after 500 ms; T3's next counted turn is T7, so the agent's start at 6500 (inside T5)
    # answers T3 after 1500 ms, as tau-voice counts it. Two agent starts inside caller turns / 2 turns.
    assert metrics["response_rate"] == InteractionMetric(value=1.0, count=2)
    assert metrics["response_latency"] == InteractionMetric(value=1.0, count=2)
    assert metrics["agent_interruption_rate"] == InteractionMetric(value=1.0, count=2)


def test_a_caller_turn_never_answered() -> None:
    timeline = call(caller(0, 1000, turn=1), caller(6000, 6500, kind="hello", text="hello?", turn=2),
                    caller(12000, 12500, kind="hello", text="hello?", turn=3))
    metrics = interaction_metrics(timeline)
    assert metrics["response_rate"] == InteractionMetric(value=0.0, count=2)  # the last hello is not counted
    assert metrics["response_latency"] == InteractionMetric(value=None, count=0)
    assert metrics["time_to_first_audio"] == InteractionMetric(value=None, count=0)
    assert metrics["longest_silence"] == InteractionMetric(value=5.5, count=2)


def test_one_turn_voiced_in_two_segments_is_one_turn() -> None:
    # A confused caller pauses inside turn 1; the agent waits for the end of the turn.
    paused = call(caller(0, 1000, turn=1), caller(2500, 3000, turn=1), agent(3600, 5000),
                  caller(5500, 6000, turn=2))
    metrics = interaction_metrics(paused)
    assert metrics["response_rate"] == InteractionMetric(value=1.0, count=1)
    assert metrics["response_latency"] == InteractionMetric(value=0.6, count=1)


def test_percentiles_on_five_latencies() -> None:
    segments: list[Segment] = []
    for i, latency in enumerate((100, 400, 1000, 200, 300)):
        start = i * 10_000
        segments += [caller(start, start + 1000, turn=2 * i), agent(start + 1000 + latency, start + 3000)]
    segments.append(caller(60_000, 61_000, turn=99))
    metrics = interaction_metrics(call(*segments))
    assert metrics["response_latency"] == InteractionMetric(value=0.4, count=5)
    assert metrics["response_latency_p50"] == InteractionMetric(value=0.3, count=5)
    # numpy linear: position 0.95 * 4 = 3.8 between 400 and 1000 ms -> 400 + 0.8 * 600 = 880 ms.
    assert metrics["response_latency_p95"].value == pytest.approx(0.88, abs=1e-12)


def test_word_error_rate_on_a_known_pair() -> None:
    timeline = call(caller(0, 1000, text="I was charged twice", heard="I want charge twice"))
    assert interaction_metrics(timeline)["word_error_rate"] == InteractionMetric(value=0.5, count=4)


def test_word_error_rate_spells_numbers_out() -> None:
    said = "I was charged twice for my subscription last month, forty nine dollars, and I want a refund"
    heard = "I want charge twice for my subscription last month, $49 and I want a refund"
    metrics = interaction_metrics(call(caller(0, 5000, text=said, heard=heard)))
    assert metrics["word_error_rate"] == InteractionMetric(value=2 / 17, count=17)


def test_word_error_rate_reads_only_recognised_caller_turns() -> None:
    timeline = call(caller(0, 1000, text="one two", heard=None),  # not recognised: no measure
                    caller(1000, 1200, kind="backchannel", text="mm-hmm", heard="hmm"),
                    caller(2000, 2500, kind="vocal_tic", text="um", heard="uh"),
                    caller(3000, 4000, text="", heard="noise"),  # nothing said
                    caller(5000, 6000, text="fifteen", heard="fifty"))
    assert interaction_metrics(timeline)["word_error_rate"] == InteractionMetric(value=1.0, count=1)


def test_normalised_words() -> None:
    assert normalise_words("Forty-nine, $49; 15th of May; 1,200 don't!") == [
        "forty", "nine", "forty", "nine", "dollars", "fifteenth", "of", "may",
        "one", "thousand", "two", "hundred", "dont"]
    assert normalise_words("49 рублей", "ru") == ["сорок", "девять", "рублей"]
    assert normalise_words("Room 49", "xx") == ["room", "49"]  # num2words lacks the language: digits stay


def test_a_segment_ending_before_it_starts_is_a_clear_error() -> None:
    with pytest.raises(ValueError) as raised:
        interaction_metrics(call(agent(2000, 1000)))
    assert str(raised.value) == "timeline c1: an agent segment ends at 1000 ms, before it starts (2000 ms)"


def test_assertion_values_are_the_measured_names() -> None:
    flat = assertion_values(interaction_metrics(RICH))
    assert set(flat) == set(ALL_CALL_METRICS)
    assert flat["response_latency_p95"] == 0.96 and flat["yield_rate"] == 0.5
    partial = {"yield_rate": InteractionMetric(value=None, count=0),
               "response_rate": InteractionMetric(value=1.0, count=3)}
    assert assertion_values(partial) == {"response_rate": 1.0}


def _m(value: float | None, count: int) -> InteractionMetric:
    return InteractionMetric(value=value, count=count)


def test_summarise_gives_the_mean_a_t_interval_and_counts() -> None:
    calls = [
        {"response_latency": _m(1.0, 2), "yield_rate": _m(0.5, 2), "longest_silence": _m(2.0, 1)},
        {"response_latency": _m(1.2, 3), "yield_rate": _m(None, 0), "longest_silence": _m(2.0, 4)},
        {"response_latency": _m(1.4, 1), "yield_rate": _m(1.0, 1), "longest_silence": _m(2.0, 2)},
        {"response_latency": _m(1.6, 4), "yield_rate": _m(1.0, 3)},
    ]
    summary = summarise(calls)
    assert set(summary) == set(ALL_CALL_METRICS)

    # mean 1.3, s = sqrt(0.2 / 3), half = t(0.975, 3) * s / 2.
    half = T975[3] * math.sqrt(0.2 / 3) / 2
    latency = summary["response_latency"]
    assert latency.mean == pytest.approx(1.3, abs=1e-12)
    assert (latency.calls, latency.events) == (4, 10)
    assert latency.low == pytest.approx(1.3 - half, abs=1e-12)
    assert latency.high == pytest.approx(1.3 + half, abs=1e-12)
    assert latency.low is not None and latency.high is not None
    assert (round(latency.low, 6), round(latency.high, 6)) == (0.889148, 1.710852)

    # Rates: mean of [0.5, 1, 1] over 3 calls; s = sqrt(1/12); the interval is clipped to [0, 1].
    rate = summary["yield_rate"]
    assert rate.mean == pytest.approx(2.5 / 3, abs=1e-12)
    assert (rate.calls, rate.events) == (3, 6)
    assert rate.low == pytest.approx(2.5 / 3 - T975[2] * math.sqrt(1 / 12) / math.sqrt(3), abs=1e-12)
    assert rate.high == 1.0

    # Equal values: a zero-width interval.
    assert summary["longest_silence"] == MetricSummary(mean=2.0, low=2.0, high=2.0, calls=3, events=7)
    # Nothing measured: no mean, no interval, no counts.
    assert summary["word_error_rate"] == MetricSummary()


def test_summarise_one_call_has_a_mean_but_no_interval() -> None:
    summary = summarise([interaction_metrics(RICH)])
    assert summary["response_rate"] == MetricSummary(mean=5 / 6, low=None, high=None, calls=1, events=6)
    assert summarise([]) == {name: MetricSummary() for name in ALL_CALL_METRICS}
