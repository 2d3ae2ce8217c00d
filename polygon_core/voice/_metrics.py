"""A call's interaction metrics, read from its timeline; and a run's summary of them.

The panel follows tau2-bench's voice mode ("tau-voice", `tau2/metrics/voice_interaction_metrics.py`
and `docs/interaction-metrics.md`): its events, its windows and its tie rules, written anew for
Polygon's timeline. Facts about tau-voice's definitions, which these functions follow:

* tau-voice works on 200 ms ticks and groups contiguous speech ticks of one side into segments.
  The user's speech (turns and backchannels) sets `contains_speech`; vocal tics and speech not
  directed at the agent are inserts mixed into the audio, "out of turn" when the user is not speaking.
* Response (L_R, R_R): every user segment that is not a backchannel and after which the agent is
  silent counts. If the agent's next segment starts no later than the user's next counted segment,
  the turn was answered after `agent start - user end`; if the user speaks again first, it was not;
  a last turn followed by nothing is not counted. There is no time window.
* Yield (L_Y, R_Y): a user segment (not a backchannel, tic or non-directed speech) starting while
  the agent speaks is an interruption; the agent yielded if it is silent on one of the 10 ticks
  (2.0 s) from the user's start, after `stop - user start`.
* I_A: agent segments starting while the user speaks, divided by the number of user turns counted
  for R_R (so it can exceed 1).
* Selectivity (S_BC, S_VT, S_ND, as correct rates): a backchannel, tic or non-directed speech starting
  while the agent speaks is an error if the agent stops within 1.0 s (5 ticks); a tic or non-directed
  speech while the agent is silent is an error if an agent segment starts at or after its start and
  at most 2.0 s after its end (10 ticks, inclusive).

Where Polygon differs, and why:

* Times are the timeline's milliseconds, not whole ticks (Polygon's clock also steps 200 ms, but an
  agent's audio need not end on a tick); "within 2.0 s" to yield means "less than 2000 ms after",
  as tau-voice's tick scan ("silent on one of the 10 ticks from the start") means.
* A caller turn is the caller's speech segments that voice one transcript turn (`Segment.turn`), so
  a pause inside one turn does not split it; tau-voice, which has only ticks, splits a turn at every
  pause and counts its first half unanswered. "hello?" is a turn like any other.
* Vocal tics and non-directed speech are segments of their own kind. One that starts inside the
  caller's own turn is not scored (the agent answers the turn; tau-voice scores such a response as
  an error). One in a silence is scored only when the floor is the caller's: if the caller's last
  turn still awaits its answer, the agent's next words answer that turn, not the tic (tau-voice counts
  them as an error), and the 2.0 s window closes when the caller starts a new turn.
* tau-voice keeps an out-of-turn tic during agent speech only when the agent erred (within <= 1.0 s);
  Polygon scores both outcomes, with the in-turn rule (< 1.0 s), so the share is not biased to errors.
* Agent speech that runs until the call ends did not stop: no yield (as tau-voice, whose scan finds
  no silent tick). tau-voice also drops a spurious last 1-tick user segment its `###STOP###` makes;
  Polygon's hang-up is an event, not speech, so there is nothing to drop.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from pydantic import Field

from ..models import DomainModel, InteractionMetric
from ._metrics_names import ALL_CALL_METRICS
from ._timeline import Segment, Timeline

YIELD_WINDOW_MS = 2000  # a barge-in: the agent yields if it stops less than this after the caller starts
SELECTIVITY_YIELD_WINDOW_MS = 1000  # a backchannel, tic or aside: stopping within this is an error
SELECTIVITY_RESPONSE_WINDOW_MS = 2000  # a tic or aside in silence: starting to speak within this is an error
CONFIDENCE = 0.95

_TURN_KINDS = frozenset({"speech", "hello"})  # what the caller says to the agent
_VOICE_KINDS = _TURN_KINDS | {"backchannel"}  # the caller "speaks" (tau-voice's contains_speech)
_RATIOS_UP_TO_ONE = frozenset({"response_rate", "yield_rate", "selectivity_backchannel",
                               "selectivity_vocal_tic", "selectivity_non_directed"})

_Span = tuple[int, int]  # [start_ms, end_ms)


class MetricSummary(DomainModel):
    """One metric over a run's calls: the mean of the calls that measured it, and its interval."""

    mean: float | None = None
    low: float | None = Field(None, description="95% t-interval over calls, clipped to the metric's range")
    high: float | None = None
    calls: int = Field(0, description="calls with a value")
    events: int = Field(0, description="the events behind those values, summed (turns, barge-ins, words ...)")
    method: str = "t-interval over calls, 95%"


# --- spans -------------------------------------------------------------------------------------


def _merge(spans: Iterable[_Span]) -> list[_Span]:
    """Overlapping or touching spans as one: one side's speech, as contiguous ticks are in tau-voice."""
    merged: list[list[int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(s, e) for s, e in merged]


def _covering(spans: Sequence[_Span], t: int) -> _Span | None:
    """The span under moment `t` (start <= t < end), if any."""
    return next((s for s in spans if s[0] <= t < s[1]), None)


def _caller_turns(caller: Sequence[Segment]) -> list[_Span]:
    """The caller's turns: speech and "hello?" segments grouped by transcript turn, then merged."""
    groups: list[tuple[int | None, list[int]]] = []
    for seg in caller:
        if seg.kind not in _TURN_KINDS:
            continue
        if groups and seg.turn is not None and groups[-1][0] == seg.turn:
            groups[-1][1][1] = max(groups[-1][1][1], seg.end_ms)
        else:
            groups.append((seg.turn, [seg.start_ms, seg.end_ms]))
    return _merge((g[0], g[1]) for _, g in groups)


def _check(timeline: Timeline) -> None:
    for seg in timeline.segments:
        if seg.end_ms < seg.start_ms:
            raise ValueError(f"timeline {timeline.conversation_id}: {'an' if seg.side == 'agent' else 'a'} "
                             f"{seg.side} segment ends at "
                             f"{seg.end_ms} ms, before it starts ({seg.start_ms} ms)")


# --- metric helpers ----------------------------------------------------------------------------


def _none() -> InteractionMetric:
    return InteractionMetric(value=None, count=0)


def _rate(hits: int, total: int) -> InteractionMetric:
    return InteractionMetric(value=hits / total, count=total) if total else _none()


def _seconds(values_ms: Sequence[int]) -> dict[str, InteractionMetric]:
    """Mean, p50 and p95 (numpy's linear percentiles) of millisecond values, in seconds."""
    if not values_ms:
        return {"": _none(), "_p50": _none(), "_p95": _none()}
    n = len(values_ms)
    p50, p95 = np.percentile(np.asarray(values_ms, dtype=float), [50, 95])
    return {"": InteractionMetric(value=sum(values_ms) / n / 1000, count=n),
            "_p50": InteractionMetric(value=float(p50) / 1000, count=n),
            "_p95": InteractionMetric(value=float(p95) / 1000, count=n)}


# --- the events ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Call:
    """The timeline as spans: what the metrics read."""

    agent: list[_Span]  # the agent's speech, merged
    turns: list[_Span]  # the caller's turns
    voice: list[_Span]  # the caller's voice: turns and backchannels, merged
    others: list[Segment]  # backchannels, vocal tics, non-directed speech
    end_ms: int  # the call's end (0: unknown)

    def stop_after(self, agent_span: _Span, t: int) -> int | None:
        """How long after `t` the agent stopped; None when its speech ran until the call ended."""
        if self.end_ms and agent_span[1] >= self.end_ms:
            return None
        return agent_span[1] - t


def _responses(call: _Call) -> tuple[list[int], int]:
    """(latencies of answered turns in ms, turns counted): tau-voice's response events."""
    counted = [t for t in call.turns if _covering(call.agent, t[1]) is None]
    latencies: list[int] = []
    total = 0
    for i, (_, end) in enumerate(counted):
        agent_start = next((a[0] for a in call.agent if a[0] >= end), None)
        caller_again = next((t[0] for t in counted[i + 1:] if t[0] >= end), None)
        if agent_start is not None and (caller_again is None or agent_start <= caller_again):
            latencies.append(agent_start - end)
            total += 1
        elif caller_again is not None:
            total += 1  # the caller had to speak again: not answered
        # else: the call's last turn, followed by nothing: not counted (as tau-voice)
    return latencies, total


def _yields(call: _Call) -> tuple[list[int], int]:
    """(yield latencies in ms, barge-ins): caller turns starting while the agent speaks."""
    latencies: list[int] = []
    barge_ins = 0
    for start, _ in call.turns:
        span = _covering(call.agent, start)
        if span is None:
            continue
        barge_ins += 1
        stop = call.stop_after(span, start)
        if stop is not None and stop < YIELD_WINDOW_MS:
            latencies.append(stop)
    return latencies, barge_ins


def _agent_interruptions(call: _Call) -> int:
    """Agent speech starting while the caller's voice is on the line."""
    return sum(1 for start, _ in call.agent if _covering(call.voice, start) is not None)


def _caller_floor(call: _Call, t: int) -> bool:
    """Is the floor the caller's at `t`: no caller turn before it still awaits the agent's answer?"""
    last_end = max((end for _, end in call.turns if end <= t), default=None)
    return last_end is None or any(a[0] <= t and a[1] > last_end for a in call.agent)


def _handled(call: _Call, seg: Segment) -> bool | None:
    """Did the agent handle this backchannel, tic or aside correctly? None: not scored."""
    span = _covering(call.agent, seg.start_ms)
    if span is not None:  # during agent speech: stopping within 1.0 s is an error
        stop = call.stop_after(span, seg.start_ms)
        return stop is None or stop >= SELECTIVITY_YIELD_WINDOW_MS
    if seg.kind == "backchannel" or _covering(call.turns, seg.start_ms) is not None:
        return None  # a backchannel in silence, or a tic inside the caller's own turn
    if not _caller_floor(call, seg.start_ms):
        return None  # the agent's next words answer the caller's pending turn
    deadline = seg.end_ms + SELECTIVITY_RESPONSE_WINDOW_MS
    next_turn = next((t[0] for t in call.turns if t[0] >= seg.start_ms), None)
    if next_turn is not None:
        deadline = min(deadline, next_turn)  # the caller took the floor: the window closes
    return not any(seg.start_ms <= a[0] <= deadline for a in call.agent)


def _selectivity(call: _Call, kind: str) -> InteractionMetric:
    scored = [h for h in (_handled(call, s) for s in call.others if s.kind == kind) if h is not None]
    return _rate(sum(scored), len(scored))


def _longest_silence(timeline: Timeline) -> InteractionMetric:
    """The longest stretch of the call (from 0 to its end) with no segment of either side."""
    spans = _merge((s.start_ms, s.end_ms) for s in timeline.segments)
    end = max([timeline.duration_ms] + [e for _, e in spans])
    if end <= 0:
        return _none()
    gaps: list[int] = []
    cursor = 0
    for start, stop in spans:
        if start > cursor:
            gaps.append(start - cursor)
        cursor = max(cursor, stop)
    if end > cursor:
        gaps.append(end - cursor)
    return InteractionMetric(value=max(gaps, default=0) / 1000, count=len(gaps))


# --- word error rate -----------------------------------------------------------------------------

_CURRENCY_EN = {"$": "dollars", "€": "euros", "£": "pounds"}
_NUMBER = re.compile(r"\d+(?:\.\d+)?(st|nd|rd|th)?")


def _spell_numbers(text: str, language: str) -> str:
    """Digits as words ("49" -> "forty-nine", "15th" -> "fifteenth") with num2words, in `language`."""
    from num2words import num2words  # only when a word error rate is measured

    def spell(match: re.Match[str]) -> str:
        number, ordinal = match.group(0), match.group(1)
        try:
            if ordinal:
                return f" {num2words(int(number[:-2]), to='ordinal', lang=language)} "
            return f" {num2words(number, lang=language)} "
        except (NotImplementedError, OverflowError, ValueError):
            return f" {number} "  # a language num2words lacks: leave the digits

    return _NUMBER.sub(spell, text)


def normalise_words(text: str, language: str = "en") -> list[str]:
    """The words of `text` as the word error rate compares them.

    Lowercase; thousands separators dropped ("1,200" -> "1200"); in English "$49" -> "49 dollars" and
    "%" -> "percent"; digits spelled out with num2words ("49" -> "forty nine", ordinals too), so a
    recogniser that writes "$49" for "forty nine dollars" is not charged for it; apostrophes dropped
    ("don't" -> "dont"); every other punctuation mark is a word break ("forty-nine" -> "forty nine").
    """
    lang = re.split(r"[-_]", language or "en")[0].lower()
    text = re.sub(r"(?<=\d),(?=\d{3}\b)", "", text.lower())
    if lang == "en":
        text = re.sub(r"([$€£])\s*(\d+(?:\.\d+)?)", lambda m: f"{m.group(2)} {_CURRENCY_EN[m.group(1)]}", text)
        text = text.replace("%", " percent")
    text = _spell_numbers(text, lang)
    text = re.sub(r"['’]", "", text)
    return re.sub(r"[^\w\s]|_", " ", text).split()


def _word_error_rate(caller: Sequence[Segment], language: str) -> InteractionMetric:
    """Word edits (rapidfuzz's Levenshtein on word lists) over reference words, over caller turns."""
    from rapidfuzz.distance import Levenshtein

    edits = words = 0
    for seg in caller:
        if seg.kind not in _TURN_KINDS or seg.heard is None:
            continue  # only what was said to the agent and went through its recogniser
        said = normalise_words(seg.text, language)
        if not said:
            continue
        edits += Levenshtein.distance(said, normalise_words(seg.heard, language))
        words += len(said)
    return InteractionMetric(value=edits / words, count=words) if words else _none()


# --- the panel -----------------------------------------------------------------------------------


def interaction_metrics(timeline: Timeline, *, language: str = "en") -> dict[str, InteractionMetric]:
    """A call's metrics, keyed by every name in `ALL_CALL_METRICS`; value None (count 0) when no
    event could measure one. Latencies in seconds; windows are the module's `*_WINDOW_MS`.

    - response_latency (L_R): mean, over caller turns the agent answered, of the time from the end
      of the turn to the start of the agent's next speech (count: answered turns); `_p50`/`_p95`
      are numpy's linear percentiles of the same values.
    - response_rate (R_R): answered turns / counted turns. A turn counts when the agent is silent as
      it ends; it is answered if the agent starts speaking no later than the caller's next counted
      turn starts, unanswered if the caller speaks again first; the call's last turn, followed by
      nothing, is not counted. No time window (as tau-voice).
    - yield_latency (L_Y): mean, over barge-ins the agent yielded to, of the time from the caller's
      start to the end of the agent's speech; `_p50`/`_p95` likewise.
    - yield_rate (R_Y): barge-ins (a caller turn starting while the agent speaks) after which the
      agent stopped less than 2.0 s later / barge-ins.
    - agent_interruption_rate (I_A): agent speech starting while the caller's voice (a turn or a
      backchannel) is on the line / counted turns (count: counted turns); can exceed 1.
    - selectivity_backchannel (S_BC): backchannels during agent speech that the agent did not stop
      within 1.0 s for / backchannels during agent speech.
    - selectivity_vocal_tic (S_VT) and selectivity_non_directed (S_ND): tics (asides) handled
      correctly / tics (asides) scored. During agent speech: the agent does not stop within 1.0 s.
      In silence, when the floor is the caller's: the agent does not start speaking from the tic's
      start to 2.0 s after its end (or until the caller's next turn starts, if sooner).
    - time_to_first_audio: call start (0) to the start of the agent's first segment.
    - longest_silence: the longest stretch from 0 to the call's end with no segment of either side
      (count: silent stretches).
    - word_error_rate: word edits between what the caller said and what the agent heard, over the
      caller's turns that were recognised (`heard` set), / the words said (count: words said).
      Both sides go through `normalise_words` (digits spelled out in `language` with num2words, so
      "49" and "forty nine" match).
    """
    _check(timeline)
    caller = timeline.side("caller")
    agent_segments = timeline.side("agent")
    call = _Call(agent=_merge((s.start_ms, s.end_ms) for s in agent_segments),
                 turns=_caller_turns(caller),
                 voice=_merge((s.start_ms, s.end_ms) for s in caller if s.kind in _VOICE_KINDS),
                 others=[s for s in caller if s.kind not in _TURN_KINDS],
                 end_ms=timeline.duration_ms)
    answered, turns = _responses(call)
    yielded, barge_ins = _yields(call)
    response = _seconds(answered)
    yield_ = _seconds(yielded)
    interruptions = _agent_interruptions(call)
    metrics: dict[str, InteractionMetric] = {
        "response_latency": response[""],
        "yield_latency": yield_[""],
        "response_rate": _rate(len(answered), turns),
        "yield_rate": _rate(len(yielded), barge_ins),
        "agent_interruption_rate": _rate(interruptions, turns),
        "selectivity_backchannel": _selectivity(call, "backchannel"),
        "selectivity_vocal_tic": _selectivity(call, "vocal_tic"),
        "selectivity_non_directed": _selectivity(call, "non_directed"),
        "time_to_first_audio": (InteractionMetric(value=agent_segments[0].start_ms / 1000, count=1)
                                if agent_segments else _none()),
        "longest_silence": _longest_silence(timeline),
        "word_error_rate": _word_error_rate(caller, language),
        "response_latency_p50": response["_p50"],
        "response_latency_p95": response["_p95"],
        "yield_latency_p50": yield_["_p50"],
        "yield_latency_p95": yield_["_p95"],
    }
    return {name: metrics[name] for name in ALL_CALL_METRICS}


# --- a run ---------------------------------------------------------------------------------------


def _bounds(name: str) -> tuple[float, float]:
    """The values a metric can take: every one is >= 0; shares of events are <= 1."""
    return 0.0, 1.0 if name in _RATIOS_UP_TO_ONE else math.inf


def _t_interval(values: Sequence[float], name: str) -> tuple[float | None, float | None]:
    """mean ± t(0.975, n-1)·s/√n, clipped to the metric's range; None for fewer than two calls."""
    if len(values) < 2:
        return None, None
    from scipy import stats  # only when a run is summarised

    data = np.asarray(values, dtype=float)
    half = float(stats.t.ppf(1 - (1 - CONFIDENCE) / 2, len(data) - 1)) * float(
        np.std(data, ddof=1)) / math.sqrt(len(data))
    mean = float(np.mean(data))
    lowest, highest = _bounds(name)
    return max(lowest, mean - half), min(highest, mean + half)


def summarise(metrics_per_call: Sequence[Mapping[str, InteractionMetric]]) -> dict[str, MetricSummary]:
    """A run's metrics: per name in `ALL_CALL_METRICS`, the mean over the calls that have a value,
    a 95% t-interval over those calls (Student's t with n - 1 degrees of freedom, clipped to the
    metric's range: >= 0, and <= 1 for rates and selectivities), the number of those calls and the
    sum of their event counts.

    A call is the unit (its events are not independent), so a run's rate is the mean of its calls'
    rates; tau-voice pools the events of all a domain's simulations instead. A run's `*_p95` is the
    mean of its calls' p95s.
    """
    summary: dict[str, MetricSummary] = {}
    for name in ALL_CALL_METRICS:
        measured = [m[name] for m in metrics_per_call if name in m and m[name].value is not None]
        values = [float(m.value) for m in measured if m.value is not None]
        if not values:
            summary[name] = MetricSummary()
            continue
        low, high = _t_interval(values, name)
        summary[name] = MetricSummary(mean=float(np.mean(values)), low=low, high=high, calls=len(values),
                                      events=sum(m.count for m in measured))
    return summary


def assertion_values(metrics: Mapping[str, InteractionMetric]) -> dict[str, float]:
    """The names an assertion can use (`response_latency_p95 < 1.5`, `yield_rate >= 0.9`): every
    metric of the call that has a value."""
    return {name: float(m.value) for name, m in metrics.items() if m.value is not None}

