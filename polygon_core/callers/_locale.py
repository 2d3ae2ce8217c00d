"""Which country's caller a persona is, read from its own values, and the currency it says.

A persona records its language, not its country: the country shows in the formats of its values
(the persona generator writes them per locale, see `polygon_core.personas._values`). A British
postcode or 07700 mobile makes a caller British, a ZIP code or a (512) 555 number American, a
weight in pounds American; a goal that names dollars or pounds says so too. An English persona
none of whose values tell is British, as the demo's callers are (they say "pounds").
"""

from __future__ import annotations

import re

from ..models import Persona

CURRENCY = {"en-US": "dollars", "en-GB": "pounds", "ru-RU": "рублей"}
# (fact keys, pattern over the value, locale), the first match deciding.
_EVIDENCE: tuple[tuple[tuple[str, ...], re.Pattern[str], str], ...] = (
    (("postcode", "new_postcode"), re.compile(r"^[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2}$", re.IGNORECASE), "en-GB"),
    (("postcode", "new_postcode"), re.compile(r"^\d{5}(?:-\d{4})?$"), "en-US"),
    (("phone",), re.compile(r"^(?:\+44|07\d{3})"), "en-GB"),
    (("phone",), re.compile(r"^(?:\+1\b|\(\d{3}\)\s?\d{3}-\d{4})"), "en-US"),
    (("weight",), re.compile(r"\b(?:pounds?|lbs?)\b", re.IGNORECASE), "en-US"),
    (("weight",), re.compile(r"\b(?:kilos?|kg)\b", re.IGNORECASE), "en-GB"),
)
_GOAL = ((re.compile(r"\$|\bdollars?\b", re.IGNORECASE), "en-US"), (re.compile(r"£|\bpounds?\b", re.IGNORECASE), "en-GB"))


def persona_locale(persona: Persona, language: str) -> str:
    """``ru-RU`` for a Russian-speaking caller; else ``en-US`` or ``en-GB`` by the persona's values."""
    if language == "ru":
        return "ru-RU"
    truth = persona.ground_truth
    for keys, pattern, locale in _EVIDENCE:
        if any(isinstance(truth.get(k), str) and pattern.search(str(truth[k]).strip()) for k in keys):
            return locale
    for pattern, locale in _GOAL:
        if pattern.search(persona.goal):
            return locale
    return "en-GB"


def currency(locale: str) -> str:
    """The currency word a caller in `locale` says after an amount."""
    return CURRENCY.get(locale, CURRENCY["en-GB"])
