"""Combining the tiers that ran into one score per axis, saying which tiers it combines.

The highest tier that ran and is *confident* on an axis sets its score: a tier is confident when it
scores the axis at least CONFIDENT and points at the passages that made it (at least one highlight
on that axis). Tiers rank as listed in `TIERS` (rules, surprisal, embeddings, judge): a model that
quotes the two rules it rates 0.9 is not averaged down by tiers that did not see them. When no tier
is confident, the score is the weighted mean of the tiers that judged the axis.
"""

from __future__ import annotations

from collections.abc import Sequence

from ._models import AXES, TIERS, Axis, AxisResult, Highlight, TierFindings

#: How much each tier's opinion counts in an axis score when no tier is confident. The surprisal
#: tier sees words, not rules, so it counts half.
TIER_WEIGHTS = {"rules": 1.0, "surprisal": 0.5, "embeddings": 1.0, "judge": 1.0}
#: A tier's score on an axis, from this up and with highlights to show for it, is confident.
CONFIDENT = 0.5


def _sort_key(h: Highlight) -> tuple[int, int, str, str]:
    return (h.start, h.end, h.tier, h.reason)


def confident(found: TierFindings, axis: Axis) -> bool:
    """Whether `found` is sure enough of `axis` to set its score alone (see the module's docstring)."""
    score = found.scores.get(axis)
    return score is not None and score >= CONFIDENT and any(h.axis == axis for h in found.highlights)


def _score(findings: Sequence[TierFindings], axis: Axis) -> tuple[float, str | None]:
    """(the axis score, the tier that set it alone, or None when it is the weighted mean)."""
    sure = [f for f in findings if confident(f, axis)]
    if sure:
        top = max(sure, key=lambda f: TIERS.index(f.tier))
        return round(top.scores[axis], 4), top.tier
    weighted = total = 0.0
    for found in findings:
        if axis in found.scores:
            weighted += TIER_WEIGHTS[found.tier] * found.scores[axis]
            total += TIER_WEIGHTS[found.tier]
    return (round(weighted / total, 4) if total else 0.0), None


def combine(findings: Sequence[TierFindings]) -> dict[str, AxisResult]:
    """Per axis: the score (set by the highest confident tier, else the weighted mean of the tiers
    that judged it, rounded to 4 places so it is the same on every platform), the tiers that judged
    it, which one set it, and their highlights (deduplicated, in text order)."""
    out: dict[str, AxisResult] = {}
    for axis in AXES:
        tiers = [found.tier for found in findings if axis in found.scores]
        seen: set[tuple[int, int, str, str]] = set()
        highlights = []
        for h in sorted((h for f in findings for h in f.highlights if h.axis == axis), key=_sort_key):
            if _sort_key(h) not in seen:
                seen.add(_sort_key(h))
                highlights.append(h)
        score, set_by = _score(findings, axis)
        out[axis] = AxisResult(score=score, tiers=tiers, set_by=set_by, highlights=highlights)  # type: ignore[arg-type]
    return out
