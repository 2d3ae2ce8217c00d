"""Divergence point: the first turn where two conversations part, and why."""

from __future__ import annotations

from typing import Any

import pytest

from polygon_core.compare import Divergence, divergence_point
from polygon_core.compare._divergence import wording_similarity
from polygon_core.models import ToolCall, Turn


def turn(
    speaker: str, text: str, tool_calls: list[dict[str, Any]] | None = None, end: str | None = None
) -> dict[str, Any]:
    t: dict[str, Any] = {"speaker": speaker, "text": text, "end": end}
    if tool_calls is not None:
        t["tool_calls"] = tool_calls
    return t


BASE = [
    turn("agent", "Hello, this is Acme support. How can I help you today?"),
    turn("caller", "I want a refund for my last order please."),
    turn(
        "agent",
        "I have issued the refund for your order.",
        [{"name": "refund", "arguments": {"amount": 49}}],
    ),
    turn("caller", "Thanks, bye.", end="hangup"),
]


def with_turn(index: int, **changes: Any) -> list[dict[str, Any]]:
    conversation = [dict(t) for t in BASE]
    conversation[index].update(changes)
    return conversation


def test_identical_conversations_never_part() -> None:
    assert divergence_point(BASE, [dict(t) for t in BASE]) is None
    assert divergence_point([], []) is None


def test_speaker_alone() -> None:
    b = with_turn(1, speaker="agent")
    assert divergence_point(BASE, b) == Divergence(1, ("speaker",), BASE[1], b[1])


def test_tool_calls_alone_different_amount() -> None:
    b = with_turn(2, tool_calls=[{"name": "refund", "arguments": {"amount": 50}}])
    result = divergence_point(BASE, b)
    assert result is not None and (result.turn, result.reasons) == (2, ("tool_calls",))


def test_tool_calls_alone_different_name() -> None:
    b = with_turn(2, tool_calls=[{"name": "refund_order", "arguments": {"amount": 49}}])
    result = divergence_point(BASE, b)
    assert result is not None and (result.turn, result.reasons) == (2, ("tool_calls",))


def test_tool_calls_alone_missing_call() -> None:
    b = with_turn(2, tool_calls=[])
    result = divergence_point(BASE, b)
    assert result is not None and (result.turn, result.reasons) == (2, ("tool_calls",))


def test_argument_normalisation() -> None:
    b = with_turn(
        2,
        tool_calls=[{"name": "refund", "arguments": {"amount": 49.0}}],
    )
    assert divergence_point(BASE, b) is None
    a = with_turn(2, tool_calls=[{"name": "lookup", "arguments": {"order": " A-17 ", "n": 2, "x": [1.0]}}])
    b = with_turn(2, tool_calls=[{"name": "lookup", "arguments": {"x": [1], "n": 2.0, "order": "a-17"}}])
    assert divergence_point(a, b) is None
    a = with_turn(2, tool_calls=[{"name": "pay", "arguments": {"card": {"last4": "4821", "sum": 49.50}}}])
    b = with_turn(2, tool_calls=[{"name": "pay", "arguments": {"card": {"sum": 49.5, "last4": "4821 "}}}])
    assert divergence_point(a, b) is None


def test_argument_normalisation_keeps_types_apart() -> None:
    a = with_turn(2, tool_calls=[{"name": "f", "arguments": {"flag": True}}])
    b = with_turn(2, tool_calls=[{"name": "f", "arguments": {"flag": 1}}])
    c = with_turn(2, tool_calls=[{"name": "f", "arguments": {"flag": "1"}}])
    for x, y in ((a, b), (b, c), (a, c)):
        result = divergence_point(x, y)
        assert result is not None and result.reasons == ("tool_calls",)


def test_tool_call_order_matters() -> None:
    one, two = {"name": "a", "arguments": {}}, {"name": "b", "arguments": {}}
    result = divergence_point(with_turn(2, tool_calls=[one, two]), with_turn(2, tool_calls=[two, one]))
    assert result is not None and result.reasons == ("tool_calls",)


def test_absent_tool_calls_equal_an_empty_list() -> None:
    a = [{"speaker": "agent", "text": "Hi there", "end": None}]
    b = [{"speaker": "agent", "text": "Hi there", "tool_calls": [], "end": None}]
    assert divergence_point(a, b) is None


@pytest.mark.parametrize(
    ("end_a", "end_b"), [(None, "hangup"), ("transfer", None), ("transfer", "end"), ("end", "callback")]
)
def test_end_alone(end_a: str | None, end_b: str | None) -> None:
    result = divergence_point(with_turn(3, end=end_a), with_turn(3, end=end_b))
    assert result is not None and (result.turn, result.reasons) == (3, ("end",))


def test_same_end_kind_is_not_a_divergence() -> None:
    assert divergence_point(with_turn(3, end="transfer"), with_turn(3, end="transfer")) is None


def test_wording_alone() -> None:
    b = with_turn(1, text="Can you tell me my account balance?")
    result = divergence_point(BASE, b)
    assert result is not None and (result.turn, result.reasons) == (1, ("wording",))


def test_small_rewording_is_not_a_divergence() -> None:
    b = with_turn(1, text="I want a refund for my last order, please!")
    assert divergence_point(BASE, b) is None


def test_one_word_turns() -> None:
    a = [turn("agent", "Hello"), turn("caller", "Yes.")]
    assert divergence_point(a, [turn("agent", "Hello"), turn("caller", "Yes.")]) is None
    assert divergence_point(a, [turn("agent", "Hello"), turn("caller", "yes")]) is None
    result = divergence_point(a, [turn("agent", "Hello"), turn("caller", "No.")])
    assert result is not None and (result.turn, result.reasons) == (1, ("wording",))


def test_one_word_against_two_words_uses_unigrams() -> None:
    # unigrams {yes} vs {yes, please}: 1/2 = 0.5, not a divergence
    assert wording_similarity("Yes.", "Yes, please.") == 0.5
    assert divergence_point([turn("caller", "Yes.")], [turn("caller", "Yes, please.")]) is None
    # {yes} vs {yes, thank, you}: 1/3, a divergence
    result = divergence_point([turn("caller", "Yes.")], [turn("caller", "Yes, thank you.")])
    assert result is not None and result.reasons == ("wording",)


def test_empty_texts_are_similar() -> None:
    assert wording_similarity("", "") == 1.0
    assert wording_similarity("", "Hello") == 0.0
    a = [turn("agent", "", [{"name": "lookup", "arguments": {}}])]
    assert divergence_point(a, [turn("agent", "", [{"name": "lookup", "arguments": {}}])]) is None
    result = divergence_point(a, [turn("agent", "Hello", [{"name": "lookup", "arguments": {}}])])
    assert result is not None and result.reasons == ("wording",)


def test_jaccard_boundary() -> None:
    # bigrams {ab, bc, cd} vs {ab, bc, cx}: 2 shared of 4 = exactly 0.5 → not a divergence
    assert wording_similarity("a b c d", "a b c x") == 0.5
    assert divergence_point([turn("agent", "a b c d")], [turn("agent", "a b c x")]) is None
    # {ab, bc, cd} vs {ab, bc, cd, dx, xy, yz}: 3 of 6 = exactly 0.5 → not a divergence
    assert wording_similarity("a b c d", "a b c d x y z") == 0.5
    assert divergence_point([turn("agent", "a b c d")], [turn("agent", "a b c d x y z")]) is None
    # one more word: {ab, bc, cd} vs {ab, bc, cd, dx, xy, yz, zw}: 3 of 7 ≈ 0.43 → a divergence
    assert wording_similarity("a b c d", "a b c d x y z w") == pytest.approx(3 / 7)
    result = divergence_point([turn("agent", "a b c d")], [turn("agent", "a b c d x y z w")])
    assert result is not None and result.reasons == ("wording",)


def test_one_conversation_longer() -> None:
    longer = [*BASE, turn("agent", "Goodbye.", end="end")]
    result = divergence_point(BASE, longer)
    assert result == Divergence(4, ("end",), None, longer[4])
    result = divergence_point(longer, BASE)
    assert result == Divergence(4, ("end",), longer[4], None)
    assert divergence_point([], BASE) == Divergence(0, ("end",), None, BASE[0])


def test_an_earlier_difference_wins_over_length() -> None:
    shorter = with_turn(1, speaker="agent")[:2]
    result = divergence_point(shorter, BASE)
    assert result is not None and (result.turn, result.reasons) == (1, ("speaker",))


def test_several_reasons_in_fixed_order() -> None:
    b = with_turn(
        2,
        speaker="caller",
        text="Put me through to a manager now.",
        tool_calls=[{"name": "refund", "arguments": {"amount": 5}}],
        end="transfer",
    )
    result = divergence_point(BASE, b)
    assert result is not None
    assert result.turn == 2
    assert result.reasons == ("speaker", "tool_calls", "end", "wording")
    b = with_turn(2, text="Let me transfer you.", end="transfer")
    result = divergence_point(BASE, b)
    assert result is not None and result.reasons == ("end", "wording")


def _as_turns(conversation: list[dict[str, Any]]) -> list[Turn]:
    turns = []
    for i, t in enumerate(conversation):
        calls = [
            ToolCall(id=f"call-{i}-{j}", name=c["name"], arguments=c["arguments"])
            for j, c in enumerate(t.get("tool_calls", []))
        ]
        turns.append(Turn(index=i, speaker=t["speaker"], text=t["text"], tool_calls=calls, end=t["end"]))
    return turns


def test_turn_objects_and_mappings_both_accepted() -> None:
    turns = _as_turns(BASE)
    assert divergence_point(turns, BASE) is None
    assert divergence_point(BASE, turns) is None
    assert divergence_point(turns, _as_turns(BASE)) is None
    b = with_turn(2, tool_calls=[{"name": "refund", "arguments": {"amount": 49.0}}], end="end")
    result = divergence_point(turns, b)
    assert result == Divergence(2, ("end",), turns[2], b[2])
    result = divergence_point(turns, _as_turns(with_turn(3, end="callback")))
    assert result is not None and (result.turn, result.reasons) == (3, ("end",))
