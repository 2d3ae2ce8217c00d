"""Intervals of a mean: a seeded percentile bootstrap, or the normal approximation for large samples.

The bootstrap draws `resamples × n` indices. At 100,000 conversations that is 200 million draws per
interval (seconds each, and 1.6 GB if drawn at once), and a comparison draws dozens of intervals. So:

* resamples are drawn in blocks of at most `_BLOCK` indices: the same generator gives the same
  stream block by block, so every interval is bit-identical to drawing all at once, in bounded memory;
* from `LARGE_SAMPLE` values on, the interval is the normal approximation (mean ± z·s/√n), which the
  percentile bootstrap of a mean converges to; at that size the two differ by less than the
  bootstrap's own resampling error. The method string of every interval says which was used.
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import NormalDist

import numpy as np

LARGE_SAMPLE = 10_000
_BLOCK = 4_000_000  # indices per block: 32 MB of int64


def bootstrap_means(values: Sequence[float] | np.ndarray, *, seed: int, resamples: int) -> np.ndarray:
    """The means of `resamples` seeded resamples (with replacement) of `values`, drawn block by block.

    Equal, value for value, to `default_rng(seed).choice(values, (resamples, n)).mean(axis=1)`.
    """
    data = np.asarray(values, dtype=float)
    n = len(data)
    rng = np.random.default_rng(seed)
    rows = max(1, _BLOCK // max(n, 1))
    means = np.empty(resamples)
    for start in range(0, resamples, rows):
        k = min(rows, resamples - start)
        means[start:start + k] = data[rng.integers(0, n, size=(k, n))].mean(axis=1)
    return means


def normal_interval(values: Sequence[float] | np.ndarray, confidence: float = 0.95) -> tuple[float, float]:
    """mean ± z·s/√n (s with n − 1), the large-sample interval of a mean."""
    data = np.asarray(values, dtype=float)
    z = NormalDist().inv_cdf(1 - (1 - confidence) / 2)
    half = z * float(np.std(data, ddof=1)) / float(np.sqrt(len(data)))
    mean = float(np.mean(data))
    return mean - half, mean + half


def normal_method(n: int, unit: str, confidence: int = 95) -> str:
    """How a large-sample interval was made, for the method strings shown beside it."""
    return (f"normal approximation over {n} {unit} (≥ {LARGE_SAMPLE}: the bootstrap's interval to within "
            f"its resampling error), {confidence}%")
