"""`said()` matches whole words, by the forbidden-phrase gate's rule (one rule, shared)."""

from __future__ import annotations

import pytest

from polygon_core.assertions import evaluate_assertion
from polygon_core.models import Conversation, Turn
from polygon_core.scoring import forbidden_phrase_hits

from ._assertions_helpers import conversation


def _agent_said(text: str) -> Conversation:
    turns = [
        Turn(index=0, speaker="caller", text="How much is it? 80 dollars?"),
        Turn(index=1, speaker="agent", text=text),
    ]
    return conversation(turns, [])


@pytest.mark.parametrize(
    ("spoken", "phrase", "status"),
    [
        ("That comes to 180 dollars.", "80", "fail"),
        ("it's 80 dollars", "80", "pass"),
        ("That comes to 180 dollars.", "180 dollars", "pass"),
        ("That comes to 1800 dollars.", "180 dollars", "fail"),
        ("The refund is issued.", "refund", "pass"),
        ("The refund was refunded.", "refunded", "pass"),
        ("It was refunded.", "refund", "fail"),
        ("I have issued\n  the   REFUND.", "issued the refund", "pass"),
        ("I have issued the refunds.", "issued the refund", "fail"),
        ("Yes, 80!", "80", "pass"),
        ("Total: (80).", "80", "pass"),
        ("Total: 80.50", "80", "pass"),
        ("We’ll call you back.", "we'll call", "pass"),
        ("Guaranteed, no doubt.", "guaranteed!", "pass"),
        ("ГАРАНТИРУЮ возврат.", "гарантирую", "pass"),
        ("Всё готово.", "все готово", "pass"),
        ("Заказ подтверждён", "подтвержден", "pass"),
        ("Заказ подтверждённый", "подтвержден", "fail"),
    ],
)
def test_said_matches_whole_words(spoken: str, phrase: str, status: str) -> None:
    result = evaluate_assertion("x", f"said({phrase!r})", _agent_said(spoken))
    assert result.status == status, result


def test_said_failure_says_what_was_never_said() -> None:
    result = evaluate_assertion("x", "said('80')", _agent_said("That comes to 180 dollars."))
    assert (result.status, result.message, result.turn) == ("fail", "agent never said '80'", None)


def test_the_callers_words_do_not_count() -> None:
    result = evaluate_assertion("x", "said('80 dollars')", _agent_said("That comes to 180 dollars."))
    assert result.status == "fail"


@pytest.mark.parametrize("phrase", ["", "  ", "?!"])
def test_a_phrase_with_no_words_is_an_error(phrase: str) -> None:
    result = evaluate_assertion("x", f"said({phrase!r})", _agent_said("Anything at all?!"))
    assert result.status == "error"
    assert result.message == f"ValueError: said() needs a phrase with a letter or digit, got {phrase!r}"


@pytest.mark.parametrize(
    ("spoken", "phrase", "holds"),
    [
        ("That comes to 180 dollars.", "80", False),
        ("it's 80 dollars", "80", True),
        ("I have issued\nthe refund.", "Issued the refund", True),
        ("It was refunded.", "refund", False),
        ("We’ll call you back.", "we'll call", True),
        ("Я еще проверю.", "ещё", True),  # the gate used to miss the common spelling with е
        ("Я ЕЩЁ проверю.", "еще", True),
        ("Заказ подтверждённый", "подтвержден", False),
    ],
)
def test_said_and_the_forbidden_phrase_gate_agree(spoken: str, phrase: str, holds: bool) -> None:
    conv = _agent_said(spoken)
    said = evaluate_assertion("x", f"said({phrase!r})", conv).status == "pass"
    forbidden = bool(forbidden_phrase_hits(conv.turns, [phrase]))
    assert (said, forbidden) == (holds, holds)
