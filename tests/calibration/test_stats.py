"""Each calibration statistic pinned against scipy / scikit-learn / krippendorff on fixed data."""

from __future__ import annotations

import warnings

import krippendorff
import numpy as np
import pytest
from scipy.stats import kendalltau, spearmanr
from sklearn.metrics import cohen_kappa_score

from polygon_core.calibration import (
    agreement,
    bootstrap_intervals,
    overall_from_composite,
    people_alpha,
    round_scores,
)

# Twelve conversations: the judge's values on the 1-5 scale (a criterion median may be x.5) and the
# mean of the people's ratings.
JUDGE = [5.0, 4.0, 4.5, 2.0, 1.0, 3.0, 5.0, 3.5, 2.0, 4.0, 1.5, 3.0]
PEOPLE = [4.666666666666667, 4.0, 3.5, 2.5, 1.0, 3.0, 4.0, 4.0, 1.333333333333333, 5.0, 2.0, 2.0]
J_ROUND = [5, 4, 5, 2, 1, 3, 5, 4, 2, 4, 2, 3]
P_ROUND = [5, 4, 4, 3, 1, 3, 4, 4, 1, 5, 2, 2]


def test_rounding_is_half_up() -> None:
    assert round_scores([2.5, 3.5, 1.4999, 4.5, 1.0]).tolist() == [3, 4, 1, 5, 1]
    assert round_scores(JUDGE).tolist() == J_ROUND
    assert round_scores(PEOPLE).tolist() == P_ROUND


def test_composite_maps_onto_one_to_five() -> None:
    assert [overall_from_composite(c) for c in (0.0, 25.0, 50.0, 81.25, 100.0)] == [1.0, 2.0, 3.0, 4.25, 5.0]


def test_each_statistic_equals_the_library() -> None:
    got = agreement(JUDGE, PEOPLE)
    assert got["rho"] == pytest.approx(spearmanr(JUDGE, PEOPLE).statistic, abs=1e-12)
    assert got["tau"] == pytest.approx(kendalltau(JUDGE, PEOPLE).statistic, abs=1e-12)
    assert got["kappa"] == pytest.approx(
        cohen_kappa_score(J_ROUND, P_ROUND, weights="quadratic", labels=[1, 2, 3, 4, 5]), abs=1e-12)
    # Rounded pairs equal in 6 of 12, at most one apart in all 12; bias = mean(judge - people).
    assert got["exact"] == 0.5
    assert got["within_one"] == 1.0
    assert got["bias"] == pytest.approx(float(np.mean(np.array(JUDGE) - np.array(PEOPLE))), abs=1e-12)
    assert got["bias"] == 0.125  # (38.5 - 37.0) / 12
    # And the library values themselves, so a change of definition (tau-a, linear weights) shows.
    assert round(got["rho"], 6) == 0.847248
    assert round(got["tau"], 6) == 0.709677
    assert got["kappa"] == 0.859375


def test_undefined_statistics_are_none() -> None:
    # Constant judge: no ranking, kappa 0/0; the agreement shares and bias are still defined.
    got = agreement([3.0, 3.0, 3.0], [1.0, 3.0, 5.0])
    assert got == {"rho": None, "tau": None, "kappa": 0.0, "exact": pytest.approx(1 / 3),
                   "within_one": pytest.approx(1 / 3), "bias": 0.0}
    assert agreement([4.0], [2.0]) == dict.fromkeys(("rho", "tau", "kappa", "exact", "within_one", "bias"))


def _reference_bootstrap(seed: int, resamples: int) -> dict[str, tuple[float, float]]:
    """The documented bootstrap, written out with the libraries in the test."""
    j, p = np.array(JUDGE), np.array(PEOPLE)
    rng = np.random.default_rng(seed)
    values: dict[str, list[float]] = {k: [] for k in ("rho", "tau", "kappa", "exact", "within_one", "bias")}
    for _ in range(resamples):
        idx = rng.integers(0, len(j), len(j))
        jj, pp = j[idx], p[idx]
        jr, pr = np.floor(jj + 0.5).astype(int), np.floor(pp + 0.5).astype(int)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # constant resamples: the libraries warn, then NaN
            candidates = {
                "rho": spearmanr(jj, pp).statistic,
                "tau": kendalltau(jj, pp).statistic,
                "kappa": cohen_kappa_score(jr, pr, weights="quadratic", labels=[1, 2, 3, 4, 5]),
                "exact": np.mean(jr == pr),
                "within_one": np.mean(np.abs(jr - pr) <= 1),
                "bias": np.mean(jj - pp),
            }
        for k, v in candidates.items():
            if np.isfinite(v):
                values[k].append(float(v))
    return {k: tuple(float(x) for x in np.percentile(v, [2.5, 97.5])) for k, v in values.items()}


@pytest.mark.parametrize(("seed", "resamples"), [(0, 200), (7, 100)])
def test_interval_is_the_seeded_percentile_bootstrap(seed: int, resamples: int) -> None:
    got = bootstrap_intervals(JUDGE, PEOPLE, seed=seed, resamples=resamples)
    want = _reference_bootstrap(seed, resamples)
    assert set(got) == set(want)
    for name, (low, high) in want.items():
        assert got[name] == (pytest.approx(low, abs=1e-12), pytest.approx(high, abs=1e-12)), name
        assert low <= agreement(JUDGE, PEOPLE)[name] <= high, name


def test_interval_depends_on_the_seed_only() -> None:
    a = bootstrap_intervals(JUDGE, PEOPLE, seed=3, resamples=100)
    assert bootstrap_intervals(JUDGE, PEOPLE, seed=3, resamples=100) == a
    assert bootstrap_intervals(JUDGE, PEOPLE, seed=4, resamples=100) != a


def test_people_alpha_equals_krippendorff_ordinal() -> None:
    ratings = {
        "c1": {"amara": 5, "bo": 5, "carmen": 4},
        "c2": {"amara": 2, "bo": 1},
        "c3": {"amara": 3, "bo": 4, "carmen": 3},
        "c4": {"bo": 1, "carmen": 2},
        "c5": {"amara": 4, "carmen": 5},
        "c6": {"amara": 5},  # one rater: no pair, so it adds nothing to alpha
    }
    nan = np.nan
    data = [[5, 2, 3, nan, 4], [5, 1, 4, 1, nan], [4, nan, 3, 2, 5]]  # raters x conversations c1..c5
    want = krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal", value_domain=[1, 2, 3, 4, 5])
    alpha, reason = people_alpha(ratings)
    assert reason is None
    assert alpha == pytest.approx(want, abs=1e-12)
    assert round(alpha, 6) == 0.785


def test_people_alpha_needs_two_raters_and_some_variation() -> None:
    assert people_alpha({"c1": {"a": 4}, "c2": {"b": 2}}) == (
        None, "one rater per conversation: the people's agreement cannot be measured")
    assert people_alpha({"c1": {"a": 4, "b": 4}, "c2": {"a": 4, "b": 4}}) == (
        None, "every rating is the same value: the people's agreement is undefined")
