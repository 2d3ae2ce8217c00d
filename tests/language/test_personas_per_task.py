"""Each task read from a prompt, with its goal in the caller's words and the facts asked for it.

Pinned per prompt (tests/language/prompts.py): every task's kind, goal and ground-truth keys, and
that a dozen personas call about every task before any task repeats.
"""

from __future__ import annotations

import re

import pytest

from polygon_core.models import CALLER_TYPES, OUTCOMES, Outcome
from polygon_core.personas import generate_offline, read_prompt
from polygon_core.personas._plan import DIFFICULTIES, task_plan

from .prompts import CAR_SERVICE_RU, LIBRARY_EN

Tasks = dict[str, tuple[str, str, tuple[str, ...]]]

LIBRARY_TASKS: Tasks = {
    "renew_borrowed_book": ("success", "renew my borrowed books", ("card_number", "date_of_birth")),
    "place_hold": ("success", "place a hold on titles", ("card_number", "date_of_birth")),
    "register_library_card": ("success", "register for a new library card", ("name",)),
    "ask_late_fee": ("success", "find out how much late fees are", ("name",)),
    "dispute_lost_item": ("transfer", "dispute a lost-item charge", ("name",)),
    "ask_opening_hour": ("success", "find out the opening hours", ("name",)),
    "another_patron": ("refusal", "find out what another patron has borrowed", ("name",)),
}
_BOOKING = ("name", "car_make", "licence_plate", "slot")
CAR_SERVICE_TASKS: Tasks = {
    "zapisatsya_zamena": ("success", "записаться на замену масла", _BOOKING),
    "zapisatsya_shinomontazh": ("success", "записаться на шиномонтаж", _BOOKING),
    "zapisatsya_diagnostik": ("success", "записаться на диагностику подвески", _BOOKING),
    "tsena_zamena": ("success", "узнать, сколько стоит замена масла", ("name",)),
    "tsena_shinomontazh": ("success", "узнать, сколько стоит шиномонтаж", ("name",)),
    "vernut_dengi": ("transfer", "вернуть деньги за ремонт", ("name",)),
    "perenesti_zapis": ("success", "перенести запись", ("phone",)),
    "otmenit_zapis": ("success", "отменить запись", ("phone",)),
    "sroki_remonta": ("refusal", "узнать сроки ремонта двигателя", ("name",)),
}
CASES = [(LIBRARY_EN, LIBRARY_TASKS), (CAR_SERVICE_RU, CAR_SERVICE_TASKS)]
IDS = ["library-en", "car-service-ru"]
# Formats of the values the prompts ask for, by key.
FORMATS = {
    "card_number": r"\d{4} \d{4} \d{4} \d{4}",
    "date_of_birth": r"[A-Z][a-z]+ \d{1,2}, \d{4}",
    "licence_plate": r"[АВЕКМНОРСТУХ]\d{3}[АВЕКМНОРСТУХ]{2} \d{2,3}",
    "car_make": r"[А-ЯЁ][а-яё]+ [А-ЯЁ][а-яё]+",
    "phone": r"\+7 9\d\d \d{3}-\d\d-\d\d",
}


def _tasks(prompt: str) -> Tasks:
    reading = read_prompt(prompt)
    return {t.name: (t.kind, t.goals[0], t.facts) for t in reading.tasks + reading.refusal_tasks}


@pytest.mark.parametrize(("prompt", "tasks"), CASES, ids=IDS)
def test_every_task_has_its_goal_and_the_facts_asked_for_it(prompt: str, tasks: Tasks) -> None:
    assert _tasks(prompt) == tasks


def test_the_handovers_are_read_in_their_language() -> None:
    library, car = read_prompt(LIBRARY_EN), read_prompt(CAR_SERVICE_RU)
    assert (library.handovers, library.outcomes) == (("the circulation desk",), ("success", "refusal", "transfer"))
    assert (car.handovers, car.outcomes) == (("старший мастер",), ("success", "refusal", "transfer"))
    assert car.amounts == (1500.0, 2400.0)


@pytest.mark.parametrize(("prompt", "tasks"), CASES, ids=IDS)
def test_a_dozen_personas_call_about_every_task_with_its_own_facts(prompt: str, tasks: Tasks) -> None:
    result = generate_offline(prompt, count=12)
    named = [c.task for c in result.cells]
    assert set(named[: len(tasks)]) == set(tasks)  # every task before any repeats
    for persona, cell in zip(result.personas, result.cells, strict=True):
        kind, goal, facts = tasks[str(cell.task)]
        assert (persona.goal, persona.intended_outcome) == (goal, kind)
        assert sorted([*persona.ground_truth, *(u.replace(" ", "_") for u in persona.unknown)]) == sorted(facts)
        assert "slot" not in persona.ground_truth or "slot" in facts
        for key, value in persona.ground_truth.items():
            if key in FORMATS:
                assert re.fullmatch(FORMATS[key], str(value)), (key, value)


def test_the_task_plan_covers_types_outcomes_and_difficulties_and_is_seeded() -> None:
    items: list[tuple[str, Outcome]] = [("renew", "success"), ("hold", "success"), ("patron", "refusal"), ("desk", "transfer"),
             ("call", "callback"), ("hours", "success"), ("fees", "success")]
    plan = task_plan(5 * len(CALLER_TYPES) * len(items), items)
    assert {(c.type, c.outcome, c.difficulty) for c in plan} == {
        (t, o, d) for t in CALLER_TYPES for o in OUTCOMES for d in DIFFICULTIES}
    assert [c.task for c in plan[: len(items)]] == [t for t, _ in items]
    assert [c.type for c in plan[:6]] == list(CALLER_TYPES)
    assert task_plan(12, items, seed=2) == task_plan(12, items, seed=2) != task_plan(12, items)
    with pytest.raises(ValueError, match="at least one caller type and one task"):
        task_plan(3, [])
