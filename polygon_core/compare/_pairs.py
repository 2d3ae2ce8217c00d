"""Pairing two configurations' conversations by scenario and seed, and finding where they part."""

from __future__ import annotations

from collections.abc import Sequence

from ..models import Conversation, DomainModel
from ._divergence import divergence_point


class PairDivergence(DomainModel):
    """Where the conversations of two configurations on one scenario and seed first part."""

    scenario_id: str
    seed: int
    turn: int | None
    reasons: list[str]
    a_text: str | None = None
    b_text: str | None = None
    a_tools: list[str] = []
    b_tools: list[str] = []


def _tools(turn: object) -> list[str]:
    calls = getattr(turn, "tool_calls", None) or []
    return [f"{c.name}({', '.join(f'{k}={v}' for k, v in sorted(c.arguments.items()))})" for c in calls]


def _speaker_text(turn: object) -> str | None:
    if turn is None:
        return None
    return f"{getattr(turn, 'speaker', '?')}: {getattr(turn, 'text', '')}"


def pair_divergences(a: Sequence[Conversation], b: Sequence[Conversation]) -> list[PairDivergence]:
    """The divergence point for every (scenario, seed) both sides ran, in scenario order."""
    index_b = {(c.scenario_id, c.seed): c for c in b}
    out: list[PairDivergence] = []
    for conv in sorted(a, key=lambda c: (c.scenario_id, c.seed)):
        other = index_b.get((conv.scenario_id, conv.seed))
        if other is None:
            continue
        d = divergence_point(conv.turns, other.turns)
        if d is None:
            out.append(PairDivergence(scenario_id=conv.scenario_id, seed=conv.seed, turn=None, reasons=[]))
            continue
        out.append(PairDivergence(
            scenario_id=conv.scenario_id, seed=conv.seed, turn=d.turn, reasons=list(d.reasons),
            a_text=_speaker_text(d.a_turn), b_text=_speaker_text(d.b_turn),
            a_tools=_tools(d.a_turn), b_tools=_tools(d.b_turn),
        ))
    return out
