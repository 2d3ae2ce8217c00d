"""Whom a prompt hands a call over to, and what a caller who wants that asks for.

A handover target is never a preposition («переключите на IT-отдел» is the IT department, not «на»;
«переведите на 2-ю линию» the second line), and a wish with its verb left out ("If the caller wants
to, transfer them to a human", «Если клиент просит, переключите …») is a handover on request, not
a goal "get to" or «сообщить, что клиент просит».
"""

from __future__ import annotations

import pytest

from polygon_core.personas import generate_offline
from polygon_core.personas._read_ru import with_preposition
from polygon_core.personas._tasks_en import trigger_task
from polygon_core.personas._tasks_ru import handovers

RU_PROMPT = ("Вы оператор интернет-провайдера. Помогайте клиентам подключить тариф. Если клиент просит, "
             "переключите на IT-отдел. Сложные вопросы переведите на 2-ю линию.")
EN_PROMPT = ("You are the booking agent for Riverside Dental. Help callers book or cancel appointments. "
             "If the caller wants to, transfer them to a human.")


@pytest.mark.parametrize(("sentence", "who", "said"), [
    ("Если клиент просит, переключите на IT-отдел.", ["IT-отдел"], ["с IT-отделом"]),
    ("Сложные вопросы переведите на 2-ю линию.", ["2-я линия"], ["с 2-й линией"]),
    ("Соедините с бухгалтерией.", ["бухгалтерия"], ["с бухгалтерией"]),
    ("Переключите на отдел продаж.", ["отдел продаж"], ["с отделом продаж"]),
    # an adjective before its noun is inflected with it, not taken for the noun
    ("Переведите звонок старшему мастеру.", ["старший мастер"], ["со старшим мастером"]),
    ("Переведите звонок дежурному врачу.", ["дежурный врач"], ["с дежурным врачом"]),
])
def test_a_russian_handover_names_whom_not_a_preposition(sentence: str, who: list[str], said: list[str]) -> None:
    assert handovers(sentence) == who
    assert [with_preposition(w) for w in who] == said


def test_russian_transfer_callers_ask_for_the_named_lines() -> None:
    goals = {p.goal for p in generate_offline(RU_PROMPT, count=12).personas if p.intended_outcome == "transfer"}
    assert goals == {"поговорить с 2-й линией: я хочу подключить тариф",
                     "поговорить с IT-отделом: я хочу подключить тариф",
                     "поговорить с живым человеком: я хочу подключить тариф",
                     "чтобы меня соединили с оператором: я хочу подключить тариф"}


def test_an_elliptic_wish_is_no_goal() -> None:
    assert trigger_task("If the caller wants to, transfer them to a human.") is None
    wish = trigger_task("If the caller wants to dispute a charge, transfer them to a human.")
    assert wish is not None and wish.goals == ("dispute a charge",)
    goals = {p.goal for p in generate_offline(EN_PROMPT, count=12).personas if p.intended_outcome == "transfer"}
    assert goals == {"be put through to a human, I want to book an appointment",
                     "talk to a real person, I want to book an appointment"}
