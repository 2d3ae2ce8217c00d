"""Probe statistics: conformance rates with Wilson score intervals."""

from __future__ import annotations

import math
from collections.abc import Iterable
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

Polarity = Literal["wanted", "guardrail"]

# For a wanted behaviour the agent did right when the answer is "yes"; for a guardrail, "no".
_SUCCESS: dict[str, str] = {"wanted": "yes", "guardrail": "no"}
_APPLICABLE = frozenset({"yes", "no"})
_KNOWN_ANSWERS = frozenset({"yes", "no", "na", "unanswered", "error"})


class Conformance(BaseModel):
    """Share of applicable conversations where the agent did the right thing, with a Wilson CI."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    k: int
    n: int
    rate: float | None = None
    low: float | None = None
    high: float | None = None


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for `successes` out of `n`, clamped to [0, 1].

    3 of 4 → (0.3006, 0.9544); 0 of 10 → (0.0, 0.2775). Raises ValueError when n is not positive,
    successes is outside 0..n, or confidence is outside (0, 1).
    """
    if n <= 0:
        raise ValueError(f"n must be positive, got {n}")
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be within 0..{n}, got {successes}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be within (0, 1), got {confidence}")
    z = _z(confidence)
    p = successes / n
    z2_n = z * z / n
    centre = (p + z2_n / 2) / (1 + z2_n)
    half = z * math.sqrt(p * (1 - p) / n + z2_n / (4 * n)) / (1 + z2_n)
    # At 0 (or n) successes the bound is exactly 0 (or 1); say so rather than keep float dust.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return low, high


def conformance(answers: Iterable[Any], polarity: Polarity) -> Conformance:
    """Conformance of probe `answers` ("yes"/"no"/"na"/"unanswered"/"error" or objects with `.answer`).

    Only yes/no answers are applicable: "na", "unanswered" and "error" (the answerer failed) never
    enter n. Success is "yes" for a
    wanted behaviour and "no" for a guardrail. With n == 0, rate and interval are None.
    """
    if polarity not in _SUCCESS:
        raise ValueError(f"polarity must be 'wanted' or 'guardrail', got {polarity!r}")
    success = _SUCCESS[polarity]
    k = n = 0
    for item in answers:
        answer = _answer_of(item)
        if answer in _APPLICABLE:
            n += 1
            k += answer == success
    if n == 0:
        return Conformance(k=0, n=0)
    low, high = wilson_interval(k, n)
    return Conformance(k=k, n=n, rate=k / n, low=low, high=high)


def _answer_of(item: Any) -> str:
    answer = item if isinstance(item, str) else getattr(item, "answer", None)
    if answer not in _KNOWN_ANSWERS:
        # Raw judge text belongs in parse_probe_answer first; guessing here would skew the rate.
        raise ValueError(f"unknown probe answer {answer!r}; expected yes, no, na, unanswered or error")
    return str(answer)


@lru_cache(maxsize=16)
def _z(confidence: float) -> float:
    if confidence == 0.95:
        # scipy.stats.norm.ppf(0.975) to the last bit, without importing scipy.stats (1–2 s a process).
        return 1.959963984540054
    # Imported lazily: scipy.stats is slow to import and only other confidences need it.
    from scipy.stats import norm

    return float(norm.ppf(1 - (1 - confidence) / 2))
