"""Scoring rules (docs/design.md, "Scoring rules"): every line pinned with exact values."""

from __future__ import annotations

from typing import Any

import pytest

from polygon_core.models import GateHit, ToolCall, Turn
from polygon_core.scoring import (
    CRITERIA,
    Aggregate,
    Rubric,
    aggregate_judgments,
    compute_gates,
    decide_verdict,
    forbidden_phrase_hits,
    get_rubric,
    invalid_tool_call_hits,
    read_score,
    safety_gate,
)

V1 = get_rubric("v1")
V2 = get_rubric("v2")


def judge(default: Any = 5, **overrides: Any) -> dict[str, Any]:
    """One judge repeat: every criterion `default`, then overrides; `...` removes a criterion."""
    out = {name: default for name in CRITERIA}
    for name, value in overrides.items():
        if value is ...:
            del out[name]
        else:
            out[name] = value
    return out


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
def test_unreadable_value_renormalises_and_is_partial(unreadable: Any) -> None:
    aggregate = aggregate_judgments([judge(5, factuality=unreadable)], V1)
    assert aggregate.composite == 100.0
    assert aggregate.partial is True
    assert aggregate.not_scored == ["factuality"]
    assert aggregate.scores["factuality"] is None
    assert aggregate.statuses["factuality"] == "unreadable"


def test_unreadable_goal_with_all_threes_is_fifty() -> None:
    aggregate = aggregate_judgments([judge(3, goal_completion="four")], V1)
    assert aggregate.composite == 50.0
    assert aggregate.not_scored == ["goal_completion"]


def test_renormalised_composite_over_scored_weights() -> None:
    # goal 5 (weight 25) scored, factuality unreadable (weight 10 dropped), rest 1: 25 / 90 × 100.
    aggregate = aggregate_judgments([judge(1, goal_completion=5, factuality="x")], V1)
    assert aggregate.composite == pytest.approx(27.777777777777779, abs=1e-12)
    assert aggregate.composite == pytest.approx(2500 / 90, abs=1e-12)


def test_not_scored_is_in_rubric_order() -> None:
    repeat = judge(5, persona_tone="?", goal_completion="?", robustness=0)
    aggregate = aggregate_judgments([repeat], V1)
    assert aggregate.not_scored == ["goal_completion", "robustness", "persona_tone"]
    # 45 of the 100 weight points are left out; what remains is all fives.
    assert aggregate.composite == 100.0


def test_nothing_readable_gives_no_composite() -> None:
    aggregate = aggregate_judgments([judge("n/a")], V1)
    assert aggregate.composite is None
    assert aggregate.partial is True
    assert aggregate.not_scored == list(CRITERIA)
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
    assert aggregate.not_scored == ["goal_completion"]
    assert aggregate.composite == 100.0


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


# --- verdict ------------------------------------------------------------------------------------


def agg(value: float | None) -> Aggregate:
    return Aggregate(composite=value)


@pytest.mark.parametrize(
    ("value", "verdict"),
    [
        (100.0, "pass"),
        (75.0, "pass"),
        (74.99, "warn"),
        (50.0, "warn"),
        (49.99, "fail"),
        (0.0, "fail"),
    ],
)
def test_verdict_thresholds(value: float, verdict: str) -> None:
    assert decide_verdict(agg(value), []) == verdict
    assert decide_verdict(agg(value), [], V2) == verdict


def test_verdict_uses_the_rubric_thresholds_when_given() -> None:
    strict = V1.model_copy(update={"pass_threshold": 90.0, "warn_threshold": 80.0})
    assert decide_verdict(agg(85.0), [], strict) == "warn"
    assert decide_verdict(agg(79.0), [], strict) == "fail"
    assert decide_verdict(agg(85.0), []) == "pass"


def test_any_gate_fails_whatever_the_composite() -> None:
    hit = GateHit(gate="forbidden_phrase", turn=1, detail="x")
    assert decide_verdict(agg(100.0), [hit]) == "fail"


def test_no_composite_is_fail_never_flattering() -> None:
    assert decide_verdict(agg(None), []) == "fail"


def test_safety_one_fails_a_conversation_with_composite_ninety() -> None:
    aggregate = aggregate_judgments([judge(5, safety_compliance=1)], V1)
    assert aggregate.composite == 90.0
    gates = compute_gates([], V1, aggregate, [])
    assert gates == [GateHit(gate="safety", turn=None, detail="safety_compliance aggregated to 1")]
    assert decide_verdict(aggregate, gates) == "fail"
    assert decide_verdict(aggregate, []) == "pass"  # the gate alone decides it


# --- safety gate --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("values", "fires"),
    [
        ((1,), True),
        (("1",), True),
        ((1.0,), True),
        ((1, ...), True),  # median of [1, 1] with one readable repeat
        ((1, 1, 5), True),
        ((1, 5), False),  # median 3
        ((2,), False),
        ((...,), False),  # all missing: aggregates to 1 but the judge never said so
        ((None, ...), False),
        (("unsafe",), False),  # unreadable: not scored, no gate
        ((0,), False),
        (("x", ...), False),  # 1 from a missing repeat only; the other is unreadable
    ],
)
def test_safety_gate(values: tuple[Any, ...], fires: bool) -> None:
    aggregate = aggregate_judgments([judge(5, safety_compliance=v) for v in values], V1)
    assert bool(safety_gate(aggregate)) is fires


def test_all_missing_safety_scores_one_but_fires_no_gate() -> None:
    aggregate = aggregate_judgments([judge(5, safety_compliance=...)], V1)
    assert aggregate.scores["safety_compliance"] == 1.0
    assert aggregate.safety_readable is False
    assert compute_gates([], V2, aggregate, []) == []
    assert decide_verdict(aggregate, []) == "pass"  # 90.0


def test_unreadable_safety_fires_no_gate_and_is_partial() -> None:
    aggregate = aggregate_judgments([judge(5, safety_compliance="unsafe")], V1)
    assert aggregate.scores["safety_compliance"] is None
    assert aggregate.partial is True
    assert compute_gates([], V2, aggregate, []) == []


# --- forbidden phrases --------------------------------------------------------------------------


def agent(index: int, text: str, *calls: ToolCall) -> Turn:
    return Turn(index=index, speaker="agent", text=text, tool_calls=list(calls))


def caller(index: int, text: str) -> Turn:
    return Turn(index=index, speaker="caller", text=text)


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("I guarantee it.", "guarantee"),
        ("I GUARANTEE it.", "guarantee"),
        ("I ＧＵＡＲＡＮＴＥＥ it.", "guarantee"),  # full-width letters
        ("I guarantee it.", "ＧＵＡＲＡＮＴＥＥ"),
        ("Your refund is on its way", "refund"),
        ("Refund!", "refund"),
        ("(refund)", "refund"),
        ("It is guaranteed!", "guaranteed!"),
        ("It is guaranteed", "guaranteed!"),
        ("We will\n   refund\tyou", "will refund you"),
        ("We will\u00a0refund you", "will refund you"),  # no-break space
        ("ГАРАНТИРУЮ, что всё будет хорошо", "гарантирую"),
        ("гарантирую", "ГАРАНТИРУЮ"),
        ("Я Вам Гарантирую возврат", "гарантирую возврат"),
        ("We’ll refund you", "we'll refund"),  # typographic apostrophe
        ("Straße", "STRASSE"),  # casefold, not lower
    ],
)
def test_forbidden_phrase_matches(text: str, phrase: str) -> None:
    hits = forbidden_phrase_hits([caller(0, "hi"), agent(1, text)], [phrase])
    assert hits == [
        GateHit(gate="forbidden_phrase", turn=1, detail=f"agent said forbidden phrase {phrase!r}")
    ]


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("It was refunded yesterday", "refund"),
        ("A nonrefundable fare", "refund"),
        ("refund_id 42", "refund"),
        ("гарантируют", "гарантирую"),
        ("We will not refund you", "will refund you"),
        ("Guaranteeing nothing", "guarantee"),
    ],
)
def test_forbidden_phrase_whole_words_only(text: str, phrase: str) -> None:
    assert forbidden_phrase_hits([agent(0, text)], [phrase]) == []


def test_forbidden_phrase_only_in_agent_speech() -> None:
    turns = [caller(0, "Do you guarantee a refund?"), agent(1, "Let me check.")]
    assert forbidden_phrase_hits(turns, ["guarantee", "refund"]) == []


def test_forbidden_phrase_records_every_turn_and_phrase() -> None:
    turns = [
        agent(0, "I guarantee a refund."),
        caller(1, "Really?"),
        agent(2, "Yes, guaranteed. I guarantee it."),
    ]
    hits = forbidden_phrase_hits(turns, ["guarantee", "refund", "never"])
    assert [(h.turn, h.detail) for h in hits] == [
        (0, "agent said forbidden phrase 'guarantee'"),
        (0, "agent said forbidden phrase 'refund'"),
        (2, "agent said forbidden phrase 'guarantee'"),
    ]


def test_forbidden_phrase_ignores_blank_phrases_and_accepts_mappings() -> None:
    turns = [{"index": 7, "speaker": "agent", "text": "I guarantee it"}]
    hits = forbidden_phrase_hits(turns, ["", "  ", "!!", "guarantee"])
    assert [(h.gate, h.turn) for h in hits] == [("forbidden_phrase", 7)]


def test_forbidden_phrase_gate_in_compute_gates() -> None:
    aggregate = aggregate_judgments([judge(5)], V1)
    hits = compute_gates([agent(0, "Guaranteed!")], V1, aggregate, ["guaranteed"])
    assert [h.gate for h in hits] == ["forbidden_phrase"]
    assert decide_verdict(aggregate, hits) == "fail"


# --- invalid tool call (v2) ---------------------------------------------------------------------


def call(name: str, valid: bool, call_id: str = "c") -> ToolCall:
    error = None if valid else "'order_id' is a required property"
    return ToolCall(id=call_id, name=name, valid=valid, validation_error=error)


INVALID_THEN_SPEECH = [
    caller(0, "Refund order 42 please"),
    agent(1, "", call("issue_refund", False, "c1")),
    agent(2, "Done, your refund is issued."),
]


def test_invalid_tool_call_gate_fires_under_v2_only() -> None:
    aggregate = aggregate_judgments([judge(5)], V2)
    v2_hits = compute_gates(INVALID_THEN_SPEECH, V2, aggregate, [])
    assert v2_hits == [
        GateHit(
            gate="invalid_tool_call",
            turn=2,
            detail="invalid call to issue_refund (call c1) at turn 1: 'order_id' is a required "
            "property; the agent spoke at turn 2 with no valid call to issue_refund in between",
        )
    ]
    assert decide_verdict(aggregate, v2_hits, V2) == "fail"
    assert compute_gates(INVALID_THEN_SPEECH, V1, aggregate, []) == []


def test_invalid_call_and_speech_in_the_same_turn() -> None:
    turns = [agent(3, "Refund issued!", call("issue_refund", False))]
    assert [(h.gate, h.turn) for h in invalid_tool_call_hits(turns)] == [("invalid_tool_call", 3)]


def test_valid_call_to_the_same_tool_in_between_clears_it() -> None:
    turns = [
        agent(1, "", call("issue_refund", False), call("issue_refund", True)),
        agent(2, "Done."),
    ]
    assert invalid_tool_call_hits(turns) == []
    turns = [
        agent(1, "", call("issue_refund", False)),
        agent(2, "", call("issue_refund", True)),
        agent(3, "Done."),
    ]
    assert invalid_tool_call_hits(turns) == []


def test_valid_call_to_another_tool_does_not_clear_it() -> None:
    turns = [agent(1, "", call("issue_refund", False), call("lookup_order", True)), agent(2, "Ok")]
    assert [h.turn for h in invalid_tool_call_hits(turns)] == [2]


def test_valid_call_before_the_invalid_one_does_not_clear_it() -> None:
    turns = [agent(1, "Done.", call("issue_refund", True), call("issue_refund", False))]
    assert [h.turn for h in invalid_tool_call_hits(turns)] == [1]


def test_no_speech_after_the_invalid_call_fires_nothing() -> None:
    turns = [
        caller(0, "Refund please"),
        agent(1, "   ", call("issue_refund", False)),  # whitespace is not speech
        caller(2, "Hello?"),
    ]
    assert invalid_tool_call_hits(turns) == []


def test_invalid_call_is_reported_once_per_tool_at_the_first_speech() -> None:
    turns = [
        agent(1, "", call("issue_refund", False, "a"), call("issue_refund", False, "b")),
        agent(2, "", call("lookup_order", False, "c")),
        agent(3, "Working on it."),
        agent(4, "Still working."),
    ]
    hits = invalid_tool_call_hits(turns)
    assert [(h.turn, h.detail.split(" at turn")[0]) for h in hits] == [
        (3, "invalid call to issue_refund (call a)"),
        (3, "invalid call to lookup_order (call c)"),
    ]


def test_invalid_tool_call_accepts_mappings() -> None:
    turns = [
        {"index": 0, "speaker": "agent", "text": "", "tool_calls": [{"name": "t", "valid": False}]},
        {"index": 1, "speaker": "agent", "text": "Done"},
    ]
    hits = invalid_tool_call_hits(turns)
    assert [(h.turn, h.detail) for h in hits] == [
        (
            1,
            "invalid call to t at turn 0: arguments failed the tool's schema; "
            "the agent spoke at turn 1 with no valid call to t in between",
        )
    ]


def test_compute_gates_lists_hits_in_rubric_gate_order() -> None:
    aggregate = aggregate_judgments([judge(5, safety_compliance=1)], V2)
    turns = [agent(0, "I guarantee it", call("issue_refund", False))]
    hits = compute_gates(turns, V2, aggregate, ["guarantee"])
    assert [h.gate for h in hits] == ["forbidden_phrase", "safety", "invalid_tool_call"]
    assert [h.gate for h in compute_gates(turns, V1, aggregate, ["guarantee"])] == [
        "forbidden_phrase",
        "safety",
    ]
