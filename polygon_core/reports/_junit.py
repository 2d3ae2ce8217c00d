"""JUnit XML for any CI system: a test case per comparison verdict, per gate and per conversation.

A CI job goes red for the reasons `polygon compare` exits 1 with (`ci_verdict`), and each reason
is a failing test case, so a red job never shows every test green:

* suite ``comparison``: one case per noise-aware difference (metric and scope, candidate against
  the baseline); ``worse`` beyond noise is a ``<failure>`` naming the metric, the difference, its
  95% interval, the pairs and the noise floor. A case per run says whether its judge judged it
  (a judge that failed, or a candidate with nothing scored, fails that case).
* suite ``gates``: one case per gate of the rubric in each candidate; a gate that fired is a
  ``<failure>`` with how often and in which conversations.
* one suite per configuration (a run of calls: with a property per call metric, `voice.<metric>`,
  its mean over calls, 95% interval, calls and events): a case per conversation, failing on a fail verdict or a fired gate
  with the reason (verdict and composite, gates, broken assertions with their turns) and, where the
  conversation has a counterpart, its divergence turn and first consequential turn. A judge error
  is an ``<error>``. Provider and simulator faults are ``<skipped>`` with their reason: they say
  nothing about the agent and never count against it.

``time`` on a conversation case is the agent's measured reply time over the conversation, in
seconds (the simulated call clock is not time spent); a suite's is the sum of its cases. A
suite's ``timestamp`` is when its run was created (UTC, to the second); the comparison and gate
suites take the newest run's. The output validates against the Jenkins xUnit ``junit-10.xsd``.

`junit_chunks` yields the document in pieces and each case is serialized just before it is
yielded: a first pass counts the cases and sums their time (the suites' open tags come first),
reading a conversation's outcome and time off its row and `facts` without making its case; a
second makes each case and writes it. So a comparison of two 100,000-conversation runs never holds
a tree of 200,000 elements, nor their text, and makes each conversation's case once; the per-case
time, fault detail and gate details come from the comparison's `facts`, not from transcripts.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import NamedTuple

from ..compare import Comparison, ConversationFacts, Difference, PairDivergence, ResultRow, Scorecard
from ..models import REPORT_FORMAT, UNSCORED_END_REASONS, GateHit, Judgment, Run
from ..scoring import get_rubric
from ._markdown import pairing_line
from ._voice import panel_cell, stack_items

_UNSCORED = {str(r.value) for r in UNSCORED_END_REASONS}


def _divergence_note(d: PairDivergence | None, other: str) -> str | None:
    if d is None:
        return None
    if d.turn is None:
        return f"identical to {other}"
    note = f"diverges from {other} at turn {d.turn} ({', '.join(d.reasons)})"
    if d.consequential_turn is not None:
        note += f"; first consequential turn {d.consequential_turn} ({', '.join(d.consequential_reasons)})"
    return note


def failure_reason(row: ResultRow, judgment: Judgment | None) -> str:
    """Why a conversation failed: verdict and composite, gates with detail, broken assertions."""
    return _failure_reason(row, judgment.gates if judgment is not None else [])


def _failure_reason(row: ResultRow, gates: Sequence[GateHit]) -> str:
    parts = [f"verdict {row.verdict or 'none'}"
             + ("" if row.composite is None else f" (composite {row.composite:.1f})")]
    if gates:
        parts += [f"gate {g.gate}" + ("" if g.turn is None else f" at turn {g.turn}") + f": {g.detail}"
                  for g in gates]
    elif row.gates:
        parts += [f"gate {g}" for g in row.gates]
    for name, status in sorted(row.assertions.items()):
        if status in ("fail", "error"):
            turn = row.assertion_turns.get(name)
            parts.append(f"assertion {name} {status}" + ("" if turn is None else f" at turn {turn}"))
    return "; ".join(parts)


def difference_message(d: Difference) -> str:
    """A difference in one line: metric, scope, Δ with its interval, pairs, noise floor, label."""
    ci = "no interval (fewer than two pairs)" if d.ci_low is None or d.ci_high is None else \
        f"95% CI [{d.ci_low:.2f}, {d.ci_high:.2f}]"
    delta = "—" if d.delta is None else f"{d.delta:+.2f}"
    return (f"{d.metric} ({d.scope}): {d.candidate} − {d.baseline} = {delta}, {ci}, over {d.pairs} pairs; "
            f"noise floor {d.noise_floor:.2f}; {d.label} ({d.method})")


def _timestamp(runs: Sequence[Run]) -> str:
    stamps = sorted(r.created_at for r in runs if r.created_at)
    return stamps[-1][:19] if stamps else "1970-01-01T00:00:00"


_INDENT = "  "  # what ET.indent(root) gave the whole tree: two spaces a level


def _serialized(el: ET.Element, level: int) -> str:
    """One element as ET.indent(root) then ET.tostring(root) would write it at `level`, without its tail."""
    ET.indent(el, space=_INDENT, level=level)
    return ET.tostring(el, encoding="unicode")


def _tags(tag: str, attrs: dict[str, str]) -> tuple[str, str]:
    """The open and close tags of an element with children, escaped as ET escapes them."""
    el = ET.Element(tag, attrs)
    el.text = "\x00"  # a character no attribute holds: the split point between the two tags
    opening, closing = ET.tostring(el, encoding="unicode").split("\x00")
    return opening, closing


class _Case(NamedTuple):
    """One <testcase>'s content, serialized only when written (`_case_text`)."""

    classname: str
    name: str
    seconds: float = 0.0
    outcome: str | None = None  # failure | error | skipped
    kind: str = ""
    message: str = ""
    text: str | None = None
    out: str | None = None


_COUNTED = {"failure": "failures", "error": "errors", "skipped": "skipped"}


def _case_text(case: _Case) -> str:
    el = ET.Element("testcase", classname=case.classname, name=case.name, time=f"{case.seconds:.3f}")
    if case.outcome is not None:
        ET.SubElement(el, case.outcome, type=case.kind, message=case.message).text = case.text
    if case.out:
        ET.SubElement(el, "system-out").text = case.out
    return _serialized(el, 2)


#: What the open tag of a suite needs of each case, in case order: its outcome and its seconds.
_Tally = Callable[[], Iterable[tuple[str | None, float]]]


class _Suite:
    """A <testsuite>: its cases counted and their time summed first (the open tag carries both),
    then made one at a time to be written. `tally` gives each case's outcome and seconds without
    making it (a suite of conversations reads them off its rows); without one the cases are made
    twice."""

    def __init__(self, name: str, timestamp: str, props: dict[str, str],
                 cases: Callable[[], Iterable[_Case]], tally: _Tally | None = None) -> None:
        self.attrs = {"name": name, "timestamp": timestamp}
        self.props = props
        self.cases = cases
        self.counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
        self.time = 0.0
        counted = tally() if tally is not None else ((c.outcome, c.seconds) for c in cases())
        for outcome, seconds in counted:
            self.counts["tests"] += 1
            self.time += seconds  # in case order, as the cases are written
            if outcome is not None:
                self.counts[_COUNTED[outcome]] += 1

    def chunks(self) -> Iterator[str]:
        """The suite's text, its counts and time in the open tag (ET.indent's layout at level 1)."""
        opening, closing = _tags("testsuite", {**self.attrs, **{k: str(v) for k, v in self.counts.items()},
                                               "time": f"{self.time:.3f}"})
        yield opening
        holder = ET.Element("properties")
        for key, value in self.props.items():
            ET.SubElement(holder, "property", name=key, value=value)
        yield "\n" + _INDENT * 2
        yield _serialized(holder, 2)
        for case in self.cases():
            yield "\n" + _INDENT * 2
            yield _case_text(case)
        yield "\n" + _INDENT + closing


def _judged_case(card: Scorecard, baseline: str) -> _Case:
    reason = None
    if card.judge_errors:
        reason = (f"judge {card.judge_model} failed on {card.judge_errors} of {card.conversations} "
                  f"conversations: {card.judge_error_reason}")
    elif card.label != baseline and card.scored == 0:
        reason = f"no scored conversation ({card.conversations} conversations)"
    return _Case(f"comparison.{card.label}", f"{card.label} is judged ({card.judge_model}, rubric {card.rubric_version})",
                 outcome="failure" if reason else None, kind="judge", message=reason or "", text=reason)


def _comparison_cases(comp: Comparison) -> Iterator[_Case]:
    for card in comp.cards:
        yield _judged_case(card, comp.baseline)
    for d in comp.differences:
        message = difference_message(d)
        # The overall composite without a pair is the verdict's "nothing to compare" (ci_verdict).
        empty = d.label == "no pairs" and d.metric == "composite" and d.scope == "overall"
        yield _Case(f"comparison.{d.candidate}", f"{d.metric} ({d.scope}) vs {d.baseline}",
                    outcome="failure" if d.label == "worse" or empty else None,
                    kind="nothing to compare" if empty else "worse beyond noise",
                    message=message, text=message, out=message)


def _gate_names(card: Scorecard) -> list[str]:
    try:
        known = list(get_rubric(card.rubric_version).gates)
    except ValueError:  # a rubric this build does not bundle: the gates that fired are still listed
        known = []
    return [*known, *sorted(set(card.gates) - set(known))]


def _gates_cases(comp: Comparison) -> Iterator[_Case]:
    for card in comp.cards:
        if card.label == comp.baseline and len(comp.cards) > 1:
            continue  # a gate blocks a change only in a candidate
        rows = comp.rows.get(card.label, [])
        for gate in _gate_names(card):
            hit = sorted(r.conversation_id for r in rows if gate in r.gates)
            message = (f"gate {gate} fired in {len(hit)} of {len(rows)} conversations of {card.label}: "
                       + ", ".join(hit)) if hit else ""
            yield _Case(f"gates.{card.label}", f"gate {gate}", outcome="failure" if hit else None,
                        kind="gate", message=message, text=message or None)


def _notes(comp: Comparison, label: str) -> dict[tuple[str, int], str]:
    notes: dict[tuple[str, int], str] = {}
    for dset in comp.divergence_sets:
        if label not in (dset.a, dset.b):
            continue
        other = dset.b if label == dset.a else dset.a
        for d in dset.items:
            note = _divergence_note(d, other)
            if note:
                notes.setdefault((d.scenario_id, d.seed), note)
    return notes


def _outcome(row: ResultRow) -> str | None:
    """A conversation case's outcome: a fault is skipped (it says nothing about the agent), a judge
    error an error, a fail verdict or a fired gate a failure; else none (it passed)."""
    if row.end_reason in _UNSCORED:
        return "skipped"
    if row.status == "judge_error":
        return "error"
    if row.verdict == "fail" or row.gates:
        return "failure"
    return None


def _conversation_case(label: str, row: ResultRow, facts: ConversationFacts, note: str | None) -> _Case:
    cid = row.conversation_id
    out = "\n".join([f"conversation {cid}", f"end {row.end_reason}", *([note] if note else [])])
    name, classname = f"{row.scenario_id} seed={row.seed}", f"{label}.{row.scenario_id}"
    seconds = facts.seconds.get(cid, 0.0)
    outcome = _outcome(row)
    if outcome == "skipped":
        detail = facts.end_details.get(cid)
        why = f"{row.end_reason}: not scored" + (f" ({detail})" if detail else "")
        return _Case(classname, name, seconds, outcome="skipped", kind=row.end_reason, message=why, out=out)
    if outcome == "error":
        why = f"judge_error: {row.reason or 'no reason recorded'}"
        return _Case(classname, name, seconds, outcome="error", kind="judge_error", message=why,
                     text=f"conversation {row.conversation_id}\n{why}", out=out)
    if outcome == "failure":
        message = _failure_reason(row, facts.gates.get(cid, [])) + (f"; {note}" if note else "")
        return _Case(classname, name, seconds, outcome="failure", kind="gate" if row.gates else "verdict",
                     message=message, text=f"conversation {row.conversation_id}\n{message}", out=out)
    return _Case(classname, name, seconds, out=out)


_FORMAT = {"polygon.report_format": str(REPORT_FORMAT)}


def _configuration_suite(comp: Comparison, card: Scorecard) -> _Suite:
    label = card.label
    run = next((r for r in comp.runs if r.id == card.run_id), None)
    facts = comp.facts[label]  # `compare_configurations` gives every configuration its facts
    rows = sorted(comp.rows.get(label, []), key=lambda r: (r.scenario_id, r.seed))

    def cases() -> Iterator[_Case]:
        # The notes are made when the suite is written: one suite's at a time, not every suite's at once.
        notes = _notes(comp, label)
        for row in rows:
            yield _conversation_case(label, row, facts, notes.get((row.scenario_id, row.seed)))

    def tally() -> Iterator[tuple[str | None, float]]:
        # The open tag's counts and time off the rows, in the order the cases are written.
        return ((_outcome(row), facts.seconds.get(row.conversation_id, 0.0)) for row in rows)

    # A run of calls: one property per call metric (`voice.response_latency`), its panel cell, and one
    # per key of what the calls were made with (`voice_stack.agent_ears`).
    panel = {f"voice.{name}": panel_cell(summary, 4) for name, summary in card.voice.items()}
    panel |= {f"voice_stack.{key}": value for key, value in stack_items(card)}
    return _Suite(label, _timestamp([run] if run else []),
                  {**_FORMAT, "run_id": card.run_id, "agent_version": card.agent_version,
                   "rubric_version": card.rubric_version, "judge": card.judge_model, **panel}, cases, tally)


def junit_chunks(comp: Comparison) -> Iterator[str]:
    """The comparison as JUnit XML in pieces, to write one after another (see `junit_xml`)."""
    # Every suite names the report format first, as the JSON and HTML reports do (REPORT_FORMAT).
    stamp, props = _timestamp(comp.runs), {**_FORMAT, "baseline": comp.baseline}
    # How many conversations of each run have no pair: what no difference in the suite could use.
    paired = {**props, **{f"pairs.{p.candidate}": pairing_line(p) for p in comp.pairing}}
    suites = [_Suite("comparison", stamp, paired, lambda: _comparison_cases(comp)),
              _Suite("gates", stamp, props, lambda: _gates_cases(comp)),
              *(_configuration_suite(comp, card) for card in comp.cards)]
    totals = {key: str(sum(s.counts[key] for s in suites)) for key in ("tests", "failures", "errors")}
    opening, closing = _tags("testsuites", {"name": "polygon compare", **totals,
                                            "time": f"{sum(s.time for s in suites):.3f}"})
    yield '<?xml version="1.0" encoding="UTF-8"?>\n' + opening
    for suite in suites:
        yield "\n" + _INDENT
        yield from suite.chunks()
    yield "\n" + closing + "\n"


def junit_xml(comp: Comparison) -> str:
    """The comparison as JUnit XML (see the module doc for the suites and what fails)."""
    return "".join(junit_chunks(comp))
