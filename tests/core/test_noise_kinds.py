"""Recognition noise: each distortion kind in English and Russian, exact outputs."""

from __future__ import annotations

import pytest

from polygon_core.models import Distortion
from polygon_core.noise import distort
from polygon_core.noise._homophones import homophones

from ._noise_helpers import CID

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
