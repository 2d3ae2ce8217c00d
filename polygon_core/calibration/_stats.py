"""Agreement statistics between a judge and people, with bootstrap intervals (scipy, scikit-learn,
krippendorff: no hand-written estimators).

Both sides are on the people's 1-5 scale (see `_scale.py`). Rank correlations and the bias use the
values as they are; kappa and the agreement shares use them rounded to whole points.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping, Sequence

import numpy as np

# scipy, scikit-learn and krippendorff are imported where used: every `polygon` command imports this
# package (to show calibrations), and those imports cost seconds of start-up.
from ._scale import SCALE, round_scores

__all__ = [
    "CONFIDENCE",
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "STATISTICS",
    "agreement",
    "bootstrap_intervals",
    "people_alpha",
]

STATISTICS: tuple[str, ...] = ("rho", "tau", "kappa", "exact", "within_one", "bias")
DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 0
CONFIDENCE = 0.95

FloatArray = np.ndarray


def _finite(value: float) -> float | None:
    # A statistic undefined on this data (constant ratings: 0/0) is None, never NaN in a report.
    return float(value) if math.isfinite(value) else None


def _rho(judge: FloatArray, people: FloatArray) -> float:
    from scipy.stats import spearmanr

    return float(spearmanr(judge, people).statistic)


def _tau(judge: FloatArray, people: FloatArray) -> float:
    from scipy.stats import kendalltau

    return float(kendalltau(judge, people).statistic)  # tau-b: ties on either side are common


def _kappa(judge: FloatArray, people: FloatArray) -> float:
    from sklearn.metrics import cohen_kappa_score

    return float(cohen_kappa_score(round_scores(judge), round_scores(people), labels=list(SCALE),
                                   weights="quadratic"))


def _exact(judge: FloatArray, people: FloatArray) -> float:
    return float(np.mean(round_scores(judge) == round_scores(people)))


def _within_one(judge: FloatArray, people: FloatArray) -> float:
    return float(np.mean(np.abs(round_scores(judge) - round_scores(people)) <= 1))


def _bias(judge: FloatArray, people: FloatArray) -> float:
    return float(np.mean(judge - people))


_ESTIMATORS: dict[str, Callable[[FloatArray, FloatArray], float]] = {
    "rho": _rho, "tau": _tau, "kappa": _kappa, "exact": _exact, "within_one": _within_one, "bias": _bias,
}


def agreement(judge: Sequence[float] | np.ndarray,
              people: Sequence[float] | np.ndarray) -> dict[str, float | None]:
    """Each statistic of `STATISTICS` on paired values (judge, people), None where undefined.

    rho: Spearman; tau: Kendall's tau-b; kappa: Cohen's kappa with quadratic weights over the
    labels 1-5; exact / within_one: share of pairs whose rounded values are equal / at most one
    apart; bias: mean of judge - people. Fewer than two pairs: every statistic is None.
    """
    j, p = np.asarray(judge, dtype=float), np.asarray(people, dtype=float)
    if len(j) != len(p):
        raise ValueError(f"{len(j)} judge values for {len(p)} people values")
    if len(j) < 2:
        return dict.fromkeys(STATISTICS)
    with warnings.catch_warnings():
        # Constant inputs make rho, tau and kappa undefined; scipy and sklearn warn, we say None.
        warnings.simplefilter("ignore")
        return {name: _finite(f(j, p)) for name, f in _ESTIMATORS.items()}


def bootstrap_intervals(judge: Sequence[float], people: Sequence[float], *, seed: int = DEFAULT_SEED,
                        resamples: int = DEFAULT_RESAMPLES) -> dict[str, tuple[float, float] | None]:
    """A 95% percentile bootstrap interval for each statistic, resampling conversations (pairs).

    Draws come from `numpy.random.default_rng(seed)`: each resample is `rng.integers(0, n, n)`
    (n pairs drawn with replacement, one call per resample). A resample on which a statistic is
    undefined is left out of that statistic's interval; with no defined resample it is None.
    The bounds are `numpy.percentile(values, [2.5, 97.5])` (linear interpolation).
    """
    j, p = np.asarray(judge, dtype=float), np.asarray(people, dtype=float)
    n = len(j)
    if n < 2 or resamples < 1:
        return dict.fromkeys(STATISTICS)
    rng = np.random.default_rng(seed)
    values: dict[str, list[float]] = {name: [] for name in STATISTICS}
    for _ in range(resamples):
        idx = rng.integers(0, n, n)
        for name, value in agreement(j[idx], p[idx]).items():
            if value is not None:
                values[name].append(value)
    tail = (1 - CONFIDENCE) / 2 * 100
    out: dict[str, tuple[float, float] | None] = {}
    for name, vs in values.items():
        if not vs:
            out[name] = None
            continue
        low, high = np.percentile(vs, [tail, 100 - tail])
        out[name] = (float(low), float(high))
    return out


def people_alpha(ratings: Mapping[str, Mapping[str, int]]) -> tuple[float | None, str | None]:
    """Krippendorff's alpha (ordinal, values 1-5) of the people: how far they agree among themselves.

    `ratings` maps a conversation to {rater: score}. Returns (alpha, None), or (None, reason) when
    alpha is undefined: no conversation has two raters, or every rating is the same value.
    """
    raters = sorted({r for by_rater in ratings.values() for r in by_rater})
    units = [u for u, by_rater in ratings.items() if len(by_rater) >= 2]
    if not units:
        return None, "one rater per conversation: the people's agreement cannot be measured"
    data = np.full((len(raters), len(units)), np.nan)
    for col, unit in enumerate(units):
        for rater, score in ratings[unit].items():
            data[raters.index(rater), col] = score
    values = data[~np.isnan(data)]
    if np.all(values == values[0]):
        return None, "every rating is the same value: the people's agreement is undefined"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import krippendorff

        alpha = krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal",
                                   value_domain=list(SCALE))
    value = _finite(alpha)
    return (value, None) if value is not None else (None, "undefined on these ratings")
