"""The offline caller says an amount in its own country's currency, read from its persona's values.

A persona records its language, not its country; its values show the country (a ZIP code or a
(512) 555 number is American, a postcode like SW1A 2AA British). An English persona none of whose
values tell says "pounds", as the demo's callers always have.
"""

from __future__ import annotations

import pytest

from polygon_core.callers._locale import persona_locale
from polygon_core.models import FactValue, Language, Persona
from polygon_core.personas import generate_offline
from tests.language.test_caller_answers_facts import reply

QUESTION = {"en": "How much was the charge?", "ru": "Сколько с вас списали?"}


@pytest.mark.parametrize(("language", "truth", "expected"), [
    ("en", {"phone": "(512) 555-0106", "amount": 35.0}, "It was 35 dollars."),
    ("en", {"postcode": "78701", "amount": 12.5}, "It was 12.5 dollars."),
    ("en", {"weight": "5 pounds", "amount": 35.0}, "It was 35 dollars."),
    ("en", {"postcode": "SW1A 2AA", "amount": 35.0}, "It was 35 pounds."),
    ("en", {"phone": "07700 900123", "amount": 35.0}, "It was 35 pounds."),
    ("en", {"amount": 35.0}, "It was 35 pounds."),
    ("ru", {"phone": "+7 912 345-67-89", "amount": 1500.0}, "Было 1500 рублей."),
])
def test_the_amount_is_said_in_the_callers_currency(language: Language, truth: dict[str, FactValue],
                                                   expected: str) -> None:
    assert reply(language, truth, QUESTION[language]) == expected


def test_a_goal_in_dollars_makes_an_american_caller() -> None:
    assert persona_locale(Persona(goal="get my $40 fee back", ground_truth={"amount": 40.0}), "en") == "en-US"
    assert persona_locale(Persona(goal="get my £40 fee back", ground_truth={"amount": 40.0}), "en") == "en-GB"
    assert persona_locale(Persona(goal="вернуть деньги", ground_truth={"amount": 40.0}), "ru") == "ru-RU"


def test_a_generated_american_caller_says_dollars() -> None:
    prompt = ("You are the billing line for Lone Star Power in Austin. Help callers dispute a charge. "
              "Ask for the caller's phone number and the amount. Refunds up to $1,500.")
    persona = generate_offline(prompt, count=1).personas[0]
    assert persona.ground_truth["amount"] == 1500.0
    assert reply("en", dict(persona.ground_truth), QUESTION["en"]) == "It was 1500 dollars."
