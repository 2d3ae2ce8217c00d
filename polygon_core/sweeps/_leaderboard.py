"""The leaderboard: mean composite, then stability across seeds, then speed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from pydantic import Field

from ..compare import ResultRow, bootstrap_ci
from ..models import DomainModel


class PointResult(DomainModel):
    """One finished point's summary."""

    profile: str
    label: str
    run_id: str
    values: dict[str, Any] = Field(default_factory=dict, description="parameter → value the point sets "
                                                                     "(the base point: none)")
    mean_composite: float | None
    ci_low: float | None = None
    ci_high: float | None = None
    spread_across_seeds: float | None = Field(None, description="std of per-seed mean composites")
    median_latency_per_turn_ms: float | None = None
    tokens: int = 0
    tokens_estimated: bool = True
    cost_usd: float | None = None
    conversations: int = 0
    turns: int = 0


def summarise_point(profile: str, label: str, run_id: str, rows: Sequence[ResultRow],
                    latencies_per_turn: Sequence[float], turns: int,
                    cost_usd: float | None = None, values: Mapping[str, Any] | None = None) -> PointResult:
    """Summarise one point's result rows; `values` are the parameter values the point sets."""
    scored = [r.composite for r in rows if r.composite is not None]
    by_seed: dict[int, list[float]] = {}
    for r in rows:
        if r.composite is not None:
            by_seed.setdefault(r.seed, []).append(r.composite)
    seed_means = [float(np.mean(v)) for _, v in sorted(by_seed.items())]
    ci = bootstrap_ci(scored)
    return PointResult(
        profile=profile, label=label, run_id=run_id, values=dict(values or {}),
        mean_composite=round(float(np.mean(scored)), 4) if scored else None,
        ci_low=round(ci[0], 4) if ci else None, ci_high=round(ci[1], 4) if ci else None,
        spread_across_seeds=round(float(np.std(seed_means)), 4) if len(seed_means) > 1 else 0.0,
        median_latency_per_turn_ms=round(float(np.median(latencies_per_turn)), 3) if latencies_per_turn else None,
        tokens=sum(r.tokens for r in rows), tokens_estimated=any(r.tokens_estimated for r in rows),
        cost_usd=cost_usd, conversations=len(rows), turns=turns,
    )


def rank(points: Sequence[PointResult]) -> list[PointResult]:
    """Order by mean composite (high first), then spread across seeds (low first), then median
    latency per turn (low first); unscored points last, ties broken by profile for stability."""
    def key(p: PointResult) -> tuple[float, float, float, str]:
        mean = p.mean_composite if p.mean_composite is not None else float("-inf")
        spread = p.spread_across_seeds if p.spread_across_seeds is not None else float("inf")
        speed = p.median_latency_per_turn_ms if p.median_latency_per_turn_ms is not None else float("inf")
        return (-mean, spread, speed, p.profile)
    return sorted(points, key=key)


def early_stop(results: Sequence[PointResult], floor: float | None) -> str | None:
    """Why the sweep stops now: its first point scored below the floor (None to go on)."""
    if floor is None or len(results) != 1:
        return None
    first = results[0]
    score = first.mean_composite if first.mean_composite is not None else 0.0
    if score >= floor:
        return None
    return (f"the first point ({first.label}) scored {first.mean_composite} below the floor of "
            f"{floor}; the sweep stopped after one point")
