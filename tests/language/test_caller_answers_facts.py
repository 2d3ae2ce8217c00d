"""The offline caller answers every kind of fact the persona generator produces, in English and Russian.

Each row is one kind with its value, two ways an agent asks for it, and the caller's exact reply
(a cooperative caller at difficulty 1 says no fillers, so the reply is the answer alone). Kinds the
generator makes from the prompt's own words (``pickup_time``; ``nomer_polis_kasko`` from «номер
полиса КАСКО») are recognised by their words and answered with the value.
"""

from __future__ import annotations

import asyncio

import pytest

from polygon_core.callers import OfflineCaller
from polygon_core.conversation._types import CallerView
from polygon_core.models import FactValue, Language, Persona, SpeakingTraits

Row = tuple[str, FactValue, str, str, str]

EN: list[Row] = [
    ("account_id", "4821", "What is your account number?", "Can I have your account ID?", "My account number is 4821."),
    ("postcode", "SW1A 2AA", "What's your postcode?", "And the post code, please?", "The postcode is SW1A 2AA."),
    ("amount", 35.0, "How much was the charge?", "What amount did you pay?", "It was 35 pounds."),
    ("charge_date", "June 14", "When was the charge taken?", "Which date did it go out?", "It was on June 14."),
    ("name", "Dana Whitfield", "What's your name?", "Can I take your full name?", "My name is Dana Whitfield."),
    ("slot", "tomorrow morning", "What time suits you?", "When would be convenient for you?",
     "Tomorrow morning would be best."),
    ("email", "dana71@example.com", "What's your email address?", "Could you give me an e-mail?",
     "My email is dana71@example.com."),
    ("phone", "(512) 555-0106", "What's the best phone number for you?", "Can I take a contact number?",
     "My phone number is (512) 555-0106."),
    ("date_of_birth", "January 7, 1995", "And your date of birth?", "When were you born?",
     "My date of birth is January 7, 1995."),
    ("address", "1402 Oak Street", "What's your home address?", "Which address should we use?",
     "My address is 1402 Oak Street."),
    ("order_number", "482913", "What's the order number?", "Do you have the order ID?", "The order number is 482913."),
    ("insurance_id", "JKH 4821 7730", "What's your insurance member ID?", "Can I have the policy number?",
     "My member ID is JKH 4821 7730."),
    ("reference", "67-6379", "What's your booking reference?", "Do you have a confirmation number?",
     "The reference is 67-6379."),
    ("card_number", "6176 8234 4344 1108", "What's your library card number?", "Could I have the number on your card?",
     "My card number is 6176 8234 4344 1108."),
    ("card_last4", "6979", "What are the last four digits of your card number?",
     "Can you read me the last 4 digits of the card?", "The last four digits are 6979."),
    ("maiden_name", "Brennan", "What's your mother's maiden name?", "And the maiden name, please?",
     "My mother's maiden name is Brennan."),
    ("car_make", "Toyota Corolla", "What's the make of your car?", "Which car do you drive?", "It's a Toyota Corolla."),
    ("licence_plate", "AB12 CDE", "What's your registration number?", "Can you read me the number plate?",
     "The registration is AB12 CDE."),
    ("tracking_number", "482019375512", "What's the tracking number?", "Do you have the waybill?",
     "The tracking number is 482019375512."),
    ("pet_name", "Biscuit", "What's your pet's name?", "And what is the name of your pet?", "My pet's name is Biscuit."),
    ("species", "rabbit", "What species is it?", "What kind of animal do you have?", "It's a rabbit."),
    ("breed", "beagle", "What breed is he?", "Do you know the breed?", "It's a beagle."),
    ("weight", "3 kilos", "What's the weight of the parcel?", "How much does the parcel weigh?", "It weighs 3 kilos."),
    ("new_name", "Dana Reyes", "What's the new name on the account?", "And the new name?", "The new name is Dana Reyes."),
    ("prescription", True, "Do you have a prescription?", "Has a doctor written you a prescription?",
     "Yes, I have a prescription."),
    # what the call is about (issue 31): asked in a question
    ("flight", "BL 956", "Which flight is it?", "What's the flight number?", "It's flight BL 956."),
    ("new_date", "October 14", "What's the new date?", "When would you like to fly instead?",
     "I'd like to move it to October 14."),
    ("medicine", "ibuprofen", "Which medicine do you need?", "What medication is it?", "I need ibuprofen."),
    ("dosage", "200 mg", "What dose?", "Which strength do you take?", "The dose is 200 mg."),
    ("doctor", "dentist", "Which doctor would you like to see?", "Which specialist do you need?",
     "I'd like to see the dentist."),
    ("treatment", "a filling", "Which treatment do you need?", "What type of appointment is it?", "I need a filling."),
    # kinds known only by the prompt's words: all of them said, or the head noun when it is not "date"
    ("pickup_time", "2 pm", "What pickup time would you like?", "When is the pickup time?", "Pickup time: 2 pm."),
    ("number_of_nights", 2, "How many nights?", "For how many nights is the stay?", "Number of nights: 2."),
    ("check_in_date", "27 February", "What's your check-in date?", "Which date do you check in?",
     "Check in date: 27 February."),
]
RU: list[Row] = [
    ("account_id", "4821", "Назовите номер лицевого счёта.", "Какой у вас номер договора?", "Номер счёта 4821."),
    ("postcode", "420111", "Какой у вас индекс?", "Назовите почтовый индекс.", "Индекс 420111."),
    ("amount", 1500.0, "Сколько с вас списали?", "Какая была сумма?", "Было 1500 рублей."),
    ("charge_date", "14 июня", "Какого числа это было?", "Назовите дату списания.", "Это было 14 июня."),
    ("name", "Иванова Мария Петровна", "Как вас зовут?", "Назовите, пожалуйста, вашу фамилию.",
     "Меня зовут Иванова Мария Петровна."),
    ("slot", "завтра утром", "Когда вам удобно подъехать?", "Назовите удобную дату.", "Мне удобно завтра утром."),
    ("email", "anna5@example.com", "Какая у вас электронная почта?", "Продиктуйте ваш email.",
     "Почта anna5@example.com."),
    ("phone", "+7 912 345-67-89", "Назовите номер телефона.", "Какой у вас телефон для связи?",
     "Мой телефон +7 912 345-67-89."),
    ("date_of_birth", "7 января 1995", "Назовите дату рождения.", "Какая у вас дата рождения?",
     "Дата рождения 7 января 1995."),
    ("address", "ул. Баумана, д. 12, кв. 5", "Назовите адрес доставки.", "Какой у вас адрес?",
     "Адрес: ул. Баумана, д. 12, кв. 5."),
    ("order_number", "482913", "Назовите номер заказа.", "Какой номер вашего заказа?", "Номер заказа 482913."),
    ("insurance_id", "1234567890123456", "Назовите номер полиса.", "Продиктуйте полис ОМС.",
     "Номер полиса 1234567890123456."),
    ("reference", "67-6379", "Назовите номер брони.", "Какой у вас номер бронирования?", "Номер брони 67-6379."),
    ("card_number", "6176 8234 4344 1108", "Назовите номер карты.", "Какой номер вашей карты?",
     "Номер карты 6176 8234 4344 1108."),
    ("card_last4", "6979", "Назовите последние четыре цифры карты.", "Продиктуйте последние 4 цифры.",
     "Последние четыре цифры 6979."),
    ("maiden_name", "Орлова", "Назовите девичью фамилию матери.", "Какая девичья фамилия вашей мамы?",
     "Девичья фамилия матери Орлова."),
    ("car_make", "Шкода Октавия", "Какая у вас марка машины?", "Назовите марку автомобиля.", "У меня Шкода Октавия."),
    ("licence_plate", "К418УК 77", "Назовите госномер.", "Какой номер вашего автомобиля?", "Госномер К418УК 77."),
    ("tracking_number", "1340074392", "Назовите номер накладной.", "Какой у вас трек-номер?",
     "Номер накладной 1340074392."),
    ("pet_name", "Мурка", "Как кличка питомца?", "Как зовут вашего питомца?", "Кличка Мурка."),
    ("species", "кошка", "Какое у вас животное?", "Уточните вид животного.", "У меня кошка."),
    ("breed", "бигль", "Какой породы собака?", "Назовите породу.", "Порода бигль."),
    ("weight", "3 кг", "Какой вес посылки?", "Сколько весит посылка?", "Вес 3 кг."),
    ("new_name", "Смирнова", "Назовите новую фамилию.", "Какая новая фамилия?", "Новая фамилия Смирнова."),
    ("prescription", True, "У вас есть рецепт?", "Рецепт от врача есть?", "Да, рецепт есть."),
    ("flight", "SU 1402", "Какой у вас рейс?", "Назовите номер рейса.", "Рейс SU 1402."),
    ("new_date", "14 мая", "На какую дату перенести?", "Назовите новую дату.", "Хочу перенести на 14 мая."),
    ("medicine", "Ибупрофен", "Какое именно лекарство?", "Как называется препарат?", "Мне нужен Ибупрофен."),
    ("dosage", "200 мг", "Какая дозировка?", "Какую дозу вам нужно?", "Дозировка 200 мг."),
    ("doctor", "педиатр", "К какому врачу записать?", "Какой специалист нужен?", "Нужен педиатр."),
    ("treatment", "чистка", "Какая услуга вам нужна?", "На какую процедуру записать?", "Услуга: чистка."),
    # kinds known only by the prompt's words: keys are their lemmas transliterated
    ("tsvet_avtomobil", "синий", "Какого цвета ваш автомобиль?", "Назовите цвет автомобиля.", "Это синий."),
    ("nomer_polis_kasko", "4821", "Назовите номер полиса КАСКО.", "Какой номер полиса каско?", "Это 4821."),
    ("vremya_dostavka", "14:00", "На какое время доставки?", "Какое время доставки вам подходит?", "Это 14:00."),
]
CASES = [(lang, *row[:2], q, row[4]) for lang, rows in (("en", EN), ("ru", RU)) for row in rows for q in row[2:4]]


def reply(language: Language, truth: dict[str, FactValue], question: str, unknown: tuple[str, ...] = ()) -> str:
    """What a cooperative caller knowing `truth` says to `question`, right after its opening line."""
    persona = Persona(type="cooperative", difficulty=1, goal="x", ground_truth=truth, unknown=list(unknown),
                      traits=SpeakingTraits(language=language))
    caller = OfflineCaller(persona, conversation_id="c", seed=0)
    asyncio.run(caller.speak(CallerView(conversation_id="c", turn=1, persona=persona, language=language)))
    view = CallerView(conversation_id="c", turn=2, persona=persona, agent_said=question, language=language)
    return asyncio.run(caller.speak(view)).text


@pytest.mark.parametrize(("language", "key", "value", "question", "expected"), CASES,
                         ids=[f"{c[0]}-{c[1]}-{i % 2}" for i, c in enumerate(CASES)])
def test_the_caller_answers_each_kind_of_fact(language: Language, key: str, value: FactValue, question: str,
                                              expected: str) -> None:
    said = reply(language, {key: value}, question)
    assert said == expected
    if not isinstance(value, bool):
        assert (str(int(value)) if isinstance(value, float) else str(value)).lower() in said.lower()


def test_every_kind_with_cues_has_a_row_in_both_languages() -> None:
    from polygon_core.callers import FACT_CUES, FACT_CUES_RU

    assert set(FACT_CUES) - {"new_street", "new_postcode"} <= {r[0] for r in EN}
    assert set(FACT_CUES_RU) <= {r[0] for r in RU}


BOTH = [
    ("en", {"name": "Marcus Reyes", "flight": "BL 956", "new_date": "October 14"},
     "Which flight would you like to change, and what's the new date?",
     "It's flight BL 956. I'd like to move it to October 14."),
    ("ru", {"medicine": "Ибупрофен", "dosage": "200 мг"}, "Какое лекарство и какая дозировка?",
     "Мне нужен Ибупрофен. Дозировка 200 мг."),
    # the longer of two overlapping cues wins; separate cues each ask for their fact
    ("en", {"card_number": "6176 8234 4344 1108", "card_last4": "1108"},
     "What are the last four digits of your card number?", "The last four digits are 1108."),
    ("en", {"name": "Dana Whitfield", "maiden_name": "Brennan"}, "What's your mother's maiden name?",
     "My mother's maiden name is Brennan."),
    ("en", {"name": "Dana Whitfield", "pet_name": "Biscuit"}, "Can I take your name and your pet's name?",
     "My name is Dana Whitfield. My pet's name is Biscuit."),
    ("en", {"email": "dana71@example.com", "address": "1402 Oak Street"}, "What's your email address?",
     "My email is dana71@example.com."),
    ("en", {"amount": 35.0, "weight": "3 kilos"}, "How much does the parcel weigh?", "It weighs 3 kilos."),
    ("ru", {"name": "Иванова Мария Петровна", "maiden_name": "Орлова"}, "Назовите девичью фамилию матери.",
     "Девичья фамилия матери Орлова."),
    ("ru", {"car_make": "Шкода Октавия", "licence_plate": "К418УК 77"}, "Назовите марку и госномер машины.",
     "У меня Шкода Октавия. Госномер К418УК 77."),
    ("ru", {"card_number": "6176 8234 4344 1108", "card_last4": "1108"},
     "Назовите последние четыре цифры карты.", "Последние четыре цифры 1108."),
    ("ru", {"phone": "+7 912 345-67-89", "nomer_polis_kasko": "4821"}, "Назовите номер телефона.",
     "Мой телефон +7 912 345-67-89."),  # «номер» alone names no fact
]


@pytest.mark.parametrize(("language", "truth", "question", "expected"), BOTH)
def test_a_question_gets_the_facts_it_names_and_no_other(language: Language, truth: dict[str, FactValue],
                                                         question: str, expected: str) -> None:
    assert reply(language, truth, question) == expected


UNKNOWN = [
    # A Russian persona names what it does not know in the prompt's words; the kind's cues ask for it too.
    ("ru", "марку автомобиля", "Какая у вас марка машины?", "Извините, я не знаю марку автомобиля."),
    ("ru", "марку автомобиля", "Какой марки ваш автомобиль?", "Извините, я не знаю марку автомобиля."),
    ("ru", "госномер", "Какой номер вашей машины?", "Извините, я не знаю госномер."),
    ("ru", "цвет кузова", "Какого цвета кузов?", "Извините, я не знаю цвет кузова."),
    ("en", "card number", "What's your library card number?", "Sorry, I don't know my card number."),
    ("en", "card expiry", "When does the card expire?", "Sorry, I don't know my card expiry."),
]


@pytest.mark.parametrize(("language", "item", "question", "expected"), UNKNOWN)
def test_the_caller_says_it_does_not_know_a_fact_asked_in_other_words(language: Language, item: str, question: str,
                                                                      expected: str) -> None:
    name = "Иванова Мария Петровна" if language == "ru" else "Dana Whitfield"
    assert reply(language, {"name": name}, question, (item,)) == expected


@pytest.mark.parametrize(("language", "question", "expected"), [
    ("en", "Do you have a prescription?", "No, I don't have a prescription."),
    ("en", "Can I take the prescription number?", "No, I don't have a prescription."),
    ("ru", "Назовите номер рецепта.", "Нет, рецепта у меня нет."),
    ("ru", "У вас есть рецепт?", "Нет, рецепта у меня нет."),
])
def test_a_caller_without_a_prescription_says_it_has_none(language: Language, question: str, expected: str) -> None:
    # A refusal caller who wants a prescription medicine without one (issue 31) has `prescription: False`.
    assert reply(language, {"name": "Dana Whitfield", "prescription": False}, question) == expected
