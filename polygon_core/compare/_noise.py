"""Noise-aware differences: paired comparisons by scenario and seed, and a configuration's noise floor.

Two configurations meet the same callers (the conversation id leaves the agent out), so their
results pair up by (scenario, seed). A difference is the mean of the paired differences (candidate
minus baseline) with a seeded paired-bootstrap 95% interval (resampling pairs). It is labelled:

* ``worse``: the interval lies wholly below zero and the drop is larger than the noise floor;
* ``better``: the interval lies wholly above zero and the gain is larger than the noise floor;
* ``within noise``: otherwise, including a single pair (no interval can be drawn);
* ``no pairs``: no (scenario, seed) of the candidate has a scored partner in the baseline with a
  value of the metric: there is nothing to compare, which is not "no difference".

For a metric where lower is better (a call's response latency, `voice:response_latency`) the
labels swap: an interval wholly above zero is ``worse``.

The noise floor of a configuration is the largest absolute difference of mean composite between two
repeated runs of it (paired the same way): what "no change at all" looks like for that
configuration. A difference must beat the larger floor of the two sides.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import combinations
from typing import Literal

import numpy as np

from .._hashing import stable_seed
from ..models import UNSCORED_END_REASONS, DomainModel
from ._resample import LARGE_SAMPLE, bootstrap_means, normal_interval, normal_method
from ._scorecard import ResultRow

Label = Literal["better", "worse", "within noise", "no pairs"]
RESAMPLES = 2000
_UNSCORED = {str(r.value) for r in UNSCORED_END_REASONS}
Metric = Callable[[ResultRow], float | None]


class Difference(DomainModel):
    """A paired difference (candidate − baseline) and its label."""

    metric: str
    scope: str = "overall"
    baseline: str
    candidate: str
    pairs: int
    baseline_mean: float | None = None
    candidate_mean: float | None = None
    delta: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    noise_floor: float = 0.0
    label: Label = "within noise"
    method: str = f"paired bootstrap over (scenario, seed), {RESAMPLES} resamples, 95%"


class NoiseFloor(DomainModel):
    """How far repeated runs of one configuration drift apart."""

    runs: list[str]
    pairs: int
    value: float
    method: str = "largest |mean paired composite difference| between repeated runs"


def composite(row: ResultRow) -> float | None:
    """The composite, the default metric."""
    return row.composite


def criterion(name: str) -> Metric:
    """A metric reading one criterion's aggregated score."""
    def read(row: ResultRow) -> float | None:
        return row.criteria.get(name)
    return read


def _paired(base: Sequence[ResultRow], cand: Sequence[ResultRow],
            metric: Metric) -> list[tuple[float, float]]:
    index = {(r.scenario_id, r.seed): r for r in base if r.end_reason not in _UNSCORED}
    pairs = []
    for r in sorted(cand, key=lambda x: (x.scenario_id, x.seed)):
        other = index.get((r.scenario_id, r.seed))
        if other is None or r.end_reason in _UNSCORED:
            continue
        a, b = metric(other), metric(r)
        if a is not None and b is not None:
            pairs.append((float(a), float(b)))
    return pairs


def call_metric(name: str) -> Metric:
    """A metric reading one of a call's interaction metrics (None on a text conversation, or where
    the call has no value of it)."""
    def read(row: ResultRow) -> float | None:
        found = row.voice.get(name)
        return None if found is None else found.value
    return read


def label_difference(delta: float | None, ci: tuple[float, float] | None, noise_floor: float = 0.0,
                     *, higher_is_better: bool = True) -> Label:
    """better / worse / within noise from a paired interval and the noise floor (see module doc)."""
    if delta is None or ci is None:
        return "within noise"
    if not higher_is_better:  # a rise is a loss: label the mirrored difference
        delta, ci = -delta, (-ci[1], -ci[0])
    if ci[1] < 0 and -delta > noise_floor:
        return "worse"
    if ci[0] > 0 and delta > noise_floor:
        return "better"
    return "within noise"


def paired_bootstrap(diffs: Sequence[float], *, seed: int = 0,
                     resamples: int = RESAMPLES) -> tuple[float, float] | None:
    """Percentile interval of the mean paired difference, resampling pairs; None under two pairs.

    From `LARGE_SAMPLE` pairs on, the normal approximation (see `_resample`)."""
    if len(diffs) < 2:
        return None
    if len(diffs) >= LARGE_SAMPLE:
        return normal_interval(diffs)
    means = bootstrap_means(diffs, seed=seed, resamples=resamples)
    return float(np.quantile(means, 0.025)), float(np.quantile(means, 0.975))


def paired_difference(base: Sequence[ResultRow], cand: Sequence[ResultRow], *, baseline: str = "baseline",
                      candidate: str = "candidate", metric: Metric = composite,
                      metric_name: str = "composite", scope: str = "overall",
                      noise_floor: float = 0.0, seed: int = 0, higher_is_better: bool = True) -> Difference:
    """Pair `base` and `cand` by (scenario, seed) and label the mean difference.

    Unscored conversations (provider or simulator errors, no value) drop out of both sides. The
    bootstrap is seeded from `seed`, the metric and the scope, so one comparison always gives the
    same interval. `higher_is_better=False` (a latency) labels a rise `worse`.
    """
    pairs = _paired(base, cand, metric)
    if not pairs:
        return Difference(metric=metric_name, scope=scope, baseline=baseline, candidate=candidate,
                          pairs=0, noise_floor=noise_floor, label="no pairs")
    diffs = [b - a for a, b in pairs]
    delta = float(np.mean(diffs))
    ci = paired_bootstrap(diffs, seed=stable_seed("paired", seed, metric_name, scope) % 2**32)
    return Difference(
        metric=metric_name, scope=scope, baseline=baseline, candidate=candidate, pairs=len(pairs),
        baseline_mean=round(float(np.mean([a for a, _ in pairs])), 4),
        candidate_mean=round(float(np.mean([b for _, b in pairs])), 4),
        delta=round(delta, 4), ci_low=None if ci is None else round(ci[0], 4),
        ci_high=None if ci is None else round(ci[1], 4), noise_floor=noise_floor,
        label=label_difference(delta, ci, noise_floor, higher_is_better=higher_is_better),
        method=(normal_method(len(pairs), "pairs") if len(pairs) >= LARGE_SAMPLE
                else Difference.model_fields["method"].default),
    )


def noise_floor(repeats: Sequence[tuple[str, Sequence[ResultRow]]]) -> NoiseFloor | None:
    """The noise floor from two or more repeated runs of one configuration, or None with fewer."""
    if len(repeats) < 2:
        return None
    worst, pairs = 0.0, 0
    for (_, a), (_, b) in combinations(repeats, 2):
        paired = _paired(a, b, composite)
        if paired:
            pairs += len(paired)
            worst = max(worst, abs(float(np.mean([y - x for x, y in paired]))))
    return NoiseFloor(runs=[rid for rid, _ in repeats], pairs=pairs, value=round(worst, 4))
