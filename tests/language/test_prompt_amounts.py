"""The amounts a prompt states, read as numbers: thousands separators and all.

"$1,500" is 1500, not 1; «1 500 рублей» is 1500 whether its space is a plain or a no-break one
(which used to stop the Russian reader with a ValueError).
"""

from __future__ import annotations

import pytest

from polygon_core.personas._read_en import read_english
from polygon_core.personas._read_ru import read_russian


@pytest.mark.parametrize(("prompt", "amounts"), [
    ("Refunds of up to $1,500 can be issued.", [1500.0]),
    ("The deposit is £2,000.50 and the fee is 1,250,000 dollars.", [2000.5, 1250000.0]),
    ("Late fees are $25; the excess is 250 pounds.", [25.0, 250.0]),
    ("We charge $12.50 for 3, 4 or 5 items.", [12.5]),
])
def test_english_amounts(prompt: str, amounts: list[float]) -> None:
    assert read_english(prompt).amounts == amounts


@pytest.mark.parametrize(("prompt", "amounts"), [
    ("Возврат возможен до 1 500 рублей.", [1500.0]),
    ("Штраф 1500 рублей.", [1500.0]),
    ("Доставка стоит 2\u00a0000 руб., подъём 350,50 ₽.", [2000.0, 350.5]),
    ("Депозит 10\u202f000 рублей.", [10000.0]),
])
def test_russian_amounts(prompt: str, amounts: list[float]) -> None:
    assert read_russian(prompt).amounts == amounts


@pytest.mark.parametrize(("said", "contradiction"), [
    ("It was $1,500 on my bill.", None), ("It was 1,500 dollars.", None), ("It was $1500.", None),
    ("It was $1,400.", "1,400"),
])
def test_a_caller_stating_an_amount_with_thousands_commas_is_no_contradiction(said: str,
                                                                             contradiction: str | None) -> None:
    from polygon_core.personas._faults import _stated_value_contradicts

    assert _stated_value_contradicts("amount", 1500.0, said) == contradiction
