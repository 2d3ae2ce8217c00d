"""Prompt analysis finds planted conflicts in both languages, with both rules highlighted (issue 20).

Each planted case is a short realistic prompt with two rules that conflict: an exception that waters
a rule down, or two rules whose actions exclude each other under overlapping conditions. At least 4
of 5 must be found per language (the rules tier alone); clean prompts stay at 0.
"""

from __future__ import annotations

import pytest

from polygon_core.analysis import analyze_prompt
from polygon_core.demo._agent import PROMPT_V1, PROMPT_V2

from .prompts import DENTAL_EN, PHARMACY_RU

_EN_HEAD = "You are Mia, the phone assistant of a dental clinic.\nGreet the caller by the clinic's name.\n"
_RU_HEAD = "Ты голосовой помощник аптеки «Здоровье».\nПоздоровайся и назови аптеку.\n"

EN = [
    ("Always verify identity before booking.", "If the caller is in a hurry, book without verifying."),
    ("Never give prices.", "Always tell the caller the price of a cleaning."),
    ("Always confirm the date of birth before you cancel an appointment.",
     "If the caller is a regular patient, cancel the appointment without confirming the date of birth."),
    ("Never promise a refund on the phone.", "If the treatment failed, promise the caller a full refund."),
    ("Do not book appointments on Sundays.", "Always book emergency appointments on the same day, including Sundays."),
]
RU = [
    ("Всегда проверяй личность перед записью.", "Если клиент торопится, записывай без проверки."),
    ("Никогда не называй цены.", "Всегда сообщай клиенту цену чистки."),
    ("Всегда уточняй номер заказа перед бронированием.",
     "Если покупатель постоянный, бронируй лекарство без уточнения номера заказа."),
    ("Никогда не обещай возврат денег.", "Если лекарство оказалось просроченным, обещай покупателю возврат денег."),
    ("Не сообщай стоимость доставки по телефону.", "Всегда называй покупателю стоимость доставки."),
]


def _found(head: str, first: str, second: str) -> bool:
    text = f"{head}{first}\nOffer help with anything else.\n{second}\n" if head is _EN_HEAD else \
        f"{head}{first}\nПредложи помощь с другими вопросами.\n{second}\n"
    conflict = analyze_prompt(text, max_tier=1).axes["conflict"]
    spans = {(h.start, h.end) for h in conflict.highlights}
    both = {(text.index(first), text.index(first) + len(first)),
            (text.index(second), text.index(second) + len(second))}
    return conflict.score > 0 and both <= spans


@pytest.mark.parametrize(("head", "cases"), [(_EN_HEAD, EN), (_RU_HEAD, RU)], ids=["en", "ru"])
def test_at_least_four_of_five_planted_conflicts_are_found_on_both_rules(head: str, cases: list) -> None:
    found = [_found(head, a, b) for a, b in cases]
    assert sum(found) >= 4, found
    assert found == [True] * 5  # today all five are found; a regression shows which one


def test_the_exception_is_named_as_watering_the_rule_down() -> None:
    text = "Always verify identity before booking.\nIf the caller is in a hurry, book without verifying."
    reasons = [h.reason for h in analyze_prompt(text, max_tier=1).axes["conflict"].highlights]
    assert reasons == ["watered down by the exception “If the caller is in a hurry, book without…”",
                       "an exception that waters down “Always verify identity before booking.”"]


CLEAN = [
    PROMPT_V1, PROMPT_V2, DENTAL_EN, PHARMACY_RU,
    "Always verify identity before booking.\nIf the caller is in a hurry, book the first free slot.",
    "Never give medical advice.\nAlways tell the caller the price of a cleaning.",
    "Всегда проверяй личность перед записью.\nЕсли клиент торопится, предложи ближайшее окно.",
    "Никогда не ставь диагноз по телефону.\nВсегда называй клиенту цену чистки.",
    "If the caller asks for a refund, check the order first.\nNever refund an order that was delivered "
    "more than 30 days ago.",
]


@pytest.mark.parametrize("text", CLEAN, ids=[f"clean-{i}" for i in range(len(CLEAN))])
def test_clean_prompts_stay_at_zero_conflict(text: str) -> None:
    conflict = analyze_prompt(text, max_tier=1).axes["conflict"]
    assert (conflict.score, conflict.highlights) == (0.0, [])


def test_the_analysis_corpus_has_conflicts_only_where_they_were_planted() -> None:
    from tests.analysis._corpus import CASES

    flagged = [(c.id, kind) for c in CASES for kind, text in (("defect", c.defect), ("clean", c.clean))
               if analyze_prompt(text, max_tier=1).axes["conflict"].score > 0]
    assert flagged == [("en-conflict", "defect"), ("ru-conflict", "defect")]
