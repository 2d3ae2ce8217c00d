"""JUnit XML for any CI system: one test case per conversation.

A case fails on a fail verdict or a fired gate; the failure message gives the reason (verdict and
composite, gates, broken assertions with their turns) and, where the conversation has a counterpart
in the comparison, its divergence turn and first consequential turn. Provider and simulator errors
are `<error>` cases: they say nothing about the agent, so they are not failures.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from ..compare import Comparison, PairDivergence, ResultRow
from ..models import UNSCORED_END_REASONS, Judgment

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
    parts = [f"verdict {row.verdict or 'none'}"
             + ("" if row.composite is None else f" (composite {row.composite:.1f})")]
    if judgment is not None and judgment.gates:
        parts += [f"gate {g.gate}" + ("" if g.turn is None else f" at turn {g.turn}") + f": {g.detail}"
                  for g in judgment.gates]
    elif row.gates:
        parts += [f"gate {g}" for g in row.gates]
    for name, status in sorted(row.assertions.items()):
        if status in ("fail", "error"):
            turn = row.assertion_turns.get(name)
            parts.append(f"assertion {name} {status}" + ("" if turn is None else f" at turn {turn}"))
    return "; ".join(parts)


def junit_xml(comp: Comparison) -> str:
    """The comparison as JUnit XML: a test suite per configuration, a case per conversation."""
    root = ET.Element("testsuites", name="polygon compare")
    totals = {"tests": 0, "failures": 0, "errors": 0}
    for card in comp.cards:
        label = card.label
        rows = comp.rows.get(label, [])
        judgments = {j.conversation_id: j for j in comp.judgments.get(label, [])}
        notes: dict[tuple[str, int], str] = {}
        for dset in comp.divergence_sets:
            if label not in (dset.a, dset.b):
                continue
            other = dset.b if label == dset.a else dset.a
            for d in dset.items:
                note = _divergence_note(d, other)
                if note:
                    notes.setdefault((d.scenario_id, d.seed), note)
        suite = ET.SubElement(root, "testsuite", name=label)
        props = ET.SubElement(suite, "properties")
        for key, value in (("run_id", card.run_id), ("agent_version", card.agent_version),
                           ("rubric_version", card.rubric_version), ("judge", card.judge_model)):
            ET.SubElement(props, "property", name=key, value=value)
        failures = errors = 0
        for row in sorted(rows, key=lambda r: (r.scenario_id, r.seed)):
            case = ET.SubElement(suite, "testcase", classname=f"{label}.{row.scenario_id}",
                                 name=f"{row.scenario_id} seed={row.seed}")
            note = notes.get((row.scenario_id, row.seed))
            if row.end_reason in _UNSCORED:
                errors += 1
                ET.SubElement(case, "error", type=row.end_reason,
                              message=f"{row.end_reason}: not scored").text = row.conversation_id
            elif row.verdict == "fail" or row.gates:
                failures += 1
                reason = failure_reason(row, judgments.get(row.conversation_id))
                message = reason + (f"; {note}" if note else "")
                kind = "gate" if row.gates else "verdict"
                ET.SubElement(case, "failure", type=kind, message=message).text = (
                    f"conversation {row.conversation_id}\n{message}")
            out = [f"conversation {row.conversation_id}", f"end {row.end_reason}"]
            if note:
                out.append(note)
            ET.SubElement(case, "system-out").text = "\n".join(out)
        suite.set("tests", str(len(rows)))
        suite.set("failures", str(failures))
        suite.set("errors", str(errors))
        totals["tests"] += len(rows)
        totals["failures"] += failures
        totals["errors"] += errors
    for key, value in totals.items():
        root.set(key, str(value))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
