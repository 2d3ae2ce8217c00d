"""Recognition noise: reading numbers digit by digit and the homophone lists, English and Russian."""

from __future__ import annotations

import pytest

from polygon_core.noise import distort
from polygon_core.noise._homophones import homophone_table, homophones
from polygon_core.noise._numbers import (
    number_lexicon,
    parse_number_words,
    read_digit_by_digit,
    read_digit_string,
)

# --- number reading helpers -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("words", "language", "expected"),
    [
        ("fifty", "en", "five zero"),
        ("forty-nine", "en", "four nine"),
        ("forty nine", "en", "four nine"),
        ("Forty-Nine", "en", "four nine"),
        ("one hundred and five", "en", "one zero five"),
        ("one hundred five", "en", "one zero five"),
        ("4821", "en", "four eight two one"),
        ("49.00", "en", "four nine point zero zero"),
        ("1,000", "en", "one zero zero zero"),
        ("пятьдесят", "ru", "пять ноль"),
        ("сорок девять", "ru", "четыре девять"),
        ("двадцать две", "ru", "два два"),
        ("сто один", "ru", "один ноль один"),
        ("4821", "ru", "четыре восемь два один"),
        ("49,00", "ru", "четыре девять запятая ноль ноль"),
        ("five", "en", "five"),
    ],
)
def test_read_digit_by_digit(words: str, language: str, expected: str) -> None:
    assert read_digit_by_digit(words, language) == expected


@pytest.mark.parametrize(
    ("words", "language"),
    [("card", "en"), ("код", "ru"), ("", "en"), ("twenty thirty", "en"), ("five five", "en"),
     ("and five", "en"), ("five and", "en"), ("two hundred hundred", "en"), ("thousand", "en"),
     ("first twenty", "en"), ("тысяча тысяча", "ru"), ("двадцать тридцать", "ru"),
     ("первого двадцать", "ru")],
)
def test_read_digit_by_digit_rejects_non_numbers(words: str, language: str) -> None:
    assert read_digit_by_digit(words, language) is None


def test_number_lexicon_comes_from_num2words_forms() -> None:
    ru, en = number_lexicon("ru"), number_lexicon("en")
    assert (ru["сорока"].value, ru["сорока"].kind, ru["сорока"].ordinal) == (40, "ten", False)
    assert (ru["первого"].value, ru["первого"].ordinal) == (1, True)
    assert (ru["тысячами"].value, ru["тысячами"].kind) == (1000, "scale")
    assert (ru["двухтысячного"].value, ru["двухтысячного"].ordinal) == (2000, True)
    assert (en["first"].value, en["first"].ordinal) == (1, True)
    assert en["hundred"].kind == "hundred"
    parsed = parse_number_words(["двух", "тысяч", "пятого"], "ru")
    assert parsed is not None and (parsed.value, parsed.ordinal, parsed.words) == (2005, True, 3)


def test_a_postcode_part_is_not_an_ordinal() -> None:
    # "1TH" in "BS8 1TH" looks like "1th": only lower-case suffixes that fit the number are ordinals.
    for word in ("1TH", "1th", "2st", "4nd"):
        assert read_digit_by_digit(word, "en") is None
    assert read_digit_by_digit("11th", "en") == "one one"
    assert read_digit_by_digit("22nd", "en") == "two two"
    _, distortions = distort("The postcode is BS8 1TH.", 1.0, conversation_id="c", turn=1, language="en")
    assert [d for d in distortions if d.kind == "digits"] == []


def test_read_digit_string_rejects_words() -> None:
    with pytest.raises(ValueError):
        read_digit_string("12a", "en")


def test_number_helpers_reject_unknown_language() -> None:
    with pytest.raises(ValueError):
        read_digit_by_digit("fifty", "de")


# --- homophone lists --------------------------------------------------------------------------


def test_homophone_lists_load_and_are_symmetric() -> None:
    for language in ("en", "ru"):
        table = homophone_table(language)
        assert len(table) >= 40
        for word, others in table.items():
            assert others and word not in others
            for other in others:
                assert word in table[other]
    assert homophones("no", "en") == ("know",)  # quoted in YAML: never read as a boolean
    assert homophones("код", "ru") == ("кот",)
    assert homophones("хлеб", "ru") == ("хлеп",)  # devoicing rule, not in the list
    assert homophones("из", "ru") == ()  # too short for the rule
    assert homophones("refund", "en") == ()
