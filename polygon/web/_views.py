"""View models of the web app: stored results reshaped for the pages (plain functions, no I/O).

The pages mark things inside the transcript (distortions, evidence quotes, gate hits, the divergence
turn); every position is computed here, once, so the JSON API carries it and a script using the API
sees exactly what the page shows.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from polygon_core.compare import ProbeRate, consequential_divergence, divergence_point
from polygon_core.models import (
    Conversation,
    Distortion,
    Judgment,
    ProbeAnswer,
    Run,
    Turn,
)

__all__ = [
    "aligned_pair",
    "conversation_view",
    "distortion_spans",
    "locate_quote",
    "probe_series",
    "run_summary",
    "sweep_curves",
]

_TOKEN = re.compile(r"\S+")


def distortion_spans(text: str, distortions: Sequence[Distortion]) -> list[dict[str, Any]]:
    """Where each recognition-noise edit sits in the text as said.

    A distortion's `position` is the index of its first whitespace-separated token (the noise
    module's definition); a multi-word original (``forty nine``) covers as many tokens. A filler is
    an insertion: an empty span at 0 whose `inserted` text is what the agent heard in addition.
    """
    tokens = [(m.start(), m.end()) for m in _TOKEN.finditer(text)]
    spans: list[dict[str, Any]] = []
    for d in distortions:
        if d.kind == "filler" or not d.original:
            spans.append({"kind": d.kind, "start": 0, "end": 0, "original": d.original,
                          "replacement": d.replacement, "inserted": d.replacement})
            continue
        first = min(max(d.position, 0), max(len(tokens) - 1, 0))
        if not tokens:
            continue
        last = min(first + max(len(d.original.split()), 1) - 1, len(tokens) - 1)
        spans.append({"kind": d.kind, "start": tokens[first][0], "end": tokens[last][1],
                      "original": d.original, "replacement": d.replacement, "inserted": None})
    return sorted(spans, key=lambda s: (s["start"], s["end"]))


def _clean_quote(quote: str) -> str:
    return quote.strip().strip("\"'“”«»").strip().rstrip("…").strip()


def locate_quote(turns: Sequence[Turn], quote: str | None, at_turn: int | None = None) -> dict[str, int] | None:
    """The first place an evidence quote occurs in the transcript: turn index and character span.

    Agent turns are searched before caller turns (the judge quotes the agent far more often);
    an exact match wins over a case-insensitive one. None when the quote is nowhere (a judge that
    paraphrased: the page then shows the quote unlocated rather than guessing). With a turn (a
    compact judge's turn reference, `at_turn`) only that turn is searched.
    """
    if at_turn is not None:
        turns = [t for t in turns if t.index == at_turn]
    if not quote:
        return None
    needle = _clean_quote(quote)
    if not needle:
        return None
    ordered = [t for t in turns if t.speaker == "agent"] + [t for t in turns if t.speaker != "agent"]
    for fold in (False, True):
        for turn in ordered:
            hay = turn.text.lower() if fold else turn.text
            want = needle.lower() if fold else needle
            if fold and len(hay) != len(turn.text):
                continue  # lower() changed the length: positions would not map back
            at = hay.find(want)
            if at >= 0:
                return {"turn": turn.index, "start": at, "end": at + len(needle)}
    return None


def _tool_call(call: Any) -> dict[str, Any]:
    return {"id": call.id, "name": call.name, "arguments": call.arguments, "result": call.result,
            "valid": call.valid, "validation_error": call.validation_error, "error": call.error,
            "latency_ms": call.latency_ms, "events": list(call.events)}


def conversation_view(run: Run, conversation: Conversation, *, assertions: Sequence[Any],
                      judgments: Sequence[Judgment], answers: Sequence[ProbeAnswer],
                      rubric_version: str | None = None) -> dict[str, Any]:
    """Everything the conversation viewer shows, with marks placed on their turns.

    `judgments` are this conversation's, all rubric versions; the one shown inline (gates and
    evidence on turns) is of `rubric_version` (default the run's), the others are listed below it.
    """
    version = rubric_version or run.rubric_version
    shown = [j for j in judgments if j.rubric_version == version]
    primary = shown[-1] if shown else None
    judged: list[dict[str, Any]] = []
    for j in judgments:
        criteria = []
        for c in j.criteria:
            where = locate_quote(conversation.turns, c.evidence, c.evidence_turn)
            criteria.append({**c.model_dump(mode="json"), "evidence_at": where})
        judged.append({"rubric_version": j.rubric_version, "judge_model": j.judge_model,
                       "repeats": j.repeats, "composite": j.composite, "verdict": j.verdict,
                       "partial": j.partial, "not_scored": list(j.not_scored),
                       "status": j.status, "reason": j.reason,
                       "gates": [g.model_dump(mode="json") for g in j.gates], "criteria": criteria,
                       "primary": j is primary})
    primary_view = next((v for v in judged if v["primary"]), None)
    turns = []
    for t in conversation.turns:
        evidence: list[dict[str, Any]] = []
        if primary_view is not None:
            evidence = [{"criterion": c["criterion"], "score": c["score"], "start": c["evidence_at"]["start"],
                         "end": c["evidence_at"]["end"]}
                        for c in primary_view["criteria"]
                        if c["evidence_at"] is not None and c["evidence_at"]["turn"] == t.index]
        turns.append({
            "index": t.index, "speaker": t.speaker, "text": t.text, "heard": t.heard,
            "distortions": distortion_spans(t.text, t.distortions) if t.speaker == "caller" else [],
            "tool_calls": [_tool_call(c) for c in t.tool_calls], "end": t.end, "latency_ms": t.latency_ms,
            "gates": [g.model_dump(mode="json") for g in (primary.gates if primary else []) if g.turn == t.index],
            "assertions": [a.name for a in assertions if a.turn == t.index and a.status in ("fail", "error")],
            "evidence": evidence,
            # On a call: where the turn sits in the audio (the player highlights and seeks by it).
            "kind": t.kind, "start_ms": t.start_ms, "end_ms": t.end_ms, "interrupted": t.interrupted,
        })
    return {
        "run": run.model_dump(mode="json"),
        "conversation": {
            "id": conversation.id, "scenario_id": conversation.scenario_id, "seed": conversation.seed,
            "agent_name": conversation.agent_name, "agent_version": conversation.agent_version,
            "persona_hash": conversation.persona_hash, "caller_type": conversation.caller_type,
            "difficulty": conversation.difficulty, "language": conversation.language,
            "noise": conversation.noise, "end_reason": conversation.end_reason.value,
            "end_detail": conversation.end_detail, "clock_ms": conversation.clock_ms,
            "models": dict(conversation.models),
            "usage": {k: u.model_dump(mode="json") for k, u in conversation.usage.items()},
            "events": [e.model_dump(mode="json") for e in conversation.events],
            "initial_state": conversation.initial_state, "final_state": conversation.final_state,
            "format_version": conversation.format_version,  # the transcript's; 0: stored before versions
            "channel": conversation.channel,
            "voice": conversation.voice.model_dump(mode="json") if conversation.voice is not None else None,
        },
        "turns": turns,
        "assertions": [a.model_dump(mode="json") if hasattr(a, "model_dump") else dict(a) for a in assertions],
        # Gates without a turn (the safety gate is a judgment, not an utterance) belong to the call.
        "gates": [g.model_dump(mode="json") for g in (primary.gates if primary else [])],
        "rubric_version": version,
        "judgments": judged,
        "probes": [a.model_dump(mode="json") for a in answers],
    }


def _turn_cell(turn: Turn | None) -> dict[str, Any] | None:
    if turn is None:
        return None
    return {"index": turn.index, "speaker": turn.speaker, "text": turn.text, "heard": turn.heard,
            "tool_calls": [_tool_call(c) for c in turn.tool_calls], "end": turn.end}


def aligned_pair(a: Conversation, b: Conversation) -> dict[str, Any]:
    """Two conversations side by side, aligned by turn, with the divergence point marked.

    `divergence` is the divergence point of docs/design.md (the first turn where they part at all) and
    `consequential` the first turn where the agents act differently (tool calls or ending); both
    None when the conversations never part.
    """
    d = divergence_point(a.turns, b.turns)
    c = consequential_divergence(a.turns, b.turns)
    rows = []
    for i in range(max(len(a.turns), len(b.turns))):
        ta = a.turns[i] if i < len(a.turns) else None
        tb = b.turns[i] if i < len(b.turns) else None
        rows.append({"index": i, "a": _turn_cell(ta), "b": _turn_cell(tb),
                     "divergence": d is not None and d.turn == i,
                     "consequential": c is not None and c.turn == i})
    return {
        "scenario_id": a.scenario_id, "seed": a.seed,
        "a": {"conversation_id": a.id, "agent_version": a.agent_version, "end_reason": a.end_reason.value},
        "b": {"conversation_id": b.id, "agent_version": b.agent_version, "end_reason": b.end_reason.value},
        "divergence": None if d is None else {"turn": d.turn, "reasons": list(d.reasons)},
        "consequential": None if c is None else {"turn": c.turn, "reasons": list(c.reasons)},
        "rows": rows,
    }


def run_summary(run: Run, summary: dict[str, Any] | None) -> dict[str, Any]:
    """A run's row on the runs list: identity, models per role, counts, verdicts and cost."""
    s = summary or {}
    return {
        **run.model_dump(mode="json"),
        "conversations": s.get("conversations"), "scored": s.get("scored"),
        "mean_composite": s.get("mean_composite"), "ci_low": s.get("ci_low"), "ci_high": s.get("ci_high"),
        "verdicts": s.get("verdicts") or {}, "gates": s.get("gates") or {},
        "cost_usd": s.get("cost_usd"), "tokens": s.get("tokens"), "judge_model": s.get("judge_model"),
        "summarised": summary is not None,
    }


def probe_series(points: Iterable[tuple[Run, Sequence[ProbeRate]]]) -> list[dict[str, Any]]:
    """Per probe, its conformance run after run (in the order given), split where the wording changes.

    A probe is compared across runs only while its wording hash is equal, so each series is a list
    of segments, one per stretch of equal wording; the page draws no line across a segment break.
    """
    series: dict[str, dict[str, Any]] = {}
    for run, rates in points:
        for r in sorted(rates, key=lambda x: (x.probe_id, x.wording_hash)):
            s = series.setdefault(r.probe_id, {"probe_id": r.probe_id, "polarity": r.polarity, "segments": []})
            point = {"run_id": run.id, "agent_name": run.agent_name, "agent_version": run.agent_version,
                     "created_at": run.created_at, "wording_hash": r.wording_hash, "k": r.k, "n": r.n,
                     "rate": r.rate, "low": r.low, "high": r.high}
            segs = s["segments"]
            if segs and segs[-1]["wording_hash"] == r.wording_hash:
                segs[-1]["points"].append(point)
            else:
                segs.append({"wording_hash": r.wording_hash, "points": [point]})
    return [series[k] for k in sorted(series)]


def _point_values(point: dict[str, Any]) -> dict[str, str]:
    """A leaderboard point's parameter values, as the text its label shows them ("base" has none).

    A point carries its values (`PointResult.values`); only a leaderboard stored before it did has
    them read back from its label ("a=1, b=x"), which cannot hold a value with ", " or "=" in it.
    """
    if "values" in point:
        return {k: f"{v}" for k, v in point["values"].items()}
    label = point.get("label", "")
    if label == "base":
        return {}
    pairs = [part.split("=", 1) for part in label.split(", ") if "=" in part]
    return {k: v for k, v in pairs}


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def sweep_curves(leaderboard: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per swept parameter, the finished points that set it (x = its value, y = mean composite with
    its 95% interval), ordered by value, and the base point as a reference.

    Each point's values are the ones it carries (`values`). A point that also sets other parameters
    (a grid) says which in `others`, so the page can draw one line per combination rather than
    join unlike points.
    """
    points = [(p, _point_values(p)) for p in leaderboard]
    base = next((p for p, values in points if not values), None)
    names = sorted({k for _, values in points for k in values})
    curves = []
    for name in names:
        mine = [(p, values) for p, values in points if name in values]
        numeric = all(_number(values[name]) is not None for _, values in mine)
        cells = [{"label": p["label"], "run_id": p["run_id"],
                  "value": _number(values[name]) if numeric else values[name],
                  "others": ", ".join(f"{k}={v}" for k, v in sorted(values.items()) if k != name),
                  "mean_composite": p.get("mean_composite"), "ci_low": p.get("ci_low"),
                  "ci_high": p.get("ci_high")} for p, values in mine]
        cells.sort(key=lambda c: (c["others"], c["value"]))
        curves.append({"parameter": name, "numeric": numeric, "points": cells,
                       "base": None if base is None else {
                           "label": "base", "run_id": base["run_id"], "value": None, "others": "",
                           "mean_composite": base.get("mean_composite"), "ci_low": base.get("ci_low"),
                           "ci_high": base.get("ci_high")}})
    return curves
