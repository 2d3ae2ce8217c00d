"""Seeded fact values in the formats of the caller's country: names, dates, phones, ids, addresses.

Phone numbers are from ranges kept for fiction (US 555-01xx, UK 07700 900xxx); Russian numbers use
the +7 9xx mobile format. Amounts come from the prompt when it states any (see `PromptReading`).
"""

from __future__ import annotations

import random

from ..callers import head_word
from ..models import FactValue

_NAMES = {
    # Not the demo suite's customers (Dana Whitfield, Priya Natarajan), in either list: a prompt's
    # personas are its own callers, not the demo's.
    "en-US": ("Carla Mendes", "Marcus Reyes", "Nina Osei", "Harold Finch", "Lena Novak",
              "Tyrone Mitchell"),
    "en-GB": ("Callum Reid", "Aisha Khan", "Harold Finch", "Maureen Lake", "Rory Baird", "Gwen Pryce"),
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
    "en-GB": ("NE1 7RU", "G2 8DL", "LS6 2QT", "BS8 1TH", "EH1 1YZ", "CF10 3AT"),  # not the demo's SW1A 2AA, M1 4BT
    "ru-RU": ("420111", "420015", "125009", "190000", "630099"),
}
_SLOTS = {
    "en": ("tomorrow morning", "tomorrow afternoon", "Monday morning", "Friday after lunch"),
    "ru": ("завтра утром", "завтра после обеда", "в понедельник утром", "в пятницу вечером"),
}
# Kinds of fact a prompt may ask for beyond who the caller is, per language.
_WORDS: dict[str, dict[str, tuple[str, ...]]] = {
    "car_make": {"en": ("Toyota Corolla", "Ford Focus", "Honda Civic", "Volkswagen Golf", "Hyundai Elantra"),
                 "ru": ("Лада Веста", "Киа Рио", "Хендай Солярис", "Шкода Октавия", "Тойота Камри")},
    "pet_name": {"en": ("Biscuit", "Luna", "Max", "Pepper", "Milo"), "ru": ("Барсик", "Мурка", "Рекс", "Бусинка", "Тишка")},
    "species": {"en": ("dog", "cat", "rabbit", "parrot"), "ru": ("кошка", "собака", "кролик", "попугай")},
    "breed": {"en": ("beagle", "Maine Coon", "labrador", "Siamese"), "ru": ("бигль", "мейн-кун", "лабрадор", "сиамская")},
    "maiden_name": {"en": ("Hollis", "Brennan", "Okafor", "Lindqvist", "Marsh"),
                    "ru": ("Орлова", "Белова", "Морозова", "Зайцева", "Волкова")},
    "time": {"en": ("10:30 am", "2 pm", "9 am", "4:15 pm"), "ru": ("10:30", "14:00", "9:00", "16:15")},
    "_name_like": {"en": ("Riverside", "Morgan", "Atlas", "Juniper"), "ru": ("Ромашка", "Север", "Лотос", "Берёзка")},
}
_PLATE_LETTERS = "АВЕКМНОРСТУХ"  # the Cyrillic letters a Russian plate may carry (those Latin has too)
_RU_REGIONS = ("77", "116", "16", "50", "78", "54", "161")
_WEIGHT = {"en-US": "{n} pounds", "en-GB": "{n} kilos", "ru-RU": "{n} кг"}
# Head words of a fact key we do not know, by the kind of value they ask for.
_DATE_WORDS = frozenset({"date", "day", "data", "den"})
_TIME_WORDS = frozenset({"time", "hour", "vremya", "chas"})
_NAME_WORDS = frozenset({"name", "title", "imya", "familiya", "klichka", "nazvanie", "marka", "model", "brand",
                         "word", "password", "phrase", "slovo", "parol"})  # a code word is a word too
_COUNT_WORDS = frozenset({"kolichestvo", "count"})


def _date(rng: random.Random, locale: str, *, year: bool) -> str:
    day, month = rng.randint(1, 28), rng.randrange(12)
    lang = locale[:2]
    text = (f"{_MONTHS[lang][month]} {day}" if locale == "en-US" else f"{day} {_MONTHS[lang][month]}")
    if year:
        y = rng.randint(1950, 2004)
        text = f"{text}, {y}" if locale == "en-US" else f"{text} {y}"
    return text


def child_birth_date(rng: random.Random, locale: str) -> str:
    """A child's date of birth (a children's clinic asks for the child's, not the parent's)."""
    text = _date(rng, locale, year=False)
    year = rng.randint(2010, 2023)
    return f"{text}, {year}" if locale == "en-US" else f"{text} {year}"


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


def _plate(rng: random.Random, locale: str) -> str:
    if locale == "ru-RU":  # «А123ВС 116»
        a, b, c = (rng.choice(_PLATE_LETTERS) for _ in range(3))
        return f"{a}{rng.randint(100, 999)}{b}{c} {rng.choice(_RU_REGIONS)}"
    letters = "ABCDEFGHJKLMNPRSTVWXYZ"
    if locale == "en-GB":  # "AB12 CDE"
        return (f"{rng.choice(letters)}{rng.choice(letters)}{rng.randint(10, 75)} "
                f"{''.join(rng.choice(letters) for _ in range(3))}")
    return f"{rng.randint(1, 9)}{''.join(rng.choice(letters) for _ in range(3))}{rng.randint(100, 999)}"


def _digits(rng: random.Random, n: int, group: int = 0) -> str:
    text = str(rng.randint(1, 9)) + "".join(str(rng.randint(0, 9)) for _ in range(n - 1))
    return " ".join(text[i:i + group] for i in range(0, n, group)) if group else text


def _other(key: str, rng: random.Random, locale: str) -> FactValue:
    """A value for a fact we know only by its key's words: its head noun decides the kind."""
    lang = locale[:2]
    words = key.split("_")
    # Russian puts the head noun first («время подачи»); English last, or before "of" ("date of damage"):
    # the caller's rule, so the fact it hears named is the one whose value this picks.
    head = head_word(words, head_first=lang == "ru")
    if (words[0] == "number" and "of" in words) or head in _COUNT_WORDS:
        return rng.randint(1, 4)
    if head in _DATE_WORDS:
        return _date(rng, locale, year=False)
    if head in _TIME_WORDS:
        return rng.choice(_WORDS["time"][lang])
    if head in _NAME_WORDS:
        return rng.choice(_WORDS["_name_like"][lang])
    return _ident(rng, key, locale)


def fact_value(key: str, rng: random.Random, locale: str, amounts: tuple[float, ...] = ()) -> FactValue:
    """A value for fact `key` in `locale`'s formats (seeded by `rng`); a key of a kind we do not
    know gets an id-like, date, time or name-like value by its head noun."""
    lang = locale[:2]
    if key in _WORDS:
        return rng.choice(_WORDS[key][lang])
    if key == "licence_plate":
        return _plate(rng, locale)
    if key == "card_number":
        return _digits(rng, 16, 4)
    if key == "card_last4":
        return _digits(rng, 4)
    if key == "tracking_number":
        return _digits(rng, 10 if lang == "ru" else 12)
    if key == "weight":
        return _WEIGHT[locale].format(n=rng.choice((1, 2, 3, 5, 8)))
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
    if key in ("account_id", "order_number", "reference", "insurance_id"):
        return _ident(rng, key, locale)
    return _other(key, rng, locale)
