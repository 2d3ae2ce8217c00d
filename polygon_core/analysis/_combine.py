"""Combining the tiers that ran into one score per axis, saying which tiers it combines."""

from __future__ import annotations

from collections.abc import Sequence

from ._models import AXES, AxisResult, Highlight, TierFindings

#: How much each tier's opinion counts in an axis score. The surprisal tier sees words, not rules,
#: so it counts half.
TIER_WEIGHTS = {"rules": 1.0, "surprisal": 0.5, "embeddings": 1.0, "judge": 1.0}


def _sort_key(h: Highlight) -> tuple[int, int, str, str]:
    return (h.start, h.end, h.tier, h.reason)


def combine(findings: Sequence[TierFindings]) -> dict[str, AxisResult]:
    """Per axis: the weighted mean of the scores of the tiers that judged it (rounded to 4 places,
    so the score is the same on every platform), their names, and their highlights (deduplicated,
    in text order)."""
    out: dict[str, AxisResult] = {}
    for axis in AXES:
        weighted = total = 0.0
        tiers = []
        for found in findings:
            if axis in found.scores:
                weight = TIER_WEIGHTS[found.tier]
                weighted += weight * found.scores[axis]
                total += weight
                tiers.append(found.tier)
        seen: set[tuple[int, int, str, str]] = set()
        highlights = []
        for h in sorted((h for f in findings for h in f.highlights if h.axis == axis), key=_sort_key):
            if _sort_key(h) not in seen:
                seen.add(_sort_key(h))
                highlights.append(h)
        score = round(weighted / total, 4) if total else 0.0
        out[axis] = AxisResult(score=score, tiers=tiers, highlights=highlights)
    return out
