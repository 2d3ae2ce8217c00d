"""Seeded fact values in the formats of the caller's country: names, dates, phones, ids, addresses.

Phone numbers are from ranges kept for fiction (US 555-01xx, UK 07700 900xxx); Russian numbers use
the +7 9xx mobile format. Amounts come from the prompt when it states any (see `PromptReading`).
"""

from __future__ import annotations

import random

from ..models import FactValue

_NAMES = {
    "en-US": ("Dana Whitfield", "Marcus Reyes", "Priya Natarajan", "Harold Finch", "Lena Novak",
              "Tyrone Mitchell"),
    "en-GB": ("Dana Whitfield", "Priya Natarajan", "Harold Finch", "Maureen Lake", "Rory Baird",
              "Gwen Pryce"),
    "ru-RU": ("Иванова Мария Петровна", "Смирнов Алексей Игоревич", "Кузнецова Ольга Викторовна",
              "Попов Дмитрий Сергеевич", "Соколова Анна Андреевна", "Лебедев Игорь Николаевич"),
}
_MONTHS = {
    "en": ("January", "February", "March", "April", "May", "June", "July", "August", "September",
           "October", "November", "December"),
    "ru": ("января", "февраля", "марта", "апреля", "мая", "июня", "июля", "августа", "сентября",
           "октября", "ноября", "декабря"),
}
_STREETS = {
    "en-US": ("1402 Oak Street", "77 Elm Avenue", "310 Lamar Boulevard", "9 Maple Court"),
    "en-GB": ("12 Canal Street", "4 Mill Lane", "27 Harbour Road", "9 Orchard Close"),
    "ru-RU": ("ул. Баумана, д. 12, кв. 5", "ул. Пушкина, д. 3, кв. 41", "пр. Победы, д. 87, кв. 12",
              "ул. Гагарина, д. 15"),
}
_POSTCODES = {
    "en-US": ("78701", "78704", "10027", "60614", "94110"),
    "en-GB": ("SW1A 2AA", "M1 4BT", "LS6 2QT", "BS8 1TH", "EH1 1YZ", "CF10 3AT"),
    "ru-RU": ("420111", "420015", "125009", "190000", "630099"),
}
_SLOTS = {
    "en": ("tomorrow morning", "tomorrow afternoon", "Monday morning", "Friday after lunch"),
    "ru": ("завтра утром", "завтра после обеда", "в понедельник утром", "в пятницу вечером"),
}
_CURRENCY = {"en-US": "dollars", "en-GB": "pounds", "ru-RU": "рублей"}


def _date(rng: random.Random, locale: str, *, year: bool) -> str:
    day, month = rng.randint(1, 28), rng.randrange(12)
    lang = locale[:2]
    text = (f"{_MONTHS[lang][month]} {day}" if locale == "en-US" else f"{day} {_MONTHS[lang][month]}")
    if year:
        y = rng.randint(1950, 2004)
        text = f"{text}, {y}" if locale == "en-US" else f"{text} {y}"
    return text


def _phone(rng: random.Random, locale: str) -> str:
    if locale == "en-US":
        return f"(512) 555-01{rng.randint(0, 99):02d}"
    if locale == "en-GB":
        return f"07700 900{rng.randint(0, 999):03d}"
    return f"+7 9{rng.randint(10, 99)} {rng.randint(100, 999)}-{rng.randint(10, 99)}-{rng.randint(10, 99)}"


def _ident(rng: random.Random, key: str, locale: str) -> str:
    if key == "insurance_id":
        if locale == "ru-RU":  # полис ОМС: 16 digits
            return "".join(str(rng.randint(0, 9)) for _ in range(16))
        return f"{rng.choice('ABCDHJKMW')}{rng.choice('EJKLPX')}H {rng.randint(1000, 9999)} {rng.randint(1000, 9999)}"
    if key == "order_number":
        return str(rng.randint(100000, 999999))
    if key == "reference":
        return f"{rng.randint(10, 99)}-{rng.randint(1000, 9999)}"
    return str(rng.randint(1000, 9999))  # account_id and any other number the agent asks for


def fact_value(key: str, rng: random.Random, locale: str, amounts: tuple[float, ...] = ()) -> FactValue:
    """A value for fact `key` in `locale`'s formats (seeded by `rng`)."""
    lang = locale[:2]
    if key in ("name", "new_name"):
        return rng.choice(_NAMES[locale])
    if key in ("postcode", "new_postcode"):
        return rng.choice(_POSTCODES[locale])
    if key in ("address", "new_street"):
        return rng.choice(_STREETS[locale])
    if key == "email":
        return f"{rng.choice(('dana', 'mark', 'olga', 'anna', 'igor', 'lena'))}{rng.randint(1, 99)}@example.com"
    if key == "date_of_birth":
        return _date(rng, locale, year=True)
    if key in ("charge_date", "date"):
        return _date(rng, locale, year=False)
    if key == "phone":
        return _phone(rng, locale)
    if key == "amount":
        return rng.choice(amounts or (12.5, 15.0, 35.0, 49.0, 60.0, 89.99))
    if key == "slot":
        return rng.choice(_SLOTS[lang])
    if key == "prescription":
        return True
    return _ident(rng, key, locale)


def currency(locale: str) -> str:
    """The currency word a caller in `locale` says after an amount."""
    return _CURRENCY[locale]
