"""A written analysis of systematic differences: a deterministic summary first, prose from it only.

`systematic_summary` groups the paired differences of each candidate against the baseline by caller
type, difficulty, criterion, probe, gate and assertion, and rounds every number once (composites to
one decimal, criterion means and rates to two). `template_prose` writes sentences from that summary
alone, so every number in the prose is a number of the summary; `prose_numbers` and
`unsupported_numbers` check that claim for any prose, including a model's (`model_prose` falls back
to the template when a model's text cites a number the summary does not hold).
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..providers import ChatMessage, ChatModel, ChatRequest
from ._noise import Difference, criterion, paired_difference
from ._scorecard import ProbeRate, ResultRow

CONFIDENCE = 95
# A number standing alone: not part of an identifier such as "v2", "2e8e97" or "run-20260101".
_NUMBER = re.compile(r"(?<![\w.\-@])-?\d+(?:\.\d+)?(?![\w.]*\w)")


def _r(value: float | None, digits: int) -> float | None:
    return None if value is None else round(float(value), digits)


def _diff_entry(d: Difference, key: str, value: Any, digits: int) -> dict[str, Any]:
    return {key: value, "pairs": d.pairs, "baseline_mean": _r(d.baseline_mean, digits),
            "candidate_mean": _r(d.candidate_mean, digits), "delta": _r(d.delta, digits), "label": d.label}


def _grouped(base: Sequence[ResultRow], cand: Sequence[ResultRow], field: str, baseline: str,
             candidate: str, floor: float, seed: int) -> list[dict[str, Any]]:
    keys = sorted({getattr(r, field) for r in [*base, *cand]}, key=str)
    out = []
    for key in keys:
        d = paired_difference([r for r in base if getattr(r, field) == key],
                              [r for r in cand if getattr(r, field) == key], baseline=baseline,
                              candidate=candidate, scope=f"{field}={key}", noise_floor=floor, seed=seed)
        if d.pairs:
            out.append(_diff_entry(d, field, key, 1))
    return _by_size(out)


def _by_size(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    key = next(iter(entries[0])) if entries else ""
    return sorted(entries, key=lambda e: (-abs(e.get("delta") or 0.0), str(e.get(key))))


def _assertions(rows: Sequence[ResultRow]) -> dict[str, tuple[int, int]]:
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in rows:
        for name, status in r.assertions.items():
            if status in ("pass", "fail"):
                counts[name][1] += 1
                counts[name][0] += status == "pass"
    return {k: (v[0], v[1]) for k, v in counts.items()}


def _probe_entries(base: Sequence[ProbeRate], cand: Sequence[ProbeRate]) -> list[dict[str, Any]]:
    ids = sorted({p.probe_id for p in [*base, *cand]})
    out = []
    for pid in ids:
        pa = [p for p in base if p.probe_id == pid]
        pb = [p for p in cand if p.probe_id == pid]
        hashes = {p.wording_hash for p in [*pa, *pb]}
        if not pa or not pb:
            continue
        if len(hashes) > 1:
            out.append({"probe": pid, "comparable": False, "reason": "wording changed"})
            continue
        ra, rb = pa[0].rate, pb[0].rate
        out.append({"probe": pid, "comparable": True, "polarity": pa[0].polarity,
                    "baseline_rate": _r(ra, 2), "candidate_rate": _r(rb, 2),
                    "baseline_n": pa[0].n, "candidate_n": pb[0].n,
                    "delta": None if ra is None or rb is None else round(rb - ra, 2)})
    return sorted(out, key=lambda e: (not e["comparable"], -abs(e.get("delta") or 0.0), e["probe"]))


def systematic_summary(baseline: str, rows: Mapping[str, Sequence[ResultRow]],
                       probes: Mapping[str, Sequence[ProbeRate]] | None = None,
                       noise_floors: Mapping[str, float] | None = None, seed: int = 0) -> dict[str, Any]:
    """The deterministic summary (plain JSON) of every candidate against `baseline`.

    Args:
        baseline: the label of the baseline configuration (a key of `rows`).
        rows: label → that configuration's result rows.
        probes: label → its probe rates (per probe and wording hash).
        noise_floors: label → noise floor; a difference must beat the larger of the two sides'.
        seed: seeds every bootstrap.
    """
    probes = probes or {}
    floors = noise_floors or {}
    comparisons = []
    base = rows[baseline]
    for label, cand in rows.items():
        if label == baseline:
            continue
        floor = max(floors.get(baseline, 0.0), floors.get(label, 0.0))
        overall = paired_difference(base, cand, baseline=baseline, candidate=label, noise_floor=floor, seed=seed)
        names = sorted({k for r in [*base, *cand] for k in r.criteria})
        crit = [_diff_entry(paired_difference(base, cand, baseline=baseline, candidate=label,
                                              metric=criterion(n), metric_name=f"criterion:{n}",
                                              noise_floor=0.0, seed=seed), "criterion", n, 2)
                for n in names]
        gates = sorted({g for r in [*base, *cand] for g in r.gates})
        gate_entries: list[dict[str, Any]] = [{"gate": g, "baseline": sum(g in r.gates for r in base),
                         "candidate": sum(g in r.gates for r in cand)} for g in gates]
        aa, ab = _assertions(base), _assertions(cand)
        assertion_entries: list[dict[str, Any]] = [
            {"assertion": n, "baseline_passed": aa.get(n, (0, 0))[0], "baseline_n": aa.get(n, (0, 0))[1],
             "candidate_passed": ab.get(n, (0, 0))[0], "candidate_n": ab.get(n, (0, 0))[1]}
            for n in sorted({*aa, *ab})]
        assertion_entries.sort(key=lambda e: (
            -abs(e["candidate_passed"] * max(e["baseline_n"], 1) - e["baseline_passed"] * max(e["candidate_n"], 1)),
            e["assertion"]))
        comparisons.append({
            "candidate": label,
            "noise_floor": _r(floor, 1),
            "overall": {"pairs": overall.pairs, "baseline_mean": _r(overall.baseline_mean, 1),
                        "candidate_mean": _r(overall.candidate_mean, 1), "delta": _r(overall.delta, 1),
                        "ci_low": _r(overall.ci_low, 1), "ci_high": _r(overall.ci_high, 1),
                        "label": overall.label},
            "by_caller_type": _grouped(base, cand, "caller_type", baseline, label, floor, seed),
            "by_difficulty": _grouped(base, cand, "difficulty", baseline, label, floor, seed),
            "by_criterion": _by_size([c for c in crit if c["pairs"]]),
            "by_probe": _probe_entries(probes.get(baseline, []), probes.get(label, [])),
            "by_gate": sorted(gate_entries, key=lambda e: (-abs(e["candidate"] - e["baseline"]), e["gate"])),
            "by_assertion": assertion_entries,
        })
    return {"baseline": baseline, "confidence": CONFIDENCE, "comparisons": comparisons}


def _signed(delta: float) -> str:
    return f"{'+' if delta > 0 else ''}{delta}"


def _moved(entries: Iterable[dict[str, Any]], key: str, limit: int = 3) -> list[dict[str, Any]]:
    return [e for e in entries if e.get("delta")][:limit] if key else []


def template_prose(summary: Mapping[str, Any]) -> str:
    """Plain sentences from `summary` alone (offline). Every number is copied from the summary."""
    base = summary["baseline"]
    paragraphs = []
    for comp in summary["comparisons"]:
        cand, o = comp["candidate"], comp["overall"]
        if not o["pairs"]:
            paragraphs.append(f"{cand} shares no scored scenario and seed with {base}: nothing to compare.")
            continue
        lines = []
        interval = ("" if o["ci_low"] is None else
                    f", {summary['confidence']}% interval of the difference [{o['ci_low']}, {o['ci_high']}]")
        lines.append(f"Against {base}, {cand} moves the mean composite from {o['baseline_mean']} to "
                     f"{o['candidate_mean']} ({_signed(o['delta'])} points over {o['pairs']} paired "
                     f"conversations{interval}): {o['label']}"
                     + (f" (noise floor {comp['noise_floor']})." if comp["noise_floor"] else "."))
        for key, name in (("by_caller_type", "caller_type"), ("by_difficulty", "difficulty")):
            moved = _moved(comp[key], key)
            if moved:
                what = "caller type" if name == "caller_type" else "difficulty"
                parts = [f"{e[name]} ({_signed(e['delta'])}, {e['label']})" for e in moved]
                lines.append(f"By {what}, the largest changes: {', '.join(parts)}.")
        moved = _moved(comp["by_criterion"], "by_criterion")
        if moved:
            parts = [f"{e['criterion']} {e['baseline_mean']} → {e['candidate_mean']}" for e in moved]
            lines.append(f"Criteria that moved most (mean score): {', '.join(parts)}.")
        gates = [e for e in comp["by_gate"] if e["baseline"] != e["candidate"]]
        if gates:
            parts = [f"{e['gate']} fired {e['candidate']} times against {e['baseline']}" for e in gates]
            lines.append(f"Gates: {'; '.join(parts)}.")
        asserts = [e for e in comp["by_assertion"]
                   if (e["baseline_passed"], e["baseline_n"]) != (e["candidate_passed"], e["candidate_n"])][:3]
        if asserts:
            parts = [f"{e['assertion']} passed {e['candidate_passed']} of {e['candidate_n']} "
                     f"(baseline {e['baseline_passed']} of {e['baseline_n']})" for e in asserts]
            lines.append(f"Assertions: {'; '.join(parts)}.")
        probes = [e for e in comp["by_probe"] if e["comparable"] and e.get("delta")][:3]
        if probes:
            parts = [f"{e['probe']} {e['baseline_rate']} → {e['candidate_rate']}" for e in probes]
            lines.append(f"Probe conformance that moved most: {', '.join(parts)}.")
        stale = [e["probe"] for e in comp["by_probe"] if not e["comparable"]]
        if stale:
            lines.append(f"Not comparable (probe wording changed between runs): {', '.join(stale)}.")
        paragraphs.append(" ".join(lines))
    return "\n\n".join(paragraphs) + ("\n" if paragraphs else "")


def prose_numbers(text: str) -> list[float]:
    """Every standalone number in `text` (identifiers such as "v2" or "2e8e97" are not numbers)."""
    return [float(m) for m in _NUMBER.findall(text)]


def _summary_numbers(value: Any) -> set[float]:
    if isinstance(value, bool):
        return set()
    if isinstance(value, (int, float)):
        return {float(value)}
    if isinstance(value, str):
        return set(prose_numbers(value))
    if isinstance(value, Mapping):
        return set().union(*(_summary_numbers(v) | _summary_numbers(k) for k, v in value.items())) \
            if value else set()
    if isinstance(value, (list, tuple)):
        return set().union(*(_summary_numbers(v) for v in value)) if value else set()
    return set()


def unsupported_numbers(prose: str, summary: Mapping[str, Any]) -> list[float]:
    """Numbers in `prose` that the summary does not hold (empty when the prose is faithful)."""
    known = _summary_numbers(summary)
    return [n for n in prose_numbers(prose) if n not in known and abs(n) not in known]


async def model_prose(summary: Mapping[str, Any], model: ChatModel) -> str:
    """Prose by a (judge) model from the summary only; the template when it cites unknown numbers."""
    request = ChatRequest(role="judge", temperature=0.0, messages=[
        ChatMessage(role="system", content=(
            "You write a short analysis of how a candidate agent configuration differs from a baseline. "
            "Use only the JSON summary you are given. Quote numbers exactly as they appear in it; "
            "never compute or invent a number. Say 'within noise' where the summary says so.")),
        ChatMessage(role="user", content=json.dumps(summary, sort_keys=True)),
    ])
    reply = await model.chat(request)
    text = reply.text.strip()
    if not text or unsupported_numbers(text, summary):
        return template_prose(summary)
    return text + "\n"
