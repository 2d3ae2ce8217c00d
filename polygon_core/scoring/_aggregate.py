"""Aggregation of k judge repeats into per-criterion scores and one composite (docs/design.md, "Scoring rules")."""

from __future__ import annotations

import json
import math
import numbers
import re
import statistics
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ._rubric import SAFETY_CRITERION, Rubric

CriterionStatus = Literal["scored", "missing", "unreadable", "not_applicable"]

MIN_SCORE = 1
MAX_SCORE = 5

# Missing counts as the minimum score: a judge that says nothing about a criterion must never
# flatter the agent, so absence is never treated as "average".
MISSING_VALUE = float(MIN_SCORE)

_INTEGER_TEXT = re.compile(r"[0-9]+")
# How much of an unreadable value a reason quotes.
_WHY_MAX_CHARS = 60


class Aggregate(BaseModel):
    """The judge's repeats folded into one score per criterion and a composite on 0-100."""

    model_config = ConfigDict(extra="forbid")

    scores: dict[str, float | None] = Field(
        default_factory=dict, description="criterion → aggregated score 1-5; None = not scored"
    )
    composite: float | None = Field(
        ..., description="0-100 over scored criteria; None if none, or if the judge failed (`failed`)")
    partial: bool = Field(False, description="never set now (a criterion unreadable in every repeat "
                          "is a judge failure); judgments stored before that rule may carry it")
    not_scored: list[str] = Field(default_factory=list, description="in rubric order")
    failed: list[str] = Field(
        default_factory=list,
        description="criteria unreadable in every repeat (rubric order): the judge failed on the "
                    "conversation, so there is no composite")
    statuses: dict[str, CriterionStatus] = Field(default_factory=dict)
    not_applicable: list[str] = Field(
        default_factory=list, description="criteria that do not apply (in rubric order); not partial"
    )
    safety_readable: bool = Field(
        False, description="at least one repeat gave a readable safety_compliance score"
    )


def read_score(value: Any, *, continuous: bool = False) -> float | None:
    """The score 1-5 in `value`, or None when `value` is not a readable score.

    Readable: an int, a float with an integral value (4.0) or a string of digits (" 4 "), in 1..5.
    Bools are not scores (True would otherwise read as 1). Missing values (None) are not readable
    either; callers tell "missing" apart before calling this. With `continuous` (a fitted judge,
    whose scores are regression predictions on the 1-5 scale), any finite real number in 1..5 is
    read as it is: rounding it would give every call of a cautious model the same whole number.
    """
    if isinstance(value, bool):
        return None
    if continuous and isinstance(value, numbers.Real) and not isinstance(value, numbers.Integral):
        real = float(value)
        return real if math.isfinite(real) and MIN_SCORE <= real <= MAX_SCORE else None
    if isinstance(value, numbers.Integral):
        number = int(value)
    elif isinstance(value, numbers.Real):
        as_float = float(value)
        if not as_float.is_integer():  # also rejects nan and inf
            return None
        number = int(as_float)
    elif isinstance(value, str):
        text = value.strip()
        if not _INTEGER_TEXT.fullmatch(text):
            return None
        number = int(text)
    else:
        return None
    return number if MIN_SCORE <= number <= MAX_SCORE else None


def aggregate_judgments(
    repeats: Sequence[Mapping[str, Any]], rubric: Rubric, not_applicable: Sequence[str] = (), *,
    continuous: bool = False,
) -> Aggregate:
    """Fold k judge repeats (criterion → raw value) into an `Aggregate` under `rubric`.

    Per criterion: the median of the repeats' values, where a missing value (absent or None)
    counts as 1 and an unreadable value is dropped. A criterion with no readable or missing value
    left (unreadable in every repeat) means the judge failed on this conversation: it is listed in
    `failed` (and `not_scored`) and there is no composite at all, never one renormalised over the
    criteria that happened to be readable. Keys the rubric does not know are
    ignored. Raises ValueError when there are no repeats and TypeError when a repeat is not a
    mapping (the caller must parse the judge's output first).

    Criteria named in `not_applicable` (e.g. goal_completion on a production call, which has no
    ground truth) get status "not_applicable" and no score whatever the judge said: they are left
    out of the composite by renormalisation and are listed in `not_applicable`, not in
    `not_scored`; they are no failure. Unknown names are a ValueError. `continuous`: scores may be
    any real number in 1..5 (`read_score`), for a fitted judge.
    """
    if not repeats:
        raise ValueError("aggregate_judgments needs at least one repeat")
    for position, repeat in enumerate(repeats):
        if not isinstance(repeat, Mapping):
            raise TypeError(f"repeat {position} is {type(repeat).__name__}, expected a mapping")

    unknown = sorted(set(not_applicable) - set(rubric.criterion_names))
    if unknown:
        raise ValueError(f"not_applicable names unknown criteria: {', '.join(unknown)}")
    skipped = set(not_applicable)

    scores: dict[str, float | None] = {}
    statuses: dict[str, CriterionStatus] = {}
    for name in rubric.criterion_names:
        if name in skipped:
            scores[name], statuses[name] = None, "not_applicable"
            continue
        scores[name], statuses[name] = _aggregate_criterion([r.get(name) for r in repeats], continuous)

    not_scored = [
        name for name in rubric.criterion_names if scores[name] is None and name not in skipped
    ]
    return Aggregate(
        scores=scores,
        composite=None if not_scored else composite_score(scores, rubric),
        not_scored=not_scored,
        failed=list(not_scored),
        statuses=statuses,
        not_applicable=[name for name in rubric.criterion_names if name in skipped],
        safety_readable=SAFETY_CRITERION not in skipped
        and any(read_score(r.get(SAFETY_CRITERION), continuous=continuous) is not None for r in repeats),
    )


def unreadable_why(value: Any) -> str:
    """Why `value` is not a score, in words a user can check against the judge's reply:
    `0 is not an integer 1–5`, `"5/5" is not an integer 1–5`."""
    try:
        shown = json.dumps(value, ensure_ascii=False, default=str)
    except ValueError:  # a circular structure; judges' replies are JSON, so hardly ever
        shown = repr(value)
    if len(shown) > _WHY_MAX_CHARS:
        shown = shown[:_WHY_MAX_CHARS] + "…"
    return f"{shown} is not an integer {MIN_SCORE}–{MAX_SCORE}"


def composite_score(scores: Mapping[str, float | None], rubric: Rubric) -> float | None:
    """100 × Σ w(s−1)/4 / Σ w over the scored criteria; None when no criterion is scored.

    With every criterion scored and weights summing to 100 this is exactly Σ w(s−1)/4. Computed as
    25 × Σ w(s−1) / Σ w so the only rounding is the final division.
    """
    numerator = 0.0
    scored_weight = 0.0
    for criterion in rubric.criteria:
        score = scores.get(criterion.name)
        if score is None:
            continue
        numerator += criterion.weight * (score - MIN_SCORE)
        scored_weight += criterion.weight
    if scored_weight == 0:
        return None
    return 100.0 / (MAX_SCORE - MIN_SCORE) * numerator / scored_weight


def _aggregate_criterion(raw_values: list[Any], continuous: bool = False) -> tuple[float | None, CriterionStatus]:
    values: list[float] = []
    any_readable = False
    for raw in raw_values:
        if raw is None:  # absent keys arrive here as None too
            values.append(MISSING_VALUE)
            continue
        score = read_score(raw, continuous=continuous)
        if score is not None:
            values.append(float(score))
            any_readable = True
        # an unreadable repeat is dropped: it neither helps nor hurts the median
    if not values:
        return None, "unreadable"
    status: CriterionStatus = "scored" if any_readable else "missing"
    return float(statistics.median(values)), status
