"""Token budgeting: estimate a point before starting it, refuse it when the cap would be passed."""

from __future__ import annotations

from pydantic import Field

from ..models import DomainModel


class TokenEstimate(DomainModel):
    """How many tokens a point is expected to use, and how that number was made."""

    tokens: int
    per_turn: float
    source: str = Field(..., description="'measured' from finished points, or 'stated' in the spec")


def estimate_point(*, conversations: int, turns_per_conversation: int, measured_tokens: int,
                   measured_turns: int, stated_per_turn: int) -> TokenEstimate:
    """Tokens for one point: measured tokens per turn once any point has run, else the stated one."""
    if measured_turns > 0:
        per_turn = measured_tokens / measured_turns
        source = "measured"
    else:
        per_turn = float(stated_per_turn)
        source = "stated"
    return TokenEstimate(tokens=round(per_turn * turns_per_conversation * conversations),
                         per_turn=round(per_turn, 3), source=source)


def refuse_reason(*, used: int, estimate: TokenEstimate, cap: int | None) -> str | None:
    """Why a point must not start (None when it fits the cap)."""
    if cap is None or used + estimate.tokens <= cap:
        return None
    return (f"estimated {estimate.tokens} tokens ({estimate.source}, {estimate.per_turn} per turn) "
            f"would take the sweep to {used + estimate.tokens}, past the cap of {cap}")
