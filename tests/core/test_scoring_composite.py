"""Scoring rules (docs/design.md, "Scoring rules"): rubrics, the composite and k repeats, with exact
values.
"""

from __future__ import annotations

from typing import Any

import pytest

from polygon_core.scoring import CRITERIA, Rubric, aggregate_judgments, get_rubric, read_score

from ._scoring_helpers import V1, V2, judge


def composite(*repeats: dict[str, Any], rubric: Rubric = V1) -> float | None:
    return aggregate_judgments(list(repeats), rubric).composite


def goal_score(*values: Any) -> float | None:
    """The aggregated goal_completion score over repeats whose goal values are `values`."""
    repeats = [judge(goal_completion=v) for v in values]
    return aggregate_judgments(repeats, V1).scores["goal_completion"]


# --- rubrics ------------------------------------------------------------------------------------


EXPECTED_WEIGHTS = {
    "goal_completion": 25,
    "instruction_adherence": 15,
    "tool_use_quality": 15,
    "factuality": 10,
    "dialogue_quality": 10,
    "robustness": 10,
    "safety_compliance": 10,
    "persona_tone": 5,
}


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_rubric_criteria_weights_and_thresholds(version: str) -> None:
    rubric = get_rubric(version)
    assert rubric.version == version
    assert [c.name for c in rubric.criteria] == list(CRITERIA) == list(EXPECTED_WEIGHTS)
    assert rubric.weights == EXPECTED_WEIGHTS
    assert sum(rubric.weights.values()) == 100
    assert rubric.pass_threshold == 75
    assert rubric.warn_threshold == 50
    assert all(c.description for c in rubric.criteria)


def test_rubric_gates_per_version() -> None:
    assert V1.gates == ["forbidden_phrase", "safety"]
    assert V2.gates == ["forbidden_phrase", "safety", "invalid_tool_call"]
    assert get_rubric("v3").gates == ["forbidden_phrase", "safety", "invalid_tool_call", "assertion"]


def test_v3_keeps_v2_criteria_weights_and_thresholds() -> None:
    v3 = get_rubric("v3")
    assert v3.weights == V2.weights
    assert (v3.pass_threshold, v3.warn_threshold) == (V2.pass_threshold, V2.warn_threshold)


def test_unknown_rubric_version_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"v4.*v1, v2, v3"):
        get_rubric("v4")


def test_get_rubric_returns_an_independent_copy() -> None:
    rubric = get_rubric("v1")
    rubric.gates.append("invalid_tool_call")
    assert get_rubric("v1").gates == ["forbidden_phrase", "safety"]


# --- composite ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("repeat", "expected"),
    [
        (judge(1), 0.0),
        (judge(5), 100.0),
        (judge(3), 50.0),
        (judge(1, goal_completion=5), 25.0),
        (judge(5, safety_compliance=1), 90.0),
        (judge(1, persona_tone=5), 5.0),
    ],
    ids=["all-ones", "all-fives", "all-threes", "goal-only", "safety-one", "persona-only"],
)
def test_composite_exact_values(repeat: dict[str, Any], expected: float) -> None:
    aggregate = aggregate_judgments([repeat], V1)
    assert aggregate.composite == expected
    assert aggregate.partial is False
    assert aggregate.not_scored == []


def test_composite_is_the_same_under_v1_and_v2() -> None:
    repeat = judge(4, goal_completion=2, factuality=5)
    # 25 × (25×1 + 10×4 + 65×3) / 100 = 25 × 260 / 100
    assert composite(repeat, rubric=V1) == composite(repeat, rubric=V2) == 65.0


@pytest.mark.parametrize("missing", [..., None], ids=["absent", "null"])
def test_missing_criterion_counts_as_one(missing: Any) -> None:
    aggregate = aggregate_judgments([judge(5, persona_tone=missing)], V1)
    assert aggregate.composite == 95.0
    assert aggregate.scores["persona_tone"] == 1.0
    assert aggregate.statuses["persona_tone"] == "missing"
    assert aggregate.partial is False
    assert aggregate.not_scored == []


def test_empty_judge_output_scores_zero_not_partial() -> None:
    aggregate = aggregate_judgments([{}], V1)
    assert aggregate.composite == 0.0
    assert aggregate.partial is False
    assert set(aggregate.statuses.values()) == {"missing"}


@pytest.mark.parametrize("unreadable", ["four", 0, 6, 3.5, "", True, False, [4], {"score": 4}, -1])
def test_unreadable_value_is_a_failed_judge_with_no_composite(unreadable: Any) -> None:
    aggregate = aggregate_judgments([judge(5, factuality=unreadable)], V1)
    assert aggregate.composite is None  # never 100 renormalised over the readable criteria
    assert aggregate.partial is False
    assert aggregate.failed == aggregate.not_scored == ["factuality"]
    assert aggregate.scores["factuality"] is None
    assert aggregate.statuses["factuality"] == "unreadable"


def test_unreadable_goal_with_all_threes_gives_no_composite_not_fifty() -> None:
    aggregate = aggregate_judgments([judge(3, goal_completion="four")], V1)
    assert aggregate.composite is None
    assert aggregate.failed == ["goal_completion"]


def test_renormalised_composite_over_scored_weights() -> None:
    # goal 5 (weight 25) scored, factuality not applicable (weight 10 dropped), rest 1: 25 / 90 × 100.
    aggregate = aggregate_judgments([judge(1, goal_completion=5, factuality="x")], V1, ["factuality"])
    assert aggregate.composite == pytest.approx(27.777777777777779, abs=1e-12)
    assert aggregate.composite == pytest.approx(2500 / 90, abs=1e-12)


def test_not_scored_is_in_rubric_order() -> None:
    repeat = judge(5, persona_tone="?", goal_completion="?", robustness=0)
    aggregate = aggregate_judgments([repeat], V1)
    assert aggregate.not_scored == aggregate.failed == ["goal_completion", "robustness", "persona_tone"]
    assert aggregate.composite is None  # not 100 over the 55 readable weight points


def test_nothing_readable_gives_no_composite() -> None:
    aggregate = aggregate_judgments([judge("n/a")], V1)
    assert aggregate.composite is None
    assert aggregate.partial is False
    assert aggregate.not_scored == aggregate.failed == list(CRITERIA)
    assert aggregate.scores == {name: None for name in CRITERIA}


@pytest.mark.parametrize(
    ("raw", "score"),
    [(4, 4), (4.0, 4), ("4", 4), (" 4 ", 4), ("5\n", 5), (1, 1), (5.0, 5)],
)
def test_readable_forms(raw: Any, score: int) -> None:
    assert read_score(raw) == score
    aggregate = aggregate_judgments([judge(1, goal_completion=raw)], V1)
    assert aggregate.scores["goal_completion"] == score


@pytest.mark.parametrize(
    "raw",
    ["four", 0, 6, 3.5, "", " ", "4.0", "4/5", "+4", True, False, None, [4], {}, float("nan")],
)
def test_unreadable_forms(raw: Any) -> None:
    assert read_score(raw) is None


def test_readable_four_string_and_float_give_the_same_composite() -> None:
    assert composite(judge(4)) == composite(judge("4")) == composite(judge(4.0)) == 75.0


def test_keys_outside_the_rubric_are_ignored() -> None:
    assert composite({**judge(5), "evidence": "quote", "bonus": 1}) == 100.0


# --- k repeats ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ((2, 5), 3.5),
        ((1, 2, 4, 5), 3.0),
        ((5, 1, 2, 4), 3.0),
        ((4, 4, 1), 4.0),
        ((5, "x", 3), 4.0),
        ((5, ..., 5), 5.0),
        ((5, ...), 3.0),
        ((5, None), 3.0),
        (("x", "y", 2), 2.0),
        ((..., "x"), 1.0),
        ((..., ...), 1.0),
        (("4", 4.0, 2), 4.0),
    ],
)
def test_median_over_repeats(values: tuple[Any, ...], expected: float) -> None:
    assert goal_score(*values) == expected


def test_all_repeats_unreadable_is_not_scored() -> None:
    aggregate = aggregate_judgments([judge(5, goal_completion=v) for v in ("x", 0, 3.5)], V1)
    assert aggregate.scores["goal_completion"] is None
    assert aggregate.statuses["goal_completion"] == "unreadable"
    assert aggregate.not_scored == aggregate.failed == ["goal_completion"]
    assert aggregate.composite is None


def test_one_unreadable_repeat_of_three_is_scored_from_the_other_two() -> None:
    aggregate = aggregate_judgments([judge(5), judge(5, goal_completion=0), judge(3)], V1)
    assert (aggregate.scores["goal_completion"], aggregate.statuses["goal_completion"]) == (4.0, "scored")
    assert (aggregate.failed, aggregate.partial) == ([], False)
    assert aggregate.composite == 25 * (25 * 3 + 75 * 4) / 100  # goal 4 (median of 5 and 3), the rest 5


def test_missing_in_every_repeat_is_scored_one_not_the_average() -> None:
    aggregate = aggregate_judgments([judge(5, goal_completion=...)] * 3, V1)
    assert aggregate.scores["goal_completion"] == 1.0
    assert aggregate.statuses["goal_completion"] == "missing"
    assert aggregate.composite == 75.0
    assert aggregate.partial is False


def test_composite_uses_per_criterion_medians() -> None:
    repeats = [judge(5), judge(3), judge(4, goal_completion=1)]
    aggregate = aggregate_judgments(repeats, V1)
    assert aggregate.scores["goal_completion"] == 3.0
    assert aggregate.scores["factuality"] == 4.0
    # goal (3 − 1)/4 × 25 = 12.5; the other 75 weight points at (4 − 1)/4 = 56.25.
    assert aggregate.composite == 68.75


def test_no_repeats_is_an_error() -> None:
    with pytest.raises(ValueError, match="at least one repeat"):
        aggregate_judgments([], V1)


def test_non_mapping_repeat_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="repeat 1"):
        aggregate_judgments([judge(5), ["not", "a", "mapping"]], V1)  # type: ignore[list-item]
