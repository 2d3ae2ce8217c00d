"""Issue 31: a generated persona knows what its call is about, typed as the prompt types it, and a
persona set that lacks a fact the prompt asks for is flagged at generation.

The four prompts are `tests/language/prompts_callers.py` (airline and dental in English, pharmacy and
a children's clinic in Russian).
"""

from __future__ import annotations

import re

import pytest

from polygon_core.personas import generate_offline, read_prompt
from tests.language.prompts_callers import AIRLINE_EN, CLINIC_RU, DENTAL_EN, PHARMACY_RU

# (goal, ground truth) of the first four personas of a dozen, seed 0.
FIRST_FOUR = {
    "airline": [
        ("change a flight", {"name": "Lena Novak", "flight": "BL 1727", "new_date": "February 16"}),
        ("get an upgrade to business class", {"name": "Carla Mendes"}),
        ("ask about lost luggage", {"name": "Tyrone Mitchell"}),
        ("cancel a booking", {"reference": "244FBM", "name": "Harold Finch"}),
    ],
    "dental": [
        # "Ask which treatment they need and when they would like to come in": a treatment and a slot.
        ("book a check-up", {"name": "Gwen Pryce", "date_of_birth": "5 March 1976", "treatment": "a check-up",
                             "slot": "tomorrow afternoon"}),
        ("get medical advice", {"name": "Aisha Khan", "treatment": "a hygiene appointment", "slot": "tomorrow morning"}),
        ("report that a patient is in severe pain", {"name": "Maureen Lake", "treatment": "a hygiene appointment",
                                                     "slot": "Monday morning"}),
        ("reschedule an appointment", {"name": "Callum Reid", "treatment": "a check-up", "slot": "tomorrow morning"}),
    ],
    "pharmacy": [
        ("узнать наличие лекарства", {"medicine": "Метформин", "dosage": "850 мг", "name": "Иванова Мария Петровна",
                                      "phone": "+7 925 347-21-21", "nomer_retsept": "5725"}),
        # Without a prescription: no prescription number, and `prescription: False` (asked, it says it has none).
        ("забронировать рецептурные препараты без рецепта",
         {"medicine": "Метформин", "dosage": "850 мг", "name": "Смирнов Алексей Игоревич",
          "phone": "+7 918 130-67-92", "prescription": False}),
        ("попросить медицинских советов", {"medicine": "Ибупрофен", "dosage": "200 мг",
                                           "name": "Смирнов Алексей Игоревич", "phone": "+7 974 841-72-41",
                                           "nomer_retsept": "3587"}),
        ("забронировать лекарство для самовывоза", {"medicine": "Метформин", "dosage": "850 мг",
                                                    "name": "Соколова Анна Андреевна", "phone": "+7 940 978-65-47",
                                                    "nomer_retsept": "3233"}),
    ],
    "clinic": [
        # The doctor is the one the goal names, from the prompt's own list; the date of birth a child's.
        ("записать ребёнка на приём к педиатру", {"doctor": "педиатр", "den": "2 июля",
                                                  "name": "Смирнов Алексей Игоревич", "date_of_birth": "19 августа 2021"}),
        ("попросить поставить диагнозы", {"doctor": "педиатр", "den": "14 марта", "name": "Лебедев Игорь Николаевич",
                                          "date_of_birth": "3 сентября 2019"}),
        ("поговорить с дежурным врачом: я хочу записать ребёнка на приём к педиатру",
         {"doctor": "педиатр", "den": "10 марта", "name": "Соколова Анна Андреевна", "date_of_birth": "23 мая 2012"}),
        ("записать ребёнка на приём к стоматологу", {"doctor": "стоматолог", "den": "13 июля",
                                                     "name": "Смирнов Алексей Игоревич",
                                                     "date_of_birth": "22 февраля 2022"}),
    ],
}
PROMPTS = {"airline": AIRLINE_EN, "dental": DENTAL_EN, "pharmacy": PHARMACY_RU, "clinic": CLINIC_RU}


@pytest.mark.parametrize("name", list(FIRST_FOUR))
def test_a_persona_knows_the_object_of_its_task(name: str) -> None:
    result = generate_offline(PROMPTS[name], count=12)
    assert [(p.goal, p.ground_truth) for p in result.personas[:4]] == FIRST_FOUR[name]
    assert generate_offline(PROMPTS[name], count=12) == result  # the same seed, the same personas
    assert generate_offline(PROMPTS[name], count=12, seed=1).personas != result.personas


def test_the_object_comes_from_the_prompts_vocabulary() -> None:
    assert read_prompt(DENTAL_EN).vocabulary == (
        ("doctor", ("dentist",)), ("treatment", ("a check-up", "a hygiene appointment", "a filling")))
    assert read_prompt(CLINIC_RU).vocabulary == (("doctor", ("педиатр", "стоматолог", "окулист")),)
    assert read_prompt(AIRLINE_EN).vocabulary == (("flight_code", ("BL",)),)
    treatments = {p.ground_truth["treatment"] for p in generate_offline(DENTAL_EN, count=12).personas}
    assert treatments == {"a check-up", "a hygiene appointment", "a filling"}


def test_a_6_character_reference_is_6_characters() -> None:
    assert read_prompt(AIRLINE_EN).formats == (("reference", 6, "character"),)
    refs = [p.ground_truth["reference"] for p in generate_offline(AIRLINE_EN, count=24).personas
            if "reference" in p.ground_truth]
    assert refs == ["244FBM", "VUVT2V", "MW35A7", "994U46"]
    assert all(re.fullmatch(r"[A-Z0-9]{6}", str(r)) for r in refs)  # not `85-2246`


@pytest.mark.parametrize(("prompt", "key", "pattern"), [
    ("You help customers track an order. Ask for the 8-digit order number.", "order_number", r"\d{8}"),
    ("Ты помогаешь узнать статус заказа. Спроси 8-значный номер заказа.", "order_number", r"\d{8}"),
    ("You help guests change a booking. Ask for the ten-character booking reference.", "reference", r"[A-Z0-9]{10}"),
])
def test_an_identifier_is_typed_as_the_prompt_says(prompt: str, key: str, pattern: str) -> None:
    values = [p.ground_truth[key] for p in generate_offline(prompt, count=6).personas if key in p.ground_truth]
    assert values and all(re.fullmatch(pattern, str(v)) for v in values), values


@pytest.mark.parametrize(("prompt", "warning"), [
    ("You help patients book appointments. Always confirm the caller's identity: name and date of birth.",
     "no persona has date_of_birth, which the prompt says the agent asks for (\"Always confirm the caller's "
     "identity: name and date of birth.\"): every call that asks for it will fail for want of it"),
    ("Вы помогаете записаться к врачу. Для подтверждения личности нужны фамилия и дата рождения.",
     "no persona has date_of_birth, which the prompt says the agent asks for ('Для подтверждения личности нужны "
     "фамилия и дата рождения.'): every call that asks for it will fail for want of it"),
])
def test_a_fact_the_prompt_asks_for_and_no_persona_has_is_a_warning(prompt: str, warning: str) -> None:
    result = generate_offline(prompt, count=8)
    assert not any("date_of_birth" in p.ground_truth for p in result.personas)
    assert result.warnings == [warning]


@pytest.mark.parametrize("name", list(PROMPTS))
def test_a_persona_set_with_every_asked_fact_has_no_warning(name: str) -> None:
    assert generate_offline(PROMPTS[name], count=12).warnings == []
