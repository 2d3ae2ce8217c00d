"""Recognition noise is seeded: pinned outputs for fixed inputs, so a faster `distort` stays exact.

The explicit cases cover multi-word numbers (``and``, ``a hundred``, Russian cases and «полторы»),
digit strings with separators and ordinal suffixes, homophones, drops and fillers; the digest covers
a larger corpus (every text × turn × intensity × language below), byte for byte.
"""

from __future__ import annotations

import hashlib
import json

import pytest

from polygon_core.models import Distortion
from polygon_core.noise import distort
from polygon_core.noise._numbers import may_be_number_word

CID = "pin-1"

PINNED: list[tuple[str, str, float, int, str, list[Distortion]]] = [
    (
        "en", "I paid two thousand and five dollars, then a hundred and twelve more.", 0.6, 7,
        "hmm I paid two zero zero five dollars, a hundred and twelve more.",
        [
            Distortion(kind="digits", original="two thousand and five", replacement="two zero zero five",
                       position=2),
            Distortion(kind="drop", original="then", replacement="", position=7),
            Distortion(kind="filler", original="", replacement="hmm", position=0),
        ],
    ),
    (
        "en", "I paid two thousand and five dollars, then a hundred and twelve more.", 0.6, 0,
        "I paid two thousand and five dollars, then one one two more.",
        [Distortion(kind="digits", original="a hundred and twelve", replacement="one one two", position=8)],
    ),
    (
        "en", "Order 4821, card ending 1,200 and the 21st of May; twenty-first floor.", 0.7, 4,
        "Order four eight two one, card ending 1,200 and the two one of May; two one floor.",
        [
            Distortion(kind="digits", original="4821", replacement="four eight two one", position=1),
            Distortion(kind="digits", original="21st", replacement="two one", position=7),
            Distortion(kind="digits", original="twenty-first", replacement="two one", position=10),
        ],
    ),
    (
        "en", "one two three four five six seven eight nine ten eleven twelve thirteen fourteen", 0.5, 1,
        "one too three for five six seven ate nine ten eleven twelve one three one four",
        [
            Distortion(kind="digits", original="thirteen", replacement="one three", position=12),
            Distortion(kind="digits", original="fourteen", replacement="one four", position=13),
            Distortion(kind="homophone", original="two", replacement="too", position=1),
            Distortion(kind="homophone", original="four", replacement="for", position=3),
            Distortion(kind="homophone", original="eight", replacement="ate", position=7),
        ],
    ),
    (
        "en", "Their card was declined, so I called — twice.", 0.9, 3,
        "uh Their was declined, so called — twice.",
        [
            Distortion(kind="drop", original="card", replacement="", position=1),
            Distortion(kind="drop", original="I", replacement="", position=5),
            Distortion(kind="filler", original="", replacement="uh", position=0),
        ],
    ),
    (
        "ru", "Я заплатил двух тысяч пятого года полторы тысячи рублей, а не 49,00.", 0.6, 2,
        "ну Я заплатил два ноль ноль пять года один пять ноль ноль а не четыре девять запятая ноль ноль.",
        [
            Distortion(kind="digits", original="двух тысяч пятого", replacement="два ноль ноль пять",
                       position=2),
            Distortion(kind="digits", original="полторы тысячи", replacement="один пять ноль ноль",
                       position=6),
            Distortion(kind="digits", original="49,00", replacement="четыре девять запятая ноль ноль",
                       position=11),
            Distortion(kind="drop", original="рублей", replacement="", position=8),
            Distortion(kind="filler", original="", replacement="ну", position=0),
        ],
    ),
    (
        "ru", "Номер двадцать первого договора: сто сорок пять, код хлеб.", 0.8, 7,
        "два один договора: один четыре пять, кот хлеб.",
        [
            Distortion(kind="digits", original="двадцать первого", replacement="два один", position=1),
            Distortion(kind="digits", original="сто сорок пять", replacement="один четыре пять", position=4),
            Distortion(kind="homophone", original="код", replacement="кот", position=7),
            Distortion(kind="drop", original="Номер", replacement="", position=0),
        ],
    ),
]


@pytest.mark.parametrize("case", range(len(PINNED)))
def test_pinned_output(case: int) -> None:
    language, text, intensity, turn, heard, distortions = PINNED[case]
    assert distort(text, intensity, conversation_id=CID, turn=turn, language=language) == (
        heard,
        distortions,
    )


CORPUS: dict[str, list[str]] = {
    "en": [
        "Hi, I was charged twice for my order 4821 last week and I want a refund of forty-nine dollars.",
        "My account number is two thousand and five, and the card ends in 1234.",
        "I think the bill was one hundred and twenty five dollars, not fifty.",
        "twelve hundred, a thousand, a million and six, nine hundred ninety-nine thousand",
        "It's the twenty-third, or the 3rd; postcode BS8 1TH, flat 12th floor 4nd.",
        "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen",
        "Yes — that's right... (sixty) 'seventy' \"eighty\" and and a a hundred.",
        "Their card was declined, so I'd like to know their policy on refunds.",
        "",
        "   spaced\tout   two  thousand ",
    ],
    "ru": [
        "Здравствуйте, с меня дважды списали деньги за заказ 4821, сорок девять рублей.",
        "Мой номер договора двадцать первого года, тысяча двести пять.",
        "полторы тысячи, полутора миллионов, двухтысячный, пять тысяч 5 тысяч",
        "Да, всё верно. Когда придёт возврат? Код хлеб, сто сорок пять.",
        "сорока девяти, двадцать первого, двух тысяч пятого, 21-го, 5-й, 49,00, 1.5",
        "один два три четыре пять шесть семь восемь девять десять одиннадцать двенадцать тринадцать",
    ],
}

# sha256 of the JSON of every result over CORPUS × turns 0..29 × intensities (0.3, 0.8, 1.0).
CORPUS_DIGEST = "04d9241ce6aa00a1234c3c9c5753c48192ae7f396aa0e1e2e00141b731f6ade5"


def test_corpus_digest() -> None:
    results = []
    for language, texts in CORPUS.items():
        for text in texts:
            for turn in range(30):
                for intensity in (0.3, 0.8, 1.0):
                    heard, distortions = distort(
                        text, intensity, conversation_id=CID, turn=turn, language=language
                    )
                    results.append([heard, [d.model_dump() for d in distortions]])
    blob = json.dumps(results, ensure_ascii=False, sort_keys=True).encode("utf-8")
    assert hashlib.sha256(blob).hexdigest() == CORPUS_DIGEST


@pytest.mark.parametrize(
    ("word", "language", "expected"),
    [
        ("Forty", "en", True), ("first", "en", True), ("and", "en", True), ("A", "en", True),
        ("card", "en", False), ("4821", "en", False), ("and", "ru", False),
        ("сорока", "ru", True), ("Полторы", "ru", True), ("двухтысячный", "ru", True),
        ("рублей", "ru", False), ("a", "ru", False),
    ],
)
def test_may_be_number_word(word: str, language: str, expected: bool) -> None:
    # The shortcut `distort` takes before parsing a run of words as a number.
    assert may_be_number_word(word, language) is expected
