"""Offline personas come from the prompt's own tasks and facts, in its language (issue 20).

The two prompts (tests/language/prompts.py) were written for this check; nothing in the readers was
written for their words in particular: the acceptance is that every goal and fact comes from them.
"""

from __future__ import annotations

import re

import pytest

from polygon_core.models import CALLER_TYPES, OUTCOMES
from polygon_core.personas import generate_offline, generation_plan, persona_id, read_prompt
from polygon_core.personas._language import detect_language
from polygon_core.personas._morph_ru import parse
from polygon_core.personas._plan import DIFFICULTIES
from polygon_core.personas._tasks_ru import caller_verb

from .prompts import (
    BANK_CARDS_EN,
    CAR_SERVICE_RU,
    COURIER_RU,
    DENTAL_EN,
    GYM_EN,
    HOTEL_EN,
    LIBRARY_EN,
    PHARMACY_RU,
    PIZZA_RU,
    TAXI_RU,
    VET_EN,
    VET_RU,
)

# Words the goal templates add around a task read from the prompt.
_TEMPLATE = {"get", "find", "out", "price", "talk", "real", "person", "put", "through", "want",
             "supervisor", "waived", "попросить", "поговорить", "хочу", "живым", "человеком", "чтобы",
             "меня", "соединили", "оператором", "сколько", "стоит", "узнать", "получить", "сделать",
             "request", "much", "costs", "when", "report", "about", "сообщить"}
_DEMO_LEFTOVERS = re.compile(r"card expiry|northwind|broadband|account|postcode|contract|SW1A|M1 4BT"
                             r"|Dana Whitfield|Priya Natarajan|4821|5530", re.IGNORECASE)  # its customers too


def _from_prompt(goal: str, prompt: str) -> list[str]:
    """The goal's words that are not in the prompt (5-letter stems or Russian lemmas, so word forms
    match; a perfective verb matches the prompt's imperfective one)."""
    words = re.findall(r"[^\W\d_]+", prompt.lower())
    stems = {w[:5] for w in words}
    lemmas = {parse(w)[0] for w in words if re.match(r"[а-яё]", w)}
    lemmas |= {caller_verb(lemma) for lemma in lemmas}
    return [w for w in re.findall(r"[^\W\d_]+", goal.lower())
            if len(w) > 3 and w not in _TEMPLATE and w[:5] not in stems and parse(w)[0] not in lemmas]


def test_language_is_detected_from_the_script() -> None:
    assert detect_language(DENTAL_EN) == "en"
    assert detect_language(PHARMACY_RU) == "ru"
    assert detect_language("Запись к врачу. Call 555-0101.") == "ru"


def test_the_dental_prompt_is_read_for_its_own_tasks_facts_refusals_and_handover() -> None:
    reading = read_prompt(DENTAL_EN)
    assert (reading.language, reading.locale) == ("en", "en-US")
    assert [t.goals[0] for t in reading.tasks] == [
        "book an appointment for check-ups and cleanings", "reschedule an appointment for check-ups and cleanings",
        "cancel an appointment for check-ups and cleanings", "get the first emergency slot the same day for a toothache",
        "find out the price of a dental implant consultation", "get a call back from the front desk"]
    assert reading.facts == ("name", "date_of_birth", "phone", "insurance_id")
    assert reading.refusals == ("get the 25 dollar fee waived", "get medical advice")
    assert reading.handovers == ("the on-call dentist",)
    assert reading.amounts == (150.0, 25.0)
    assert reading.outcomes == OUTCOMES


def test_the_pharmacy_prompt_is_read_in_russian() -> None:
    reading = read_prompt(PHARMACY_RU)
    assert (reading.language, reading.locale) == ("ru", "ru-RU")
    assert [t.goals[0] for t in reading.tasks] == [
        "узнать наличие лекарств", "забронировать лекарство для самовывоза", "узнать статус заказа",
        "узнать, сколько стоит доставка по городу", "получить обратный звонок"]
    assert reading.facts == ("name", "phone", "order_number")
    assert reading.refusals == ("забронировать рецептурные препараты без рецепта",
                                "попросить медицинских советов", "попросить подобрать замену лекарства")
    assert reading.handovers == ("фармацевт",)
    assert reading.outcomes == OUTCOMES


@pytest.mark.parametrize(("prompt", "language", "task_count"),
                         [(DENTAL_EN, "en", 8), (PHARMACY_RU, "ru", 8), (VET_EN, "en", 6), (PIZZA_RU, "ru", 6),
                          (LIBRARY_EN, "en", 7), (CAR_SERVICE_RU, "ru", 9), (HOTEL_EN, "en", 9),
                          (BANK_CARDS_EN, "en", 7), (COURIER_RU, "ru", 7), (VET_RU, "ru", 9), (GYM_EN, "en", 7),
                          (TAXI_RU, "ru", 7)],
                         ids=["dental-en", "pharmacy-ru", "vet-en", "pizza-ru", "library-en", "car-service-ru",
                              "hotel-en", "bank-cards-en", "courier-ru", "vet-ru", "gym-en", "taxi-ru"])
def test_every_persona_comes_from_its_prompt_in_its_language(prompt: str, language: str, task_count: int) -> None:
    reading = read_prompt(prompt)
    result = generate_offline(prompt, count=24)
    assert len(result.personas) == 24  # none dropped as a duplicate
    facts = {t.name: t.facts for t in reading.tasks + reading.refusal_tasks}
    by_name = {name: key for key, name in reading.fact_names}
    for persona, cell in zip(result.personas, result.cells, strict=True):
        assert persona.traits.language == language
        assert _from_prompt(persona.goal, prompt) == [], persona.goal
        # The ground truth is exactly the facts asked for the persona's task (name when none says who).
        unknown = {by_name.get(u, u.replace(" ", "_")) for u in persona.unknown}
        assert set(persona.ground_truth) | unknown == set(facts[str(cell.task)])
        # Keys are the prompt's own facts (checked above; a US ZIP code is the key `postcode`), so
        # the demo's words are looked for in what the caller says and knows, unless the prompt has
        # them too (the gym's "contract").
        text = " ".join([persona.goal, *map(str, persona.ground_truth.values()), *persona.unknown])
        leftovers = [m.group(0) for m in _DEMO_LEFTOVERS.finditer(text) if m.group(0).lower() not in prompt.lower()]
        assert leftovers == [], text
        assert persona_id(persona, cell.task).startswith(str(cell.task).replace("_", "-") + "-")
        if language == "ru":
            assert re.search(r"[а-яё]", persona.goal) and not re.search(r"[a-z]", persona.goal)
            if "name" in persona.ground_truth:
                assert re.fullmatch(r"[А-ЯЁ][а-яё]+ [А-ЯЁ][а-яё]+ [А-ЯЁ][а-яё]+", str(persona.ground_truth["name"]))
            assert str(persona.ground_truth.get("phone", "+7 9")).startswith("+7 9")
        else:
            assert not re.search(r"[а-яё]", text)
            assert str(persona.ground_truth.get("phone", "(512) 555-01")).startswith("(512) 555-01")
    tasks = {str(c.task) for c in result.cells}
    # Every task the prompt states is planned (24 personas reach them all), and ids name many tasks.
    assert tasks == set(facts) and len(tasks) == task_count
    assert {p.intended_outcome for p in result.personas} == set(reading.outcomes)


@pytest.mark.parametrize("prompt", [DENTAL_EN, PHARMACY_RU])
def test_the_plan_still_covers_types_outcomes_and_difficulties(prompt: str) -> None:
    plan = generation_plan(120, outcomes=read_prompt(prompt).outcomes)
    assert {(c.type, c.outcome, c.difficulty) for c in plan} == {
        (t, o, d) for t in CALLER_TYPES for o in OUTCOMES for d in DIFFICULTIES}


def test_generation_is_deterministic_per_prompt_and_seed() -> None:
    assert generate_offline(PHARMACY_RU, count=6) == generate_offline(PHARMACY_RU, count=6)
    assert generate_offline(PHARMACY_RU, count=6) != generate_offline(PHARMACY_RU, count=6, seed=1)
