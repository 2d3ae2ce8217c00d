"""Noise-aware differences: paired by scenario and seed, labelled better / worse / within noise."""

from __future__ import annotations

from polygon_core.compare import (
    ResultRow,
    label_difference,
    noise_floor,
    paired_difference,
)

SCENARIOS = [f"s{i}" for i in range(10)]
SEEDS = [0, 1, 2]
# A baseline whose composite varies by scenario and seed, as real results do.
BASE = {(s, seed): 60.0 + 3 * i + 2 * seed for i, s in enumerate(SCENARIOS) for seed in SEEDS}


def rows(values: dict[tuple[str, int], float], gates: frozenset[str] = frozenset()) -> list[ResultRow]:
    return [ResultRow(conversation_id=f"{s}-{seed}", scenario_id=s, seed=seed, caller_type="busy", difficulty=2,
                      end_reason="caller_hangup", composite=v, verdict="pass" if v >= 75 else "warn",
                      gates=sorted(gates), criteria={"goal_completion": 1 + v / 25})
            for (s, seed), v in values.items()]


def test_configuration_against_itself_over_repeated_seeds_is_within_noise() -> None:
    d = paired_difference(rows(BASE), rows(BASE), baseline="a", candidate="a again")
    assert (d.pairs, d.delta, d.ci_low, d.ci_high, d.label) == (30, 0.0, 0.0, 0.0, "within noise")


def test_symmetric_jitter_between_repeats_is_within_noise() -> None:
    jitter = {k: v + (5.0 if (i % 2) else -5.0) for i, (k, v) in enumerate(BASE.items())}
    d = paired_difference(rows(BASE), rows(jitter))
    assert d.delta == 0.0 and d.ci_low < 0 < d.ci_high and d.label == "within noise"


def test_planted_regression_on_half_the_scenarios_is_worse() -> None:
    planted = {(s, seed): v - 30.0 if s in SCENARIOS[:5] else v for (s, seed), v in BASE.items()}
    d = paired_difference(rows(BASE), rows(planted), baseline="v1", candidate="v2")
    assert d.pairs == 30 and d.delta == -15.0
    assert d.ci_high < 0 and d.label == "worse"
    assert (d.baseline_mean, d.candidate_mean) == (75.5, 60.5)
    # The same difference the other way round is better.
    assert paired_difference(rows(planted), rows(BASE)).label == "better"
    # A noise floor larger than the drop makes it within noise; a smaller one does not.
    assert paired_difference(rows(BASE), rows(planted), noise_floor=20.0).label == "within noise"
    assert paired_difference(rows(BASE), rows(planted), noise_floor=10.0).label == "worse"


def test_the_bootstrap_is_seeded() -> None:
    jitter = {k: v + (i % 7) - 3 for i, (k, v) in enumerate(BASE.items())}
    a = paired_difference(rows(BASE), rows(jitter), seed=3)
    b = paired_difference(rows(BASE), rows(jitter), seed=3)
    assert (a.ci_low, a.ci_high) == (b.ci_low, b.ci_high)


def test_unpaired_and_unscored_results_drop_out() -> None:
    base = rows(BASE)
    cand = rows({k: v for k, v in BASE.items() if k[0] != "s0"})
    cand[0] = cand[0].model_copy(update={"end_reason": "provider_error", "composite": None})
    d = paired_difference(base, cand)
    assert d.pairs == 26
    single = paired_difference(base[:1], base[:1])
    assert single.pairs == 1 and single.ci_low is None and single.label == "within noise"


def test_label_rule() -> None:
    assert label_difference(-5.0, (-8.0, -1.0)) == "worse"
    assert label_difference(-5.0, (-8.0, 0.5)) == "within noise"
    assert label_difference(5.0, (1.0, 9.0)) == "better"
    assert label_difference(5.0, (1.0, 9.0), noise_floor=5.0) == "within noise"
    assert label_difference(None, None) == "within noise"


def test_noise_floor_is_the_largest_mean_drift_between_repeats() -> None:
    up = {k: v + 2.0 for k, v in BASE.items()}
    down = {k: v - 1.5 for k, v in BASE.items()}
    floor = noise_floor([("r1", rows(BASE)), ("r2", rows(up)), ("r3", rows(down))])
    assert floor is not None
    assert (floor.runs, floor.pairs, floor.value) == (["r1", "r2", "r3"], 90, 3.5)
    assert noise_floor([("r1", rows(BASE))]) is None
