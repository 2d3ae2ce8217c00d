"""pass^k: the chance that all of k independent trials of a scenario succeed (tau-bench).

tau-bench's estimator: for a scenario run n times with c successes, C(c, k) / C(n, k) is the
unbiased estimate of the probability that k trials drawn without replacement all succeed; pass^k is
its mean over scenarios. pass^1 is the plain success rate; pass^k falls as k grows unless the agent
is reliable, which is what it is for.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from math import comb
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._scorecard import ResultRow


def pass_hat_k(trials: Mapping[str, Sequence[bool]] | Iterable[tuple[int, int]], k: int) -> float | None:
    """Mean over scenarios of C(c, k) / C(n, k).

    Args:
        trials: either scenario → list of per-trial successes, or (successes c, trials n) pairs.
        k: how many trials must all succeed (k ≥ 1).

    Scenarios with fewer than k trials cannot estimate pass^k and are left out; None when no
    scenario has k trials. 2 successes of 4 trials at k=2 → 1/6; all successes → 1.
    """
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    pairs: list[tuple[int, int]]
    if isinstance(trials, Mapping):
        pairs = [(sum(bool(x) for x in seq), len(seq)) for seq in trials.values()]
    else:
        pairs = [(int(c), int(n)) for c, n in trials]
    for c, n in pairs:
        if not 0 <= c <= n:
            raise ValueError(f"successes must be within 0..{n}, got {c}")
    usable = [(c, n) for c, n in pairs if n >= k]
    if not usable:
        return None
    return sum(comb(c, k) / comb(n, k) for c, n in usable) / len(usable)


def pass_hat_k_by_seed(rows: Sequence[ResultRow], max_k: int | None = None) -> dict[int, float]:
    """pass^k for k = 1 … (most seeds any scenario has), a trial succeeding on a pass verdict.

    Rows without a verdict (provider or simulator errors, nothing scored) are not trials.
    """
    trials: dict[str, list[bool]] = defaultdict(list)
    for r in rows:
        if r.verdict is not None:
            trials[r.scenario_id].append(r.verdict == "pass")
    top = max((len(v) for v in trials.values()), default=0)
    if max_k is not None:
        top = min(top, max_k)
    counts = [(sum(v), len(v)) for v in trials.values()]  # once, not once per k
    out: dict[int, float] = {}
    for k in range(1, top + 1):
        value = pass_hat_k(counts, k)
        if value is not None:
            out[k] = round(value, 4)
    return out
