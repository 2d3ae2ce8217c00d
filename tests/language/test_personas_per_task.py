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

from .prompts import (
    ADMISSIONS_EN,
    BANK_CARDS_EN,
    BANK_RU,
    CAR_SERVICE_RU,
    CLAIMS_EN,
    COURIER_RU,
    GROCERY_RU,
    GYM_EN,
    HOTEL_EN,
    LIBRARY_EN,
    RENTAL_EN,
    SALON_RU,
    TAXI_RU,
    VET_RU,
)

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
# The four held-out prompts, pinned as the readers first read them after the fixes they found
# (see tests/language/prompts.py).
_STAY = ("name", "check_in_date", "number_of_nights", "email")
HOTEL_TASKS: Tasks = {
    "book_room": ("success", "book a room", _STAY),
    "change_date": ("success", "change the dates of my reservation", (*_STAY, "reference")),
    "arrange_airport_transfer": ("success", "arrange an airport transfer", ("name",)),
    "price_double_room": ("success", "find out how much a double room costs", ("name",)),
    "ask_breakfast": ("success", "find out how much breakfast is", ("name",)),
    "ask_check_in": ("success", "find out when check-in is", ("name",)),
    "ask_check_out": ("success", "find out when check-out is", ("name",)),
    "complain_past_stay": ("transfer", "complain about a past stay", ("name",)),
    "sea_view": ("refusal", "get a sea view room", ("name",)),
}
_VERIFIED = ("card_last4", "postcode", "maiden_name")
BANK_TASKS: Tasks = {
    "block_lost_stolen": ("success", "block a lost or stolen card", _VERIFIED),
    "order_replacement_card": ("success", "order a replacement card", _VERIFIED),
    "ask_recent_card": ("success", "ask about my recent card transactions", _VERIFIED),
    "price_replacement_card": ("success", "find out how much a replacement card costs", _VERIFIED),
    "callback": ("callback", "get a callback from a credit specialist", _VERIFIED),
    "report_fraud": ("transfer", "report fraud", _VERIFIED),
    "raise_credit": ("refusal", "raise a credit limit", _VERIFIED),
}
COURIER_TASKS: Tasks = {
    "otsledit_posylka": ("success", "отследить посылку", ("name", "tracking_number")),
    "vyzvat_kurer": ("success", "вызвать курьера для отправки", ("name", "address", "weight", "slot")),
    "izmenit_adres": ("success", "изменить адрес доставки", ("name",)),
    "tsena_dostavka": ("success", "узнать, сколько стоит доставка по городу", ("name",)),
    "tsena_srochnyy": ("success", "узнать, сколько стоит срочная доставка", ("name",)),
    "poluchit_kompensatsiya": ("transfer", "получить компенсацию", ("name",)),
    "poluchatel_posylki": ("refusal", "узнать, кто получатель посылки", ("name",)),
}
_PET = ("name", "pet_name", "species", "phone")
VET_TASKS: Tasks = {
    "zapisat_priem": ("success", "записать питомца на приём к терапевту", _PET),
    "zapisat_vaktsinatsiya": ("success", "записать питомца на вакцинацию", _PET),
    "uznat_stoimost": ("success", "узнать о стоимости услуг", _PET),
    "perenesti_priem": ("success", "перенести приём на другой день", _PET),
    "tsena_pervichnyy": ("success", "узнать, сколько стоит первичный приём", _PET),
    "tsena_vaktsinatsiya": ("success", "узнать, сколько стоит вакцинация", _PET),
    "soobshchit_soznanie": ("transfer", "сообщить, что животное без сознания или сильно кровоточит", _PET),
    "postavit_diagnozy": ("refusal", "попросить поставить диагнозы", _PET),
    "naznachit_lekarstva": ("refusal", "попросить назначить лекарства", _PET),
}
# The third round's held-out pair: "member ID" is no insurance id, "any change to a membership" is
# for the tasks that change one (the handover too), a caller's complaint is its own goal.
_MEMBER = ("member_id", "postcode")
GYM_TASKS: Tasks = {
    "freeze_membership": ("success", "freeze my membership", _MEMBER),
    "book_personal_training": ("success", "book a personal training session", ("name",)),
    "update_payment_card": ("success", "update my payment card", _MEMBER),
    "price_freeze": ("success", "find out how much a freeze costs", ("name",)),
    "cancel_contract": ("transfer", "cancel my contract", _MEMBER),
    "ask_class_timetable": ("success", "ask about the class timetable for the Leeds and York clubs", ("name",)),
    "another_person": ("refusal", "find out whether another person is a member", ("name",)),
}
_RIDE = ("address", "vremya_podacha", "phone")
TAXI_TASKS: Tasks = {
    "nayti_veshchi": ("success", "найти забытые в машине вещи", ("name",)),
    "zakazat_taksi": ("success", "заказать такси в аэропорт", _RIDE),
    "zakazat_taksi_vokzal": ("success", "заказать такси на вокзал", _RIDE),
    "tsena_poezdka": ("success", "узнать, сколько стоит поездка в аэропорт", ("name",)),
    "tsena_ozhidanie": ("success", "узнать, сколько стоит ожидание", ("name",)),
    "pozhalovatsya_voditel": ("transfer", "пожаловаться на водителя", ("name",)),
    "lichnyy_nomer": ("refusal", "узнать личный номер водителя", ("name",)),
}
# "To open a claim" names no task's verb: its facts go to the task that names a claim (a weak
# reading: reporting damage opens one too, but the prompt does not say so).
_CLAIM = ("insurance_id", "date_of_damage", "phone")
CLAIMS_TASKS: Tasks = {
    "report_burst_pipe": ("success", "report a burst pipe", ("name",)),
    "report_storm_damage": ("success", "report storm damage", ("name",)),
    "check_status": ("success", "check the status of an open claim", _CLAIM),
    "arrange_loss_adjuster": ("success", "arrange a loss adjuster visit", ("name",)),
    "ask_excess": ("success", "find out how much the excess is", ("name",)),
    "make_complaint": ("transfer", "make a complaint", ("name",)),
    "promise_claim": ("refusal", "get a promise that a claim will be paid", ("name",)),
}
_VISIT = ("name", "phone", "slot")
SALON_TASKS: Tasks = {
    "zapisatsya_strizhka": ("success", "записаться на стрижку", _VISIT),
    "zapisatsya_okrashivanie": ("success", "записаться на окрашивание", _VISIT),
    "zapisatsya_manikyur": ("success", "записаться на маникюр", _VISIT),
    "uznat_tsena": ("success", "узнать о ценах", ("name",)),
    "tsena_strizhka": ("success", "узнать, сколько стоит стрижка", ("name",)),
    "pozhalovatsya_rabota": ("transfer", "пожаловаться на работу мастера", ("name",)),
    "skidki": ("refusal", "попросить скидки", ("name",)),
}
# Weak readings pinned as they are: "for any existing rental" also reaches "rent a car" (its verb is
# the scope's noun), and «для блокировки карты» the price of a new card (it shares «карта»).
_RENTAL = ("rental_agreement_number", "name")
RENTAL_TASKS: Tasks = {
    "rent_car": ("success", "rent a car", _RENTAL),
    "extend_rental": ("success", "extend a rental", ("name",)),
    "add_child_seat": ("success", "add a child seat to a reservation", ("name",)),
    "price_child_seat": ("success", "find out how much a child seat costs", ("name",)),
    "report_accident": ("transfer", "report an accident", ("name",)),
    "insurance_prices": ("refusal", "get insurance prices", ("name",)),
}
_BLOCK = ("card_last4", "kodovyy_slovo")
BANK_RU_TASKS: Tasks = {
    "zablokirovat_karta": ("success", "заблокировать утерянную карту", _BLOCK),
    "uznat_status": ("success", "узнать о статусе кредитной заявки", ("name",)),
    "tsena_vypusk": ("success", "узнать, сколько стоит выпуск новой карты", _BLOCK),
    "osporit_operatsiya": ("transfer", "оспорить операцию", ("name",)),
}
# "Before sharing anything about an application": "anything" scopes the facts to every task.
_APPLICANT = ("student_number", "date_of_birth")
ADMISSIONS_TASKS: Tasks = {
    "check_status": ("success", "check the status of my application", _APPLICANT),
    "change_chosen_course": ("success", "change my chosen course", _APPLICANT),
    "request_prospectus": ("success", "request a prospectus", _APPLICANT),
    "ask_application_fee": ("success", "find out how much the application fee is", _APPLICANT),
    "ask_open_day": ("success", "ask about the open day schedule", _APPLICANT),
    "ask_campus_parking": ("success", "ask about the campus parking rules", _APPLICANT),
    "ask_scholarship_appeal": ("transfer", "ask about a scholarship appeal", _APPLICANT),
    "application_fee": ("refusal", "get the application fee refunded", _APPLICANT),
    "be_accepted": ("refusal", "find out whether I will be accepted", _APPLICANT),
}
GROCERY_TASKS: Tasks = {
    "oformit_zakaz": ("success", "оформить заказ", ("name",)),
    "izmenit_vremya": ("success", "изменить время доставки", ("order_number", "phone")),
    "vernut_dengi": ("success", "вернуть деньги за испорченный товар", ("name",)),
    "tsena_dostavka": ("success", "узнать, сколько стоит доставка", ("name",)),
    "pozhalovatsya_kurer": ("transfer", "пожаловаться на курьера", ("name",)),
    "uznat_aktsiya": ("success", "узнать о текущих акциях", ("name",)),
    "adresa_telefony": ("refusal", "узнать адреса и телефоны курьеров", ("name",)),
}
CASES = [(LIBRARY_EN, LIBRARY_TASKS), (CAR_SERVICE_RU, CAR_SERVICE_TASKS), (HOTEL_EN, HOTEL_TASKS),
         (BANK_CARDS_EN, BANK_TASKS), (COURIER_RU, COURIER_TASKS), (VET_RU, VET_TASKS), (GYM_EN, GYM_TASKS),
         (TAXI_RU, TAXI_TASKS), (CLAIMS_EN, CLAIMS_TASKS), (SALON_RU, SALON_TASKS),
         (RENTAL_EN, RENTAL_TASKS), (BANK_RU, BANK_RU_TASKS), (ADMISSIONS_EN, ADMISSIONS_TASKS),
         (GROCERY_RU, GROCERY_TASKS)]
IDS = ["library-en", "car-service-ru", "hotel-en", "bank-cards-en", "courier-ru", "vet-ru", "gym-en", "taxi-ru",
       "claims-en", "salon-ru", "rental-en", "bank-ru", "admissions-en", "grocery-ru"]
# Formats of the values the prompts ask for, by key.
FORMATS = {
    "card_number": r"\d{4} \d{4} \d{4} \d{4}",
    "date_of_birth": r"[A-Z][a-z]+ \d{1,2}, \d{4}",
    "licence_plate": r"[АВЕКМНОРСТУХ]\d{3}[АВЕКМНОРСТУХ]{2} \d{2,3}",
    "car_make": r"[А-ЯЁ][а-яё]+ [А-ЯЁ][а-яё]+",
    "phone": r"\+7 9\d\d \d{3}-\d\d-\d\d|\(512\) 555-01\d\d",  # Russian mobile, US fiction range
    "card_last4": r"\d{4}",
    "postcode": r"\d{5}|[A-Z]{1,2}\d{1,2}[A-Z]? \d[A-Z]{2}",  # a US ZIP code, a UK postcode (gym: pounds)
    "tracking_number": r"\d{10}",
    "weight": r"\d кг",
    "email": r"[a-z]+\d+@example\.com",
    "check_in_date": r"\d{1,2} [A-Z][a-z]+",
    "member_id": r"\d{4}",  # an id of a kind we do not know is id-like, not another domain's format
    "vremya_podacha": r"\d{1,2}:\d\d",  # «время подачи»: a time
    "date_of_damage": r"[A-Z][a-z]+ \d{1,2}",  # a date by its head noun, "date" before "of"
    "student_number": r"\d{4}",
    "order_number": r"\d{6}",
    "kodovyy_slovo": r"[А-ЯЁ][а-яё]+",  # «кодовое слово»: a word, its head noun after the adjective
    "address": r"(?:ул|пр)\. [А-ЯЁ][а-яё]+, д\. \d+(?:, кв\. \d+)?",
}


def _tasks(prompt: str) -> Tasks:
    reading = read_prompt(prompt)
    return {t.name: (t.kind, t.goals[0], t.facts) for t in reading.tasks + reading.refusal_tasks}


@pytest.mark.parametrize(("prompt", "tasks"), CASES, ids=IDS)
def test_every_task_has_its_goal_and_the_facts_asked_for_it(prompt: str, tasks: Tasks) -> None:
    assert _tasks(prompt) == tasks


@pytest.mark.parametrize(("prompt", "handovers", "outcomes"), [
    (LIBRARY_EN, ("the circulation desk",), ("success", "refusal", "transfer")),
    (CAR_SERVICE_RU, ("старший мастер",), ("success", "refusal", "transfer")),
    (HOTEL_EN, ("the duty manager",), ("success", "refusal", "transfer")),
    (BANK_CARDS_EN, ("the fraud team",), OUTCOMES),
    (COURIER_RU, ("отдел претензий",), ("success", "refusal", "transfer")),
    (VET_RU, ("дежурный врач",), ("success", "refusal", "transfer")),
    (GYM_EN, ("the retention team",), ("success", "refusal", "transfer")),
    (TAXI_RU, ("старший диспетчер",), ("success", "refusal", "transfer")),
    (CLAIMS_EN, ("customer relations",), ("success", "refusal", "transfer")),
    (SALON_RU, ("управляющая",), ("success", "refusal", "transfer")),
    (RENTAL_EN, ("roadside assistance",), ("success", "refusal", "transfer")),
    (BANK_RU, ("отдел споров",), ("success", "transfer")),
    (ADMISSIONS_EN, ("the funding office",), ("success", "refusal", "transfer")),
    (GROCERY_RU, ("старший оператор",), ("success", "refusal", "transfer")),
], ids=IDS)
def test_the_handovers_are_read_in_their_language(prompt: str, handovers: tuple[str, ...],
                                                   outcomes: tuple[str, ...]) -> None:
    reading = read_prompt(prompt)
    assert (reading.handovers, reading.outcomes) == (handovers, outcomes)


@pytest.mark.parametrize(("prompt", "tasks"), CASES, ids=IDS)
def test_a_dozen_personas_call_about_every_task_with_its_own_facts(prompt: str, tasks: Tasks) -> None:
    result = generate_offline(prompt, count=12)
    by_name = {name: key for key, name in read_prompt(prompt).fact_names}
    named = [c.task for c in result.cells]
    assert set(named[: len(tasks)]) == set(tasks)  # every task before any repeats
    assert {p.type for p in result.personas} == set(CALLER_TYPES)
    for persona, cell in zip(result.personas, result.cells, strict=True):
        kind, goal, facts = tasks[str(cell.task)]
        assert (persona.goal, persona.intended_outcome) == (goal, kind)
        unknown = [by_name.get(u, u.replace(" ", "_")) for u in persona.unknown]
        assert sorted([*persona.ground_truth, *unknown]) == sorted(facts)
        assert "slot" not in persona.ground_truth or "slot" in facts
        for key, value in persona.ground_truth.items():
            if key in FORMATS:
                assert re.fullmatch(FORMATS[key], str(value)), (key, value)


def test_the_task_plan_covers_types_outcomes_and_difficulties_and_is_seeded() -> None:
    items: list[tuple[str, Outcome]] = [("renew", "success"), ("hold", "success"), ("patron", "refusal"), ("desk", "transfer"),
             ("call", "callback"), ("hours", "success"), ("fees", "success")]
    # 7 items share no factor with the 6 types, so they meet every type even without the shift;
    # 4 and 6 items do not (types would meet only every other item, or one item each).
    for some in (items, [items[0], *items[2:5]], items[:6]):
        plan = task_plan(5 * len(CALLER_TYPES) * len(some), some)
        assert {(c.type, c.outcome, c.difficulty) for c in plan} == {
            (t, o, d) for t in CALLER_TYPES for o in OUTCOMES for d in DIFFICULTIES}, len(some)
        assert sorted((c.type, c.task, c.difficulty) for c in plan) == sorted(  # each cell once
            (t, task, d) for t in CALLER_TYPES for task, _ in some for d in DIFFICULTIES), len(some)
    plan = task_plan(5 * len(CALLER_TYPES) * len(items), items)
    assert [c.task for c in plan[: len(items)]] == [t for t, _ in items]
    assert [c.type for c in plan[:6]] == list(CALLER_TYPES)
    assert task_plan(12, items, seed=2) == task_plan(12, items, seed=2) != task_plan(12, items)
    with pytest.raises(ValueError, match="at least one caller type and one task"):
        task_plan(3, [])


def test_a_russian_caller_names_what_it_does_not_know_in_the_prompts_words() -> None:
    reading = read_prompt(CAR_SERVICE_RU)
    assert dict(reading.fact_names) == {"car_make": "марку автомобиля", "licence_plate": "госномер",
                                        "slot": "удобную дату"}
    result = generate_offline(CAR_SERVICE_RU, count=60)
    unknown = {u for p in result.personas for u in p.unknown}
    assert unknown == {"марку автомобиля", "госномер"}  # both, in the prompt's words; a slot is never unknown
