"""Pairing two configurations' conversations by scenario and seed, and finding where they part.

Two turns are reported per pair:

* the divergence point (docs/design.md, exact): the first turn where the conversations part at all,
  often only in wording ("How much was the charge?" instead of asking for the account number);
* the first consequential divergence: the first turn where the agents *act* differently, i.e. the
  tool calls differ (name or normalised arguments, `_divergence`'s rule) or one side ends or
  transfers the call and the other does not. That is the turn a reviewer needs: for the demo's v2
  it is the refund issued before identity was verified. It is never before the divergence point.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import Field

from ..models import Conversation, DomainModel
from ._divergence import Divergence, TurnLike, _field, _tool_calls, divergence_point


class PairDivergence(DomainModel):
    """Where the conversations of two configurations on one scenario and seed first part."""

    scenario_id: str
    seed: int
    turn: int | None
    reasons: list[str]
    a_text: str | None = None
    b_text: str | None = None
    a_tools: list[str] = Field(default_factory=list)
    b_tools: list[str] = Field(default_factory=list)
    consequential_turn: int | None = None
    consequential_reasons: list[str] = Field(default_factory=list)
    consequential_a_text: str | None = None
    consequential_b_text: str | None = None
    consequential_a_tools: list[str] = Field(default_factory=list)
    consequential_b_tools: list[str] = Field(default_factory=list)


def consequential_divergence(a: Sequence[TurnLike], b: Sequence[TurnLike]) -> Divergence | None:
    """The first turn where the tool calls differ or exactly one side ends; None if never.

    Reasons are the subset of ("tool_calls", "end") that hold there. Past the shorter
    conversation, the first extra turn is an ``end`` divergence (one side had ended).
    """
    for index, (ta, tb) in enumerate(zip(a, b, strict=False)):
        reasons = []
        if _tool_calls(ta) != _tool_calls(tb):
            reasons.append("tool_calls")
        if _field(ta, "end") != _field(tb, "end"):
            reasons.append("end")
        if reasons:
            return Divergence(index, tuple(reasons), ta, tb)  # type: ignore[arg-type]
    if len(a) == len(b):
        return None
    index = min(len(a), len(b))
    return Divergence(index, ("end",), a[index] if index < len(a) else None,
                      b[index] if index < len(b) else None)


def _tools(turn: object) -> list[str]:
    calls = getattr(turn, "tool_calls", None) or []
    return [f"{c.name}({', '.join(f'{k}={v}' for k, v in sorted(c.arguments.items()))})" for c in calls]


def _speaker_text(turn: object) -> str | None:
    if turn is None:
        return None
    return f"{getattr(turn, 'speaker', '?')}: {getattr(turn, 'text', '')}"


def pair_divergences(a: Sequence[Conversation], b: Sequence[Conversation]) -> list[PairDivergence]:
    """The divergence point (and first consequential divergence) for every (scenario, seed) both ran."""
    index_b = {(c.scenario_id, c.seed): c for c in b}
    out: list[PairDivergence] = []
    for conv in sorted(a, key=lambda c: (c.scenario_id, c.seed)):
        other = index_b.get((conv.scenario_id, conv.seed))
        if other is not None:
            out.append(pair_divergence(conv, other))
    return out


def pair_divergence(conv: Conversation, other: Conversation) -> PairDivergence:
    """Where two conversations of one (scenario, seed) part: `conv` is side a, `other` side b.

    One pair at a time, so a caller can stream the pairs of two large runs (see `pair_divergences`).
    """
    d = divergence_point(conv.turns, other.turns)
    if d is None:
        return PairDivergence(scenario_id=conv.scenario_id, seed=conv.seed, turn=None, reasons=[])
    c = consequential_divergence(conv.turns, other.turns)
    extra: dict[str, Any] = {} if c is None else dict(
        consequential_turn=c.turn, consequential_reasons=list(c.reasons),
        consequential_a_text=_speaker_text(c.a_turn), consequential_b_text=_speaker_text(c.b_turn),
        consequential_a_tools=_tools(c.a_turn), consequential_b_tools=_tools(c.b_turn))
    return PairDivergence(
        scenario_id=conv.scenario_id, seed=conv.seed, turn=d.turn, reasons=list(d.reasons),
        a_text=_speaker_text(d.a_turn), b_text=_speaker_text(d.b_turn),
        a_tools=_tools(d.a_turn), b_tools=_tools(d.b_turn), **extra,
    )
