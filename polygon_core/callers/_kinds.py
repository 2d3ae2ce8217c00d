"""The kinds of fact the persona generator knows, with the words that name each: one table for both sides.

The generator (`polygon_core.personas._facts`) reads a prompt's "ask for …" items with it; the offline
caller (`_cues`) recognises an agent's question for each kind by the same words, plus phrasings of
its own. It lives with the callers because the persona package imports them, not the other way round.
"""

from __future__ import annotations

# (key, English cues, Russian cues as lemma sequences). Order breaks ties between equally long cues.
KINDS: tuple[tuple[str, tuple[str, ...], tuple[tuple[str, ...], ...]], ...] = (
    ("account_id", ("account number", "account id", "account no"),
     (("лицевой", "счёт"), ("номер", "договор"), ("номер", "счёт"))),
    ("postcode", ("postcode", "post code", "postal code", "zip code", "zip"), (("почтовый", "индекс"), ("индекс",))),
    ("name", ("full name", "name", "first name", "surname", "last name"), (("фамилия",), ("имя",), ("фио",))),
    ("email", ("email", "e-mail", "email address"), (("почта",), ("email",), ("e-mail",), ("электронный", "почта"))),
    ("date_of_birth", ("date of birth", "birthday", "birth date"), (("дата", "рождение"),)),
    ("phone", ("phone number", "mobile number", "telephone number", "contact number", "phone"),
     (("телефон",), ("номер", "телефон"))),
    ("address", ("home address", "street address", "delivery address", "address"), (("адрес",),)),
    ("order_number", ("order number", "order id"), (("номер", "заказ"),)),
    # Only an insurer's member id is an insurance id; a gym's "member ID" is a fact of its own words.
    ("insurance_id", ("insurance member id", "insurance number", "insurance id", "policy number"),
     (("полис",), ("снилс",))),
    ("reference", ("reference number", "booking reference", "confirmation number", "reference"),
     (("номер", "бронь"), ("номер", "брони"), ("номер", "бронирование"))),
    ("amount", ("amount", "how much"), (("сумма",),)),
    ("charge_date", ("charge", "charge date", "date of the charge"), (("списание",), ("дата", "списание"))),
    ("card_last4", ("last four digits", "last 4 digits"), (("последний", "четыре", "цифра"), ("последний", "4", "цифра"))),
    ("card_number", ("card number", "library card", "card no"), (("номер", "карта"),)),
    ("maiden_name", ("maiden name",), (("девичий", "фамилия"),)),
    ("car_make", ("car make", "make of the car", "make and model", "vehicle make", "car model"),
     (("марка",), ("модель", "автомобиль"), ("модель", "машина"))),
    ("licence_plate", ("licence plate", "license plate", "registration number", "number plate", "plate number"),
     (("госномер",), ("гос", "номер"), ("номерной", "знак"), ("номер", "автомобиль"), ("номер", "машина"))),
    ("tracking_number", ("tracking number", "waybill number", "waybill", "parcel number", "consignment number"),
     (("накладный",), ("накладная",), ("трек",), ("трек-номер",), ("номер", "отправление"), ("номер", "посылка"))),
    ("pet_name", ("pet's name", "pet name", "animal's name", "dog's name", "cat's name"), (("кличка",),)),
    ("species", ("species", "kind of animal", "type of pet", "type of animal"),
     (("вид", "животное"), ("вид", "питомец"))),
    ("breed", ("breed",), (("порода",),)),
    ("weight", ("weight",), (("вес",),)),
    ("slot", ("preferred time", "convenient time", "time slot", "preferred date", "convenient date",
              "preferred day", "suitable time", "time that suits"),
     (("удобный", "время"), ("удобный", "дата"), ("удобный", "день"), ("желаемый", "дата"), ("желаемый", "время"))),
    # What the call is about (issue 31): the object of the caller's task. An agent names these in
    # remarks too ("I'll transfer you to the duty doctor"), so the caller hears them asked for only in
    # a question or a request (`OBJECT_KINDS`).
    ("flight", ("flight number", "flight"), (("рейс",), ("номер", "рейс"))),
    ("new_date", ("new date", "new travel date", "new departure date", "new appointment date", "date to change to"),
     (("новый", "дата"), ("новый", "день"))),
    ("medicine", ("medicine", "medication", "drug name", "name of the drug"),
     (("лекарство",), ("препарат",), ("медикамент",), ("название", "лекарство"))),
    ("dosage", ("dosage", "dose", "strength"), (("дозировка",), ("доза",))),
    ("doctor", ("doctor", "specialist", "clinician"), (("врач",), ("специалист",), ("доктор",))),
    ("treatment", ("treatment", "type of appointment", "procedure"), (("услуга",), ("процедура",))),
)

#: Kinds that name the object of the caller's task, asked for only in a question or a request.
OBJECT_KINDS = frozenset({"flight", "new_date", "medicine", "dosage", "doctor", "treatment"})
