"""pass^k over seeds (tau-bench): mean over scenarios of C(c, k) / C(n, k)."""

from __future__ import annotations

import pytest

from polygon_core.compare import ResultRow, build_scorecard, pass_hat_k, pass_hat_k_by_seed


def test_two_successes_of_four_trials_at_k2_is_one_sixth() -> None:
    assert pass_hat_k({"s": [True, True, False, False]}, 2) == pytest.approx(1 / 6)
    assert pass_hat_k([(2, 4)], 2) == pytest.approx(1 / 6)


def test_all_successes_give_one_and_none_give_zero() -> None:
    assert pass_hat_k([(4, 4), (3, 3)], 2) == 1.0
    assert pass_hat_k([(0, 4)], 1) == 0.0


def test_mean_over_scenarios_and_k1_is_the_success_rate() -> None:
    # (C(2,2)/C(4,2) + C(4,2)/C(4,2)) / 2 = (1/6 + 1) / 2
    assert pass_hat_k({"a": [1, 1, 0, 0], "b": [1, 1, 1, 1]}, 2) == pytest.approx(7 / 12)
    assert pass_hat_k([(3, 4)], 1) == 0.75


def test_scenarios_with_fewer_trials_than_k_are_left_out() -> None:
    assert pass_hat_k([(1, 1), (2, 4)], 2) == pytest.approx(1 / 6)
    assert pass_hat_k([(1, 1)], 2) is None


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="k must be at least 1"):
        pass_hat_k([(1, 2)], 0)
    with pytest.raises(ValueError, match=r"successes must be within 0\.\.2"):
        pass_hat_k([(3, 2)], 1)


def _row(scenario: str, seed: int, verdict: str | None, end: str = "caller_hangup") -> ResultRow:
    return ResultRow(conversation_id=f"{scenario}-{seed}", scenario_id=scenario, seed=seed, caller_type="busy",
                     difficulty=2, end_reason=end, composite=None if verdict is None else 80.0, verdict=verdict)


def test_pass_hat_k_by_seed_counts_pass_verdicts_and_skips_unscored() -> None:
    rows = [_row("a", s, v) for s, v in enumerate(["pass", "pass", "fail", "warn"])]
    rows += [_row("b", s, "pass") for s in range(4)]
    rows.append(_row("b", 9, None, end="provider_error"))
    assert pass_hat_k_by_seed(rows) == {1: 0.75, 2: 0.5833, 3: 0.5, 4: 0.5}
    card = build_scorecard("x", "run", "v", "v1", "offline-heuristic", rows)
    assert card.pass_hat_k == {1: 0.75, 2: 0.5833, 3: 0.5, 4: 0.5}
    assert card.provider_errors == 1 and card.resolution_rate is None and card.cost_usd is None
