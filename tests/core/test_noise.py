"""Recognition noise: identity, determinism, each distortion kind in English and Russian."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from polygon_core.models import Distortion
from polygon_core.noise import NoiseResult, distort
from polygon_core.noise._homophones import homophone_table, homophones
from polygon_core.noise._numbers import (
    number_lexicon,
    parse_number_words,
    read_digit_by_digit,
    read_digit_string,
)

ROOT = Path(__file__).resolve().parents[2]
CID = "conv-1"

EN_TEXTS = [
    "My order number is 4821.",
    "I paid forty-nine dollars, not fifty.",
    "Their card was declined.",
    "Yes",
    "  spaced   out\ttext  ",
    "",
]
RU_TEXTS = [
    "Номер заказа 4821.",
    "Я заплатил сорок девять рублей, а не пятьдесят.",
    "Мой код не подходит.",
    "Да",
    "",
]


def _as_json(result: NoiseResult) -> str:
    heard, distortions = result
    return json.dumps(
        {"heard": heard, "distortions": [d.model_dump() for d in distortions]},
        ensure_ascii=False,
        sort_keys=True,
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


# --- distort: identity, validation, determinism -----------------------------------------------


@pytest.mark.parametrize("text", EN_TEXTS)
def test_intensity_zero_is_identity_en(text: str) -> None:
    for turn in range(20):
        assert distort(text, 0, conversation_id=CID, turn=turn, language="en") == (text, [])


@pytest.mark.parametrize("text", RU_TEXTS)
def test_intensity_zero_is_identity_ru(text: str) -> None:
    for turn in range(20):
        assert distort(text, 0.0, conversation_id=CID, turn=turn, language="ru") == (text, [])


@pytest.mark.parametrize("intensity", [-0.01, 1.01, float("nan"), 2])
def test_invalid_intensity_raises(intensity: float) -> None:
    with pytest.raises(ValueError):
        distort("hello", intensity, conversation_id=CID, turn=0, language="en")


def test_unknown_language_raises() -> None:
    with pytest.raises(ValueError):
        distort("hallo", 0.5, conversation_id=CID, turn=0, language="de")


def test_result_is_a_named_pair() -> None:
    result = distort("My order number is 4821.", 0.5, conversation_id=CID, turn=6, language="en")
    heard, distortions = result
    assert heard == result.heard and distortions == result.distortions
    assert all(isinstance(d, Distortion) for d in distortions)


def test_same_inputs_same_output_in_process() -> None:
    for language, texts in (("en", EN_TEXTS), ("ru", RU_TEXTS)):
        for text in texts:
            for turn in range(10):
                first = distort(text, 0.7, conversation_id=CID, turn=turn, language=language)
                second = distort(text, 0.7, conversation_id=CID, turn=turn, language=language)
                assert first == second


def test_same_inputs_same_output_in_another_process() -> None:
    cases = [(EN_TEXTS[1], "en", 3), (EN_TEXTS[2], "en", 3), (RU_TEXTS[1], "ru", 5)]
    code = (
        "import json, sys\n"
        "from polygon_core.noise import distort\n"
        "cases = json.loads(sys.argv[1])\n"
        "out = []\n"
        "for text, language, turn in cases:\n"
        "    heard, ds = distort(text, 0.8, conversation_id='conv-1', turn=turn, language=language)\n"
        "    out.append(json.dumps({'heard': heard, 'distortions': [d.model_dump() for d in ds]},\n"
        "                          ensure_ascii=False, sort_keys=True))\n"
        "print(json.dumps(out))\n"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345", "PYTHONIOENCODING": "utf-8"}
    proc = subprocess.run(
        [sys.executable, "-c", code, json.dumps(cases)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=True,
    )
    there = json.loads(proc.stdout)
    here = [
        _as_json(distort(text, 0.8, conversation_id=CID, turn=turn, language=language))
        for text, language, turn in cases
    ]
    assert there == here
    assert any(json.loads(item)["distortions"] for item in here)


def test_different_turn_gives_different_output() -> None:
    text = "My order number is 4821."
    turn0 = distort(text, 0.5, conversation_id=CID, turn=0, language="en")
    turn1 = distort(text, 0.5, conversation_id=CID, turn=1, language="en")
    assert turn0.heard == "uh order number is four eight two one."
    assert turn1 == (text, [])


def test_intensity_one_changes_every_nonempty_utterance() -> None:
    for language, texts in (("en", EN_TEXTS), ("ru", RU_TEXTS)):
        for text in texts:
            if not text.strip():
                continue
            for turn in range(10):
                heard, distortions = distort(text, 1, conversation_id=CID, turn=turn, language=language)
                assert heard != text and distortions


def test_empty_text_is_never_distorted() -> None:
    assert distort("   ", 1.0, conversation_id=CID, turn=0, language="en") == ("   ", [])


def test_never_drops_every_word() -> None:
    for turn in range(200):
        for language, text in (("en", "Yes"), ("en", "no thanks"), ("ru", "Да нет")):
            heard, _ = distort(text, 1.0, conversation_id=CID, turn=turn, language=language)
            assert heard.strip()


def test_numbers_are_never_half_dropped() -> None:
    text = "I paid forty nine dollars and one hundred and five cents"
    whole_number_drops = 0
    for turn in range(200):
        for d in distort(text, 0.6, conversation_id=CID, turn=turn, language="en").distortions:
            if d.kind == "drop" and d.position in (2, 6):
                assert d.original in ("forty nine", "one hundred and five")
                whole_number_drops += 1
            assert not (d.kind == "drop" and d.position in (3, 7, 8, 9))
    assert whole_number_drops > 0


def test_raising_intensity_only_adds_digits_and_homophones() -> None:
    text = "Their card number is 4821 and the bill was forty nine dollars"
    for turn in range(30):
        previous: set[tuple[str, int]] = set()
        for intensity in (0.2, 0.4, 0.6, 0.8, 1.0):
            current = {
                (d.kind, d.position)
                for d in distort(text, intensity, conversation_id=CID, turn=turn, language="en").distortions
                if d.kind in ("digits", "homophone")
            }
            assert previous <= current
            previous = current


# --- distort: each kind, exact outputs --------------------------------------------------------


def test_digits_en_digit_string() -> None:
    result = distort("My order number is 4821.", 0.5, conversation_id=CID, turn=6, language="en")
    assert result == (
        "My order number is four eight two one.",
        [Distortion(kind="digits", original="4821", replacement="four eight two one", position=4)],
    )


def test_digits_en_decimal() -> None:
    result = distort("The total was 49.00 today.", 0.5, conversation_id=CID, turn=6, language="en")
    assert result == (
        "The total was four nine point zero zero today.",
        [Distortion(kind="digits", original="49.00", replacement="four nine point zero zero", position=3)],
    )


def test_digits_en_number_words() -> None:
    result = distort("I paid forty-nine dollars, not fifty.", 0.5, conversation_id=CID, turn=1, language="en")
    assert result == (
        "I paid four nine dollars, not five zero.",
        [
            Distortion(kind="digits", original="forty-nine", replacement="four nine", position=2),
            Distortion(kind="digits", original="fifty", replacement="five zero", position=5),
        ],
    )


def test_digits_ru_digit_string() -> None:
    result = distort("Номер заказа 4821.", 0.5, conversation_id=CID, turn=3, language="ru")
    assert result == (
        "Номер заказа четыре восемь два один.",
        [Distortion(kind="digits", original="4821", replacement="четыре восемь два один", position=2)],
    )


def test_digits_ru_number_words() -> None:
    text = "Я заплатил сорок девять рублей, а не пятьдесят."
    result = distort(text, 0.5, conversation_id=CID, turn=3, language="ru")
    assert result == (
        "Я заплатил четыре девять рублей, а не пять ноль.",
        [
            Distortion(kind="digits", original="сорок девять", replacement="четыре девять", position=2),
            Distortion(kind="digits", original="пятьдесят", replacement="пять ноль", position=7),
        ],
    )


def test_homophone_en() -> None:
    result = distort("I want to pay the bill.", 0.5, conversation_id=CID, turn=7, language="en")
    assert result == (
        "I want two pay the bill.",
        [Distortion(kind="homophone", original="to", replacement="two", position=2)],
    )


def test_homophone_en_keeps_capital_letter() -> None:
    result = distort("Their card was declined.", 0.5, conversation_id=CID, turn=3, language="en")
    assert result == (
        "hello? They're cart was declined.",
        [
            Distortion(kind="homophone", original="Their", replacement="They're", position=0),
            Distortion(kind="homophone", original="card", replacement="cart", position=1),
            Distortion(kind="filler", original="", replacement="hello?", position=0),
        ],
    )


def test_homophone_ru_listed() -> None:
    result = distort("Мой код не подходит.", 0.5, conversation_id=CID, turn=25, language="ru")
    assert result == (
        "Мой кот не подходит.",
        [Distortion(kind="homophone", original="код", replacement="кот", position=1)],
    )


def test_homophone_ru_devoicing_rule_keeps_capital_letter() -> None:
    result = distort("Хлеб уже привезли.", 0.5, conversation_id=CID, turn=3, language="ru")
    assert result == (
        "Хлеп уже привезли.",
        [Distortion(kind="homophone", original="Хлеб", replacement="Хлеп", position=0)],
    )


def test_drop_en() -> None:
    result = distort("Please cancel my subscription today.", 0.5, conversation_id=CID, turn=4, language="en")
    assert result == (
        "Please my subscription today.",
        [Distortion(kind="drop", original="cancel", replacement="", position=1)],
    )


def test_drop_ru_takes_punctuation_with_the_word() -> None:
    result = distort("Пожалуйста, отмените мою подписку.", 0.5, conversation_id=CID, turn=0, language="ru")
    assert result == (
        "отмените мою подписку.",
        [Distortion(kind="drop", original="Пожалуйста", replacement="", position=0)],
    )


def test_filler_en() -> None:
    result = distort("I need a refund.", 0.5, conversation_id=CID, turn=2, language="en")
    assert result == (
        "uh I need a refund.",
        [Distortion(kind="filler", original="", replacement="uh", position=0)],
    )


def test_filler_ru() -> None:
    result = distort("Мне нужен возврат.", 0.5, conversation_id=CID, turn=2, language="ru")
    assert result == (
        "ну Мне нужен возврат.",
        [Distortion(kind="filler", original="", replacement="ну", position=0)],
    )


def test_all_kinds_together_keep_whitespace_between_survivors() -> None:
    text = "Hi, my card number is 4821 and I paid forty nine dollars for it."
    result = distort(text, 0.8, conversation_id="c1", turn=2, language="en")
    assert result.heard == "hmm Hi, my cart number is four eight two one I paid four nine for it."
    assert [(d.kind, d.position) for d in result.distortions] == [
        ("digits", 5),
        ("digits", 9),
        ("homophone", 2),
        ("drop", 6),
        ("drop", 11),
        ("filler", 0),
    ]


def test_a_users_homophone_groups_extend_the_bundled_list() -> None:
    from polygon_core.noise import parse_homophone_groups

    groups = parse_homophone_groups('groups:\n  - ["рецепт", "рецепты"]\n  - ["код", "годъ"]\n', "mine.yaml")
    extra = tuple(tuple(g) for g in groups)
    assert homophones("рецепт", "ru", extra) == ("рецепты",)
    assert homophones("код", "ru", extra) == ("кот", "годъ")  # the bundled group, then the user's
    assert homophones("рецепт", "ru") == ()
    _, distortions = distort("рецепт", 1.0, conversation_id="c", turn=0, language="ru", extra_homophones=extra)
    assert [(d.kind, d.replacement) for d in distortions if d.kind == "homophone"] == [("homophone", "рецепты")]
    with pytest.raises(ValueError, match=r"mine\.yaml: bad group"):
        parse_homophone_groups("groups:\n  - [one]\n", "mine.yaml")
