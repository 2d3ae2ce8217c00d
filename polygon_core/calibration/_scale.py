"""Putting a judge on the people's 1-5 scale.

- A criterion: the judge's score is already 1-5 (the median of its repeats, so it may be x.5).
- `overall`: the judgment's composite (0-100) mapped linearly, 1 + 4 x composite / 100, so 0 is 1,
  50 is 3 and 100 is 5 (the same map the composite's own formula inverts per criterion).
- The people: the mean of the conversation's raters on that criterion.

Kappa and the agreement shares need whole points: a value is rounded to the nearest integer with
halves going up (2.5 -> 3, 3.5 -> 4), not to even: on a rating scale, "half way to 4" should not
round to 4 sometimes and to 3 other times.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..models import Judgment
from ._types import OVERALL

__all__ = ["SCALE", "judge_value", "overall_from_composite", "round_scores"]

SCALE: tuple[int, ...] = (1, 2, 3, 4, 5)

# Why a labelled conversation is left out of a row (counted, never silently dropped).
NO_JUDGMENT = "no_judgment"
JUDGE_ERROR = "judge_error"
AGENT_FAILURE = "agent_failure"
NOT_APPLICABLE = "not_applicable"
NOT_SCORED = "not_scored"


def overall_from_composite(composite: float) -> float:
    """A composite (0-100) on the people's 1-5 scale: 1 + 4 x composite / 100."""
    return 1 + 4 * composite / 100


def round_scores(values: Sequence[float] | np.ndarray) -> np.ndarray:
    """Nearest whole point, halves up (2.5 -> 3), as integers."""
    return np.floor(np.asarray(values, dtype=float) + 0.5).astype(int)


def judge_value(judgment: Judgment | None, key: str) -> float | str:
    """The judge's value for `key` ("overall" or a criterion) on the 1-5 scale, or why there is none.

    The reasons: no_judgment, judge_error, agent_failure (a broken call is not judged),
    not_applicable (e.g. goal completion on a real call), not_scored (unreadable, missing or absent:
    a missing criterion counts as 1 in the composite, but the judge did not say 1, so it is not
    compared with what people said).
    """
    if judgment is None:
        return NO_JUDGMENT
    if judgment.status == "judge_error":
        return JUDGE_ERROR
    if judgment.status == "agent_failure":
        return AGENT_FAILURE
    if key == OVERALL:
        return NOT_SCORED if judgment.composite is None else overall_from_composite(judgment.composite)
    score = next((c for c in judgment.criteria if c.criterion == key), None)
    if score is None:
        return NOT_SCORED
    if score.status == "not_applicable":
        return NOT_APPLICABLE
    if score.status != "scored" or score.score is None:
        return NOT_SCORED
    return float(score.score)
