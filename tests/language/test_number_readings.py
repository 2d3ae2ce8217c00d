"""Numbers read digit by digit as a recogniser would, in every case and compound form (issue 20).

Each phrase is said by a caller; the `digits` distortion reads its value digit by digit in the
nominative. The sentence cases check that the whole phrase, and nothing around it, becomes one unit.
"""

from __future__ import annotations

import pytest

from polygon_core.noise import distort
from polygon_core.noise._numbers import read_digit_by_digit

RU = [
    # cardinals in every case
    ("пятьдесят", "пять ноль"), ("пятидесяти", "пять ноль"), ("пятьюдесятью", "пять ноль"),
    ("сорок девять", "четыре девять"), ("сорока девяти", "четыре девять"),
    ("сорока девятью", "четыре девять"), ("семидесяти семи", "семь семь"),
    ("двенадцати", "один два"), ("шестнадцати", "один шесть"), ("десяти", "один ноль"),
    ("девяноста", "девять ноль"), ("сорок", "четыре ноль"),
    # hundreds in one word, declined
    ("сто", "один ноль ноль"), ("ста", "один ноль ноль"), ("двухсот", "два ноль ноль"),
    ("трехсот", "три ноль ноль"), ("трёхстах", "три ноль ноль"), ("пятистам", "пять ноль ноль"),
    ("девятьюстами", "девять ноль ноль"),
    # compounds
    ("сто двадцать три", "один два три"), ("ста двадцати трёх", "один два три"),
    ("двести пятьдесят", "два пять ноль"), ("двухсот пятидесяти", "два пять ноль"),
    ("тысяча двести", "один два ноль ноль"), ("тысячи двухсот", "один два ноль ноль"),
    ("тысячей двумястами", "один два ноль ноль"), ("тысяче двумстам", "один два ноль ноль"),
    ("две тысячи пять", "два ноль ноль пять"), ("двух тысяч пяти", "два ноль ноль пять"),
    ("полторы тысячи", "один пять ноль ноль"), ("полутора тысяч", "один пять ноль ноль"),
    ("миллион", "один ноль ноль ноль ноль ноль ноль"),
    ("трёх миллионов", "три ноль ноль ноль ноль ноль ноль"),
    # ordinals in every gender and case, compound ordinals, dates and years
    ("двадцать первого", "два один"), ("двадцать первое", "два один"),
    ("двадцать первая", "два один"), ("двадцать первую", "два один"),
    ("двадцать первом", "два один"), ("тридцать первым", "три один"), ("тридцатого", "три ноль"),
    ("одиннадцатого", "один один"), ("девятнадцатью", "один девять"),
    ("четырнадцатое", "один четыре"), ("восьмидесятой", "восемь ноль"),
    ("девяностых", "девять ноль"), ("сороковой", "четыре ноль"), ("пятисотый", "пять ноль ноль"),
    ("двух тысяч пятого", "два ноль ноль пять"), ("две тысячи двадцать шестой", "два ноль два шесть"),
    ("тысяча девятьсот восемьдесят пятого", "один девять восемь пять"),
    ("двухтысячного", "два ноль ноль ноль"), ("тысячного", "один ноль ноль ноль"),
    # digit strings
    ("21-го", "два один"), ("49,00", "четыре девять запятая ноль ноль"),
]

EN = [
    ("fifty", "five zero"), ("forty-nine", "four nine"), ("forty nine", "four nine"),
    ("seventy-seven", "seven seven"), ("eleven", "one one"), ("nineteen", "one nine"),
    ("two thousand and five", "two zero zero five"), ("two thousand five", "two zero zero five"),
    ("four thousand and twenty", "four zero two zero"),
    ("one hundred and five", "one zero five"), ("a hundred", "one zero zero"),
    ("a thousand", "one zero zero zero"), ("twelve hundred", "one two zero zero"),
    ("one thousand two hundred", "one two zero zero"), ("1,200", "one two zero zero"),
    ("one million", "one zero zero zero zero zero zero"),
    ("two hundred thousand", "two zero zero zero zero zero"),
    ("twenty-first", "two one"), ("twenty first", "two one"), ("thirty-first", "three one"),
    ("twelfth", "one two"), ("thirteenth", "one three"), ("ninety-ninth", "nine nine"),
    ("one hundredth", "one zero zero"), ("21st", "two one"), ("49.00", "four nine point zero zero"),
]


def test_the_tables_are_as_large_as_issue_20_asks() -> None:
    assert len(RU) >= 40 and len(EN) >= 20


@pytest.mark.parametrize(("said", "heard"), RU, ids=[s for s, _ in RU])
def test_russian_number_read_digit_by_digit(said: str, heard: str) -> None:
    assert read_digit_by_digit(said, "ru") == heard


@pytest.mark.parametrize(("said", "heard"), EN, ids=[s for s, _ in EN])
def test_english_number_read_digit_by_digit(said: str, heard: str) -> None:
    assert read_digit_by_digit(said, "en") == heard


SENTENCES = [
    ("ru", "Это стоит пятидесяти рублей?", "пятидесяти", "пять ноль"),
    ("ru", "Мне нужно сорока девяти таблеток.", "сорока девяти", "четыре девять"),
    ("ru", "Заплатил тысяча двести за лекарство.", "тысяча двести", "один два ноль ноль"),
    ("ru", "Запись на двадцать первого июня.", "двадцать первого", "два один"),
    ("ru", "Родился в тысяча девятьсот восемьдесят пятом году.",
     "тысяча девятьсот восемьдесят пятом", "один девять восемь пять"),
    ("ru", "Было 5 тысяч рублей.", "5", "пять"),
    ("en", "It was two thousand and five, I think.", "two thousand and five", "two zero zero five"),
    ("en", "Book me for the twenty-first of June.", "twenty-first", "two one"),
    ("en", "The bill says 1,200 dollars.", "1,200", "one two zero zero"),
    ("en", "I paid twelve hundred dollars.", "twelve hundred", "one two zero zero"),
]


@pytest.mark.parametrize(("language", "text", "said", "heard"), SENTENCES,
                         ids=[t for _, t, _, _ in SENTENCES])
def test_number_in_a_sentence_is_one_unit(language: str, text: str, said: str, heard: str) -> None:
    _, distortions = distort(text, 1.0, conversation_id="c", turn=1, language=language)
    digits = [(d.original, d.replacement) for d in distortions if d.kind == "digits"]
    assert digits == [(said, heard)]


@pytest.mark.parametrize(("language", "text"), [
    ("en", "First, I need the second form."),  # one word for one digit stays a word
    ("ru", "С одной стороны, у пяти клиентов."),
    ("en", "Thousand reasons, and five more."),  # punctuation splits a run; bare thousand is a word
])
def test_single_digit_words_and_broken_runs_are_not_read_as_numbers(language: str, text: str) -> None:
    _, distortions = distort(text, 1.0, conversation_id="c", turn=1, language=language)
    assert [d for d in distortions if d.kind == "digits"] == []
