"""The words an agent asks for each kind of fact with, per language, and what a Russian caller calls them.

One entry per kind the persona generator produces (`_kinds.KINDS`, plus the keys its values table
knows). Every English cue of `KINDS` is a cue here too, and every one-word Russian cue by its stem
(«фамилия» → «фамили»), added below, so a question in the generator's own words is recognised; the
lists here are the caller's further phrasings. Cues are lowercase substrings of the agent's words; Russian cues are
stems or the inflected forms listed («кличк» matches «кличку», «клички»), since the caller does no
morphology. Where two kinds' cues overlap in one question the longer cue wins ("the last four digits
of your card number" asks for the last four digits, not the card number; see `_matching`).
A key with no entry (a kind the generator made from the prompt's own words) is matched by its words.
"""

from __future__ import annotations

import re

from ._kinds import KINDS

# Cue phrases that, in the agent's words, ask for a fact. The first nine entries are the demo's and
# keep its pinned lines; keys not listed fall back to their own words ("charge_date" → "charge date").
FACT_CUES: dict[str, tuple[str, ...]] = {
    "account_id": ("account number", "account id", "account no"),
    "postcode": ("postcode", "post code", "zip"),
    "amount": ("how much", "amount"),
    "charge_date": ("when was", "which date", "what date"),
    "name": ("your name", "who am i speaking", "full name", "name on the", "owner's name"),
    "new_street": ("new address",),
    "new_postcode": ("new address",),
    "slot": ("when would suit", "what time", "when suits", "which time", "convenient time", "preferred time",
             "time slot", "preferred date", "convenient date", "preferred day", "suitable time", "which day",
             "what day", "when is convenient", "when would be convenient", "when would you like"),
    "email": ("email", "e-mail", "email address", "e-mail address"),
    "phone": ("phone", "phone number", "mobile number", "telephone number", "contact number", "number to reach you",
              "best number"),
    "date_of_birth": ("date of birth", "birthday", "birth date", "when were you born"),
    "address": ("address", "home address", "street address", "delivery address", "your address", "the address",
                "what address", "which address", "address for"),
    "order_number": ("order number", "order id", "order no"),
    "insurance_id": ("member id", "insurance number", "insurance id", "policy number", "insurance details"),
    "reference": ("reference", "booking number", "confirmation number"),
    "card_number": ("card number", "library card", "card no", "number on your card", "number on the card"),
    "card_last4": ("last four", "last 4", "last four digits of your card", "last four digits of the card",
                   "last 4 digits of your card", "last 4 digits of the card"),
    "maiden_name": ("maiden name", "maiden"),
    "car_make": ("car make", "make of your car", "make of the car", "make of car", "make and model",
                 "vehicle make", "car model", "model of your car", "what car", "which car", "kind of car",
                 "what vehicle", "make of your vehicle", "make of the vehicle"),
    "licence_plate": ("licence plate", "license plate", "registration number", "reg number", "number plate",
                      "plate number", "car registration", "vehicle registration", "your registration", "plate"),
    "tracking_number": ("tracking", "waybill", "parcel number", "consignment number"),
    "pet_name": ("pet's name", "pet name", "name of your pet", "name of the pet", "animal's name", "dog's name",
                 "cat's name", "pet called", "your pet's called"),
    "species": ("species", "kind of animal", "type of pet", "type of animal", "kind of pet", "what animal",
                "cat or a dog", "dog or a cat"),
    "breed": ("breed",),
    "weight": ("weight", "weigh", "how heavy", "how much does it weigh", "how much does the parcel weigh",
               "how much does your parcel weigh", "how much does the package weigh"),
    "prescription": ("prescription",),
    "new_name": ("new name", "new name on the"),
    # What the call is about: heard only in a question or a request (`_kinds.OBJECT_KINDS`).
    "flight": ("which flight", "what flight", "flight number", "flight is it", "flight are you", "flight was it"),
    "new_date": ("new date", "which date", "what date", "date would you like", "when would you like to fly",
                 "when do you want to fly", "when would you like to travel", "move it to", "change it to"),
    "medicine": ("which medicine", "what medicine", "which medication", "what medication", "which drug",
                 "what drug", "name of the medicine", "medicine do you", "medication do you", "medicine is it"),
    "dosage": ("dosage", "dose", "strength", "how many milligrams"),
    "doctor": ("which doctor", "which specialist", "what doctor", "doctor would you", "doctor do you"),
    "treatment": ("which treatment", "what treatment", "treatment do you", "type of appointment", "what do you need",
                  "what would you like to book", "which service", "what service"),
}
FACT_CUES_RU: dict[str, tuple[str, ...]] = {
    "account_id": ("лицевой счёт", "лицевого счёта", "лицевой счет", "номер договора", "номер счёт", "номер счет"),
    "postcode": ("индекс", "почтовый индекс", "почтового индекса"),
    "amount": ("сколько", "сумм"),
    "charge_date": ("когда было списан", "какого числа", "дата списания", "дату списания", "даты списания"),
    "name": ("фамили", "как вас зовут", "ваше имя", "фио", "ваши имя", "имя", "имени"),
    "phone": ("телефон",),
    "order_number": ("номер заказа", "номер вашего заказа"),
    "date_of_birth": ("дату рождения", "дата рождения", "дате рождения", "год рождения"),
    "address": ("адрес",),
    "insurance_id": ("полис", "снилс"),
    "reference": ("номер брони", "номер бронирования"),
    "slot": ("когда вам удобно", "удобное время", "какое время", "на когда", "в какой день", "во сколько",
             "удобную дат", "удобная дат", "удобный день", "удобного времени", "желаемую дат", "желаемое время",
             "когда вам будет удобно"),
    "email": ("почт", "email", "e-mail"),
    "card_number": ("номер карт", "номер вашей карт", "номер банковской карт", "номер читательск",
                    "номер вашего читательск", "читательский билет", "читательского билет"),
    "card_last4": ("последние четыре", "последних четыр", "последние 4", "последних 4", "последние цифры",
                   "последних цифр", "последние четыре цифры карт", "последних четырёх цифр карт",
                   "последних четырех цифр карт"),
    "maiden_name": ("девичья фамили", "девичью фамили", "девичьей фамили", "девичья", "девичью", "девичьей"),
    "car_make": ("марка", "марку", "марки", "маркой", "марке", "модель машин", "модель автомоб",
                 "модель вашей машин", "модель вашего автомоб", "какой модели", "какая у вас машина", "какой у вас автомобиль",
                 "какая машина", "какой автомобиль"),
    "licence_plate": ("госномер", "гос. номер", "гос номер", "государственный номер", "государственного номер",
                      "номерной знак", "номерного знака", "номер машины", "номер автомобиля",
                      "номер вашей машины", "номер вашего автомобиля", "номер авто"),
    "tracking_number": ("накладн", "трек", "номер отправления", "номер посылки", "номер вашей посылки",
                        "номер вашего отправления"),
    "pet_name": ("кличк", "как зовут питомца", "как зовут вашего питомца", "как зовут животное",
                 "как зовут собаку", "как зовут кошку", "как зовут вашу", "как зовут вашего", "имя питомца"),
    "species": ("вид животного", "вид питомца", "какое животное", "какое у вас животное", "что за животное",
                "какой у вас питомец", "что за питомец", "кошка или собака",
                "собака или кошка"),
    "breed": ("пород",),
    "weight": ("вес ", "вес?", "вес,", "вес.", "вес посылк", "вес отправлени", "вес груз", "сколько весит",
               "какой вес", "весит"),
    "prescription": ("рецепт",),
    "new_name": ("новую фамили", "новая фамили", "новое имя"),
    "flight": ("рейс",),
    "new_date": ("новую дат", "новая дата", "новый день", "на какую дат", "на какое число", "на когда перенести",
                 "на какой день перенести"),
    "medicine": ("лекарств", "препарат", "медикамент"),
    "dosage": ("дозировк", "дозу", "доза", "дозы", "сколько миллиграмм"),
    "doctor": ("врач", "специалист", "доктор"),
    "treatment": ("услуг", "процедур"),
}


def _ru_stem(lemma: str) -> str | None:
    # The lemma without its ending, so its inflected forms match («фамилия» → «фамили», «почтовый» →
    # «почтов»); None for a short word («имя», «вес»): as a substring it would match other words
    # («перевести»), so the lists above carry its forms.
    stem = re.sub(r"(?:ый|ий|ой|ая|яя|ое|ее|[аяоеьй])$", "", lemma)
    return stem if len(stem) >= 4 else None


def _with_kinds(own: dict[str, tuple[str, ...]], kinds: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
    """The caller's own cues, each kind's generator cues appended (without repeats)."""
    keys = list(own) + [k for k in kinds if k not in own]
    return {k: tuple(dict.fromkeys((*own.get(k, ()), *kinds.get(k, ())))) for k in keys}


# Generator cues that, said by an agent, do not ask for the kind: "the charge" names the charge
# in a prompt's list, but "How much was the charge?" asks for the amount, not the charge date.
NOT_ASKED_BY: dict[str, tuple[str, ...]] = {"charge_date": ("charge", "списание"), "flight": ("flight",),
                                            "medicine": ("medicine", "medication"),
                                            "doctor": ("doctor", "specialist", "clinician"),
                                            "treatment": ("treatment", "procedure")}
# Multi-word Russian lemma cues («дата рождение») are inflected in a question («дату рождения»), so the
# lists above carry their forms; one-word ones are added by stem.
FACT_CUES = _with_kinds(FACT_CUES, {key: tuple(c for c in en if c not in NOT_ASKED_BY.get(key, ()))
                                    for key, en, _ru in KINDS})
FACT_CUES_RU = _with_kinds(FACT_CUES_RU, {key: tuple(s for c in ru if len(c) == 1 and c[0] not in NOT_ASKED_BY.get(key, ())
                                                      and (s := _ru_stem(c[0])))
                                          for key, _en, ru in KINDS})
# What a Russian caller calls a fact it does not know («я не знаю номер заказа»).
FACT_NAMES_RU: dict[str, str] = {
    "account_id": "номер лицевого счёта", "postcode": "индекс", "amount": "сумму", "charge_date": "дату",
    "name": "фамилию", "phone": "номер телефона", "order_number": "номер заказа",
    "date_of_birth": "дату рождения", "address": "адрес", "insurance_id": "номер полиса",
    "reference": "номер брони", "slot": "удобное время", "email": "почту",
    "card_number": "номер карты", "card_last4": "последние четыре цифры карты",
    "maiden_name": "девичью фамилию матери", "car_make": "марку машины", "licence_plate": "госномер",
    "tracking_number": "номер накладной", "pet_name": "кличку", "species": "вид животного",
    "breed": "породу", "weight": "вес", "prescription": "рецепт", "new_name": "новую фамилию",
    "flight": "номер рейса", "new_date": "новую дату", "medicine": "название лекарства", "dosage": "дозировку",
    "doctor": "врача", "treatment": "услугу",
}
