"""Seeded fault injection and simulated latency for stubs.

Both draw from `random.Random(stable_seed(...))`, keyed by the conversation, the run seed, the tool
and the tool's call counter, so the same calls in the same order meet the same faults and the same
latencies in every process.
"""

from __future__ import annotations

import copy
import math
import random
from typing import Any

from .._hashing import stable_seed
from ..models import ErrorSpec, LatencySpec


def fault_seed(conversation_id: str, seed: int, tool: str, counter: int) -> int:
    """The seed of the fault draw for the `counter`-th valid call of `tool`."""
    return stable_seed(conversation_id, seed, tool, counter)


def latency_seed(conversation_id: str, seed: int, tool: str, counter: int) -> int:
    """The seed of the latency draw for the `counter`-th valid call of `tool`."""
    return stable_seed(conversation_id, seed, tool, counter, "latency")


def draw_fault(spec: ErrorSpec | None, rng_seed: int) -> tuple[Any, str] | None:
    """Decide whether this call fails; return `(result, error kind)` or None for no fault.

    * `timeout` → `{"error": "timeout"}`
    * `server_error` → `{"error": "server_error", "status": 500}`
    * `custom` → a copy of `payload` (`{"error": "custom"}` when no payload is given)
    """
    if spec is None or spec.rate <= 0.0:
        return None
    if spec.rate < 1.0 and random.Random(rng_seed).random() >= spec.rate:
        return None
    if spec.kind == "timeout":
        return {"error": "timeout"}, "timeout"
    if spec.kind == "server_error":
        return {"error": "server_error", "status": 500}, "server_error"
    payload = copy.deepcopy(spec.payload) if spec.payload is not None else {"error": "custom"}
    return payload, "custom"


def draw_latency(spec: LatencySpec | None, rng_seed: int) -> float:
    """Simulated latency in ms: `fixed_ms` when given, else a seeded draw; never negative.

    * `uniform`: between `mean_ms - spread_ms` and `mean_ms + spread_ms`;
    * `normal`: mean `mean_ms`, standard deviation `spread_ms`, cut at 0;
    * `lognormal`: a log-normal whose own mean and standard deviation are `mean_ms` and
      `spread_ms` (always positive, long right tail).
    """
    if spec is None:
        return 0.0
    if spec.fixed_ms is not None:
        return float(spec.fixed_ms)
    mean = float(spec.mean_ms or 0.0)
    spread = float(spec.spread_ms or 0.0)
    degenerate = spread == 0.0 or (mean == 0.0 and spec.distribution == "lognormal")
    if spec.distribution is None or degenerate:
        return max(0.0, mean)
    rng = random.Random(rng_seed)
    if spec.distribution == "uniform":
        value = rng.uniform(mean - spread, mean + spread)
    elif spec.distribution == "normal":
        value = rng.gauss(mean, spread)
    else:
        sigma2 = math.log1p((spread / mean) ** 2)
        value = rng.lognormvariate(math.log(mean) - sigma2 / 2.0, math.sqrt(sigma2))
    return max(0.0, value)
