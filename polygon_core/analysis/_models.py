"""What an analysis produces: axis scores with highlights, and the tiers that made them."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from ..models import DomainModel

Axis = Literal["overload", "attention_dilution", "conflict", "ambiguity", "redundancy"]
Tier = Literal["rules", "surprisal", "embeddings", "judge"]

#: The five axes, in the order they are shown.
AXES: tuple[Axis, ...] = ("overload", "attention_dilution", "conflict", "ambiguity", "redundancy")
#: The four tiers, cheapest first; `--max-tier N` runs the first N.
TIERS: tuple[Tier, ...] = ("rules", "surprisal", "embeddings", "judge")
#: The tiers that never leave the machine (the default).
OFFLINE_TIERS: tuple[Tier, ...] = ("rules", "surprisal", "embeddings")


class Highlight(DomainModel):
    """A weak spot: `text[start:end]` is the exact span, found by `tier` for `axis`."""

    start: int = Field(ge=0)
    end: int = Field(ge=0)
    axis: Axis
    reason: str
    tier: Tier


class TierFindings(DomainModel):
    """One tier's opinion: a 0..1 score for each axis it can judge, and its highlights.

    An axis missing from `scores` is one the tier has no opinion on (it does not count as 0).
    """

    tier: Tier
    scores: dict[Axis, float] = Field(default_factory=dict)
    highlights: list[Highlight] = Field(default_factory=list)


class AxisResult(DomainModel):
    """One axis: score 0..1 (higher is worse), the tiers that judged it, and the highlights.

    `set_by` is the tier whose confident score is the axis score (the highest tier that ran, scored
    the axis at least 0.5 and highlighted why); None when the score is the weighted mean of `tiers`.
    """

    score: float = Field(ge=0.0, le=1.0)
    tiers: list[Tier] = Field(default_factory=list)
    set_by: Tier | None = None
    highlights: list[Highlight] = Field(default_factory=list)


class PromptAnalysis(DomainModel):
    """The analysis of one prompt version."""

    prompt_hash: str
    language: Literal["en", "ru"]
    length: int = Field(ge=0, description="characters in the analysed text; every span is within it")
    tiers_run: list[Tier]
    tiers_skipped: dict[str, str] = Field(default_factory=dict, description="tier → why it did not run")
    axes: dict[Axis, AxisResult]

    def to_json(self) -> dict[str, Any]:
        """The `--json` shape: `axes` holds exactly score, tiers, set_by and highlights (start, end,
        reason, tier) per axis; the other top-level keys say what was analysed and how."""
        return {
            "prompt_hash": self.prompt_hash,
            "language": self.language,
            "tiers_run": list(self.tiers_run),
            "tiers_skipped": dict(self.tiers_skipped),
            "axes": {
                axis: {
                    "score": result.score,
                    "tiers": list(result.tiers),
                    "set_by": result.set_by,
                    "highlights": [
                        {"start": h.start, "end": h.end, "reason": h.reason, "tier": h.tier}
                        for h in result.highlights
                    ],
                }
                for axis, result in self.axes.items()
            },
        }
