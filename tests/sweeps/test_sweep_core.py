"""Sweep points, budgeting and the leaderboard (pure)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from polygon_core.sweeps import (
    PointResult,
    SweepSpec,
    early_stop,
    estimate_point,
    expand_points,
    rank,
    refuse_reason,
)

BASE = {"sampling.temperature": 0.0, "sampling.top_p": 1.0}


def spec(**kw: object) -> SweepSpec:
    body = {"name": "s", "agent": "a.yaml", "suite": "suite",
            "parameters": {"temperature": [0.0, 0.5, 1.0], "top_p": [1.0, 0.9, 0.8]}, **kw}
    return SweepSpec.model_validate(body)


def test_one_at_a_time_runs_the_base_once_then_each_parameter_alone() -> None:
    points = expand_points(spec(), BASE)
    assert [p.values for p in points] == [
        {}, {"sampling.temperature": 0.5}, {"sampling.temperature": 1.0},
        {"sampling.top_p": 0.9}, {"sampling.top_p": 0.8}]
    assert points[0].is_base and len({p.profile for p in points}) == 5


def test_grid_runs_the_full_product() -> None:
    points = expand_points(spec(strategy="grid"), BASE)
    assert len(points) == 9 and len({p.profile for p in points}) == 9


def test_random_with_a_seed_picks_the_same_points_every_time() -> None:
    a = expand_points(spec(strategy="random", points=4, seed=7), BASE)
    b = expand_points(spec(strategy="random", points=4, seed=7), BASE)
    c = expand_points(spec(strategy="random", points=4, seed=8), BASE)
    assert [p.values for p in a] == [p.values for p in b]
    assert len(a) == 4 and [p.values for p in a] != [p.values for p in c]


def test_ranges_and_bad_specs() -> None:
    s = spec(parameters={"top_p": {"range": {"start": 0.5, "stop": 1.0, "step": 0.25}}}, strategy="grid")
    assert [p.values["sampling.top_p"] for p in expand_points(s, {})] == [0.5, 0.75, 1.0]
    with pytest.raises(ValidationError, match="unknown parameter"):
        spec(parameters={"temprature": [0.1]})
    with pytest.raises(ValidationError, match="needs `points`"):
        spec(strategy="random")


def test_budget_uses_the_stated_estimate_then_measured_tokens_per_turn() -> None:
    stated = estimate_point(conversations=4, turns_per_conversation=10, measured_tokens=0,
                            measured_turns=0, stated_per_turn=50)
    assert (stated.tokens, stated.source) == (2000, "stated")
    measured = estimate_point(conversations=4, turns_per_conversation=10, measured_tokens=900,
                              measured_turns=30, stated_per_turn=50)
    assert (measured.tokens, measured.per_turn, measured.source) == (1200, 30.0, "measured")
    assert refuse_reason(used=1000, estimate=measured, cap=2200) is None
    assert refuse_reason(used=1001, estimate=measured, cap=2200) == (
        "estimated 1200 tokens (measured, 30.0 per turn) would take the sweep to 2201, past the cap of 2200")


def _p(profile: str, mean: float | None, spread: float | None, speed: float | None) -> PointResult:
    return PointResult(profile=profile, label=profile, run_id=profile, mean_composite=mean,
                       spread_across_seeds=spread, median_latency_per_turn_ms=speed)


def test_leaderboard_orders_by_mean_then_stability_then_speed() -> None:
    points = [_p("a", 80.0, 2.0, 10.0), _p("b", 90.0, 5.0, 50.0), _p("c", 80.0, 1.0, 90.0),
              _p("d", 80.0, 1.0, 20.0), _p("e", None, 0.0, 1.0), _p("f", 80.0, 1.0, 20.0)]
    assert [p.profile for p in rank(points)] == ["b", "d", "f", "c", "a", "e"]


def test_early_stop_only_after_a_first_point_below_the_floor() -> None:
    assert early_stop([_p("x", 40.0, 0, 0)], 50.0) is not None
    assert early_stop([_p("x", 50.0, 0, 0)], 50.0) is None
    assert early_stop([_p("x", 40.0, 0, 0), _p("y", 40.0, 0, 0)], 50.0) is None
    assert early_stop([_p("x", 40.0, 0, 0)], None) is None


def test_points_of_one_profile_run_once_the_first_kept() -> None:
    from polygon_core.sweeps import SweepPoint, distinct_points

    points = [SweepPoint(index=0, is_base=True), SweepPoint(index=1, values={"noise": 0.0}),
              SweepPoint(index=2, values={"noise": 0.5}), SweepPoint(index=3, values={"stub_error_rate": 0.0})]
    kept, same = distinct_points(points, ["p-base", "p-base", "p-noise", "p-base"])
    assert [p.index for p in kept] == [0, 2]
    assert [(s.label, s.same_as, s.profile) for s in same] == [
        ("noise=0.0", "base", "p-base"), ("stub_error_rate=0.0", "base", "p-base")]
