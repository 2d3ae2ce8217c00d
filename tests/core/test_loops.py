"""Loop detection: the two most recent agent replies overlap ≥ 90% (unigrams + bigrams, Jaccard)."""

from __future__ import annotations

import pytest

from polygon_core.loops import LOOP_THRESHOLD, is_loop, normalise_words, overlap

TWENTY = (
    "i can see the order from monday and a refund will reach your card within five working days "
    "after approval"
)


def test_twenty_words_are_distinct() -> None:
    words = TWENTY.split()
    assert len(words) == 20 and len(set(words)) == 20


def test_normalise_words() -> None:
    assert normalise_words("Could you say THAT again?!") == ["could", "you", "say", "that", "again"]
    assert normalise_words("ＹＥＳ.") == ["yes"]  # NFKC folds full-width letters
    assert normalise_words(" ... ") == []


def test_identical_replies_loop() -> None:
    reply = "Your refund of forty nine dollars has been issued."
    assert overlap(reply, reply) == 1.0
    assert is_loop([reply, reply])


def test_one_word_replies_loop() -> None:
    assert overlap("Yes.", "Yes.") == 1.0
    assert is_loop(["Yes.", "Yes."])
    assert is_loop(["Yes.", "yes"])  # case and punctuation do not matter


def test_different_one_word_replies_do_not_loop() -> None:
    assert overlap("Yes.", "No.") == 0.0
    assert not is_loop(["Yes.", "No."])


def test_repeated_question_loops() -> None:
    assert is_loop(["Could you say that again?", "Could you say that again?"])


def test_different_questions_do_not_loop() -> None:
    assert not is_loop(["Could you say that again?", "What is your order number?"])


def test_one_word_changed_in_the_middle_of_twenty() -> None:
    words = TWENTY.split()
    changed = " ".join([*words[:9], "payment", *words[10:]])
    # unigrams: 19 shared of 21; bigrams: 17 shared of 21 (the two touching the changed word differ)
    assert overlap(TWENTY, changed) == pytest.approx(36 / 42)
    assert round(overlap(TWENTY, changed), 3) == 0.857
    assert not is_loop([TWENTY, changed])


def test_one_word_changed_at_the_end_of_twenty() -> None:
    words = TWENTY.split()
    changed = " ".join([*words[:19], "approved"])
    # unigrams: 19 shared of 21; bigrams: 18 shared of 20 (only the last bigram differs)
    assert overlap(TWENTY, changed) == pytest.approx(37 / 41)
    assert is_loop([TWENTY, changed])


def test_word_order_counts_through_bigrams() -> None:
    # same unigrams {a, b}, different bigrams: 2 shared of 4 features
    assert overlap("a b", "b a") == pytest.approx(2 / 4)


def test_only_the_two_most_recent_replies_count() -> None:
    assert is_loop(["a b c", "x y", "x y"])
    assert not is_loop(["x y", "x y", "a b c"])


def test_fewer_than_two_replies_never_loop() -> None:
    assert not is_loop([])
    assert not is_loop(["Yes."])


def test_empty_replies_never_loop() -> None:
    assert overlap("", "") == 0.0
    assert not is_loop(["", ""])
    assert not is_loop(["...", "?"])
    assert not is_loop(["", ""], threshold=0.01)


def test_threshold() -> None:
    assert LOOP_THRESHOLD == 0.9
    assert is_loop(["a b", "b a"], threshold=0.5)
    assert not is_loop(["a b", "b a"], threshold=0.51)
    for bad in (0, -0.1, 1.1):
        with pytest.raises(ValueError):
            is_loop(["a", "a"], threshold=bad)
