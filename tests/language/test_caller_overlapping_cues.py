"""Which fact a question asks for does not depend on which facts the caller happens to know.

Overlapping cues are resolved over every kind the caller's table knows: a caller with an address but
no email, asked "What is your email address?", does not read out its street; one with a card number
but no last four digits, asked for "the last four digits of your card number", does not read all 16.
A question for a kind the caller lacks gets what any unasked-for question gets (its goal again), or
its "I don't know" when the kind is one it does not know.
"""

from __future__ import annotations

import pytest

from polygon_core.models import FactValue, Language
from tests.language.test_caller_answers_facts import reply

CARD = "6176 8234 4344 1108"
CASES: list[tuple[Language, dict[str, FactValue], str, tuple[str, ...], str]] = [
    ("en", {"address": "1402 Oak Street"}, "What is your email address?", (), "Okay. So can you x?"),
    ("en", {"card_number": CARD}, "What are the last four digits of your card number?", (), "Okay. So can you x?"),
    ("en", {"name": "Dana Whitfield"}, "What's your mother's maiden name?", (), "Okay. So can you x?"),
    ("en", {"address": "1402 Oak Street"}, "What is your email address?", ("email",),
     "Sorry, I don't know my email."),
    ("en", {"name": "Dana Whitfield"}, "What are the last four digits of your card number?", ("card number",),
     "Okay. So can you x?"),
    ("ru", {"card_number": CARD}, "Назовите последние четыре цифры карты.", (),
     "Хорошо. Так вы можете помочь? Мне нужно x."),
    # what the caller knows is still answered
    ("en", {"address": "1402 Oak Street"}, "What is your address?", (), "My address is 1402 Oak Street."),
    ("en", {"card_number": CARD}, "What is your card number?", (), f"My card number is {CARD}."),
]


@pytest.mark.parametrize(("language", "truth", "question", "unknown", "expected"), CASES)
def test_a_longer_cue_of_a_kind_the_caller_lacks_still_wins(language: Language, truth: dict[str, FactValue],
                                                           question: str, unknown: tuple[str, ...],
                                                           expected: str) -> None:
    assert reply(language, truth, question, unknown) == expected
