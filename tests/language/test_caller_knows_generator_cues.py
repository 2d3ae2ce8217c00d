"""The offline caller recognises every cue the persona generator reads a fact's kind by (`KINDS`).

A prompt that asks for "the surname" makes a persona with a `name`; an agent asking "What is your
surname?" must get the name, in English and in Russian (whose cues are lemmas: the question says
them inflected). The only cues left out are those that, said by an agent, ask for something else
(`NOT_ASKED_BY`: "How much was the charge?" asks for the amount, not the charge date).
"""

from __future__ import annotations

import pytest

from polygon_core.callers._cues import FACT_CUES, FACT_CUES_RU, NOT_ASKED_BY
from polygon_core.callers._kinds import KINDS
from polygon_core.callers._matching import asked_kinds
from polygon_core.models import Language
from tests.language.test_caller_answers_facts import reply

# Each Russian lemma cue as an agent says it, after «Назовите».
RU_SAID = {
    "лицевой счёт": "лицевой счёт", "номер договор": "номер договора", "номер счёт": "номер счёта",
    "почтовый индекс": "почтовый индекс", "индекс": "индекс", "фамилия": "фамилию", "имя": "имя", "фио": "ФИО",
    "почта": "вашу почту", "email": "email", "e-mail": "e-mail", "электронный почта": "электронную почту",
    "дата рождение": "дату рождения", "телефон": "телефон", "номер телефон": "номер телефона", "адрес": "адрес",
    "номер заказ": "номер заказа", "полис": "полис", "снилс": "СНИЛС", "номер бронь": "номер брони",
    "номер брони": "номер брони", "номер бронирование": "номер бронирования", "сумма": "сумму",
    "дата списание": "дату списания", "последний четыре цифра": "последние четыре цифры",
    "последний 4 цифра": "последние 4 цифры", "номер карта": "номер карты", "девичий фамилия": "девичью фамилию",
    "марка": "марку", "модель автомобиль": "модель автомобиля", "модель машина": "модель машины",
    "госномер": "госномер", "гос номер": "гос номер", "номерной знак": "номерной знак",
    "номер автомобиль": "номер автомобиля", "номер машина": "номер машины", "накладный": "номер накладной",
    "накладная": "накладную", "трек": "трек", "трек-номер": "трек-номер", "номер отправление": "номер отправления",
    "номер посылка": "номер посылки", "кличка": "кличку", "вид животное": "вид животного",
    "вид питомец": "вид питомца", "порода": "породу", "вес": "вес", "удобный время": "удобное время",
    "удобный дата": "удобную дату", "удобный день": "удобный день", "желаемый дата": "желаемую дату",
    "желаемый время": "желаемое время", "рейс": "рейс", "номер рейс": "номер рейса", "новый дата": "новую дату",
    "новый день": "новый день", "лекарство": "лекарство", "препарат": "препарат", "медикамент": "медикамент",
    "название лекарство": "название лекарства", "дозировка": "дозировку", "доза": "дозу", "врач": "врача",
    "специалист": "специалиста", "доктор": "доктора", "услуга": "услугу", "процедура": "процедуру",
}
EN = [(key, cue) for key, cues, _ru in KINDS for cue in cues if cue not in NOT_ASKED_BY.get(key, ())]
RU = [(key, " ".join(cue)) for key, _en, cues in KINDS for cue in cues
      if " ".join(cue) not in NOT_ASKED_BY.get(key, ())]


@pytest.mark.parametrize(("key", "cue"), EN, ids=[f"{k}-{c}" for k, c in EN])
def test_every_english_generator_cue_asks_for_its_kind(key: str, cue: str) -> None:
    question = f"what is your {cue}?"
    assert asked_kinds(question, list(FACT_CUES), FACT_CUES) == [key]


@pytest.mark.parametrize(("key", "cue"), RU, ids=[f"{k}-{c}" for k, c in RU])
def test_every_russian_generator_cue_asks_for_its_kind(key: str, cue: str) -> None:
    question = f"назовите {RU_SAID[cue]}.".lower()
    assert asked_kinds(question, list(FACT_CUES_RU), FACT_CUES_RU) == [key]


def test_the_russian_phrasings_cover_every_generator_cue_and_only_the_charge_is_left_out() -> None:
    assert {c for _k, c in RU} == set(RU_SAID) - {"списание"}
    # The English words of an object kind alone are said in remarks too ("I have that flight"): its
    # caller cues are questions ("which flight").
    assert NOT_ASKED_BY == {"charge_date": ("charge", "списание"), "flight": ("flight",),
                            "medicine": ("medicine", "medication"), "doctor": ("doctor", "specialist", "clinician"),
                            "treatment": ("treatment", "procedure")}
    assert [c for c in FACT_CUES["name"] if c not in ("your name", "who am i speaking", "full name", "name on the",
                                                       "owner's name")] == ["name", "first name", "surname",
                                                                            "last name"]


@pytest.mark.parametrize(("language", "question", "expected"), [
    ("en", "What is your surname?", "My name is Dana Whitfield."),
    ("en", "And your last name, please?", "My name is Dana Whitfield."),
    ("ru", "Назовите имя.", "Меня зовут Иванова Мария Петровна."),
])
def test_a_persona_asked_in_the_generators_words_answers(language: Language, question: str, expected: str) -> None:
    name = "Иванова Мария Петровна" if language == "ru" else "Dana Whitfield"
    assert reply(language, {"name": name}, question) == expected


def test_a_postal_code_is_the_postcode() -> None:
    assert reply("en", {"postcode": "SW1A 2AA"}, "What's your postal code?") == "The postcode is SW1A 2AA."
