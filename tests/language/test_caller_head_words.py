"""A fact named in the prompt's own words has one head noun, for the generator and the caller alike.

The generator picks a value by the head (`date_of_damage` is a date); the caller hears the fact
named by it, or, for a head as general as "date", by the word that says which one ("the damage"),
and only when the agent asks something: "sorry to hear about the damage" asks for nothing.
"""

from __future__ import annotations

import random

import pytest

from polygon_core.callers._matching import head_word
from polygon_core.models import FactValue, Language
from polygon_core.personas._values import fact_value
from tests.language.test_caller_answers_facts import reply


@pytest.mark.parametrize(("key", "head_first", "head"), [
    ("date_of_damage", False, "date"), ("number_of_nights", False, "nights"), ("pickup_time", False, "time"),
    ("member_id", False, "id"), ("kodovyy_slovo", True, "slovo"), ("vremya_podacha", True, "vremya"),
])
def test_the_head_noun_of_a_key(key: str, head_first: bool, head: str) -> None:
    assert head_word(key.split("_"), head_first=head_first) == head


def test_the_generator_gives_a_fact_by_its_head_a_value_of_that_kind() -> None:
    assert fact_value("date_of_damage", random.Random(0), "en-GB") == "28 July"
    assert fact_value("kodovyy_slovo", random.Random(0), "ru-RU") == "Берёзка"


ASKED: list[tuple[Language, dict[str, FactValue], str, str]] = [
    ("en", {"date_of_damage": "June 3"}, "I'm so sorry to hear about the damage.", "Okay. So can you x?"),
    ("en", {"date_of_damage": "June 3"}, "When did the damage happen?", "Date of damage: June 3."),
    ("en", {"date_of_damage": "June 3"}, "Tell me when the damage happened.", "Date of damage: June 3."),
    ("en", {"date_of_damage": "June 3"}, "Noted, the date of damage.", "Date of damage: June 3."),  # all its words
    ("ru", {"vremya_dostavka": "14:00"}, "Мне жаль, что доставка задержалась.",
     "Хорошо. Так вы можете помочь? Мне нужно x."),
    ("ru", {"vremya_dostavka": "14:00"}, "Когда нужна доставка?", "Это 14:00."),
    ("ru", {"vremya_dostavka": "14:00"}, "Уточните, когда нужна доставка.", "Это 14:00."),
]


@pytest.mark.parametrize(("language", "truth", "said", "expected"), ASKED)
def test_a_head_word_asks_for_its_fact_only_in_a_question_or_request(language: Language, truth: dict[str, FactValue],
                                                                      said: str, expected: str) -> None:
    assert reply(language, truth, said) == expected


def test_the_generator_and_the_caller_transliterate_alike() -> None:
    from polygon_core.callers._matching import words
    from polygon_core.personas._readingtypes import slug

    assert slug("Номер полиса КАСКО") == "nomer_polisa_kasko"
    assert words("Номер полиса КАСКО?") == ["nomer", "polisa", "kasko"]
