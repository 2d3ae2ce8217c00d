"""What the offline caller says and listens for, per language (English and Russian).

The English lines are the ones the demo and its pinned tests were written against; the Russian ones
say the same things the way a caller on a Russian phone line would. Cues are lowercase substrings of
the agent's words (the tables are in `_cues`); Russian cues are word stems («фамили» matches
«фамилию», «фамилия»). A fact with no answer of its own is said by `answer_default`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..models import CallerType
from ._cues import FACT_CUES, FACT_CUES_RU, FACT_NAMES_RU

__all__ = ["ENGLISH", "FACT_CUES", "FACT_CUES_RU", "FACT_NAMES_RU", "RUSSIAN", "Phrases", "phrases_for"]


@dataclass(frozen=True)
class Phrases:
    """Everything the offline caller says and listens for in one language."""

    openings: dict[CallerType, tuple[str, ...]]
    sidetracks: tuple[str, ...]
    threats: tuple[str, ...]
    trust_challenges: tuple[str, ...]
    confusion: tuple[str, ...]
    answers: dict[str, str]
    answer_default: str
    pick: str  # taking one of the options the agent offered
    decline: str  # none of them fits
    lacking: dict[str, str]  # what a caller says of a fact it has not got (a False value: no prescription)
    lacking_default: str
    new_address: str
    unknown: str
    give_up: str
    bye_done: str
    bye_thanks: str
    still_need: str
    ask_goal: str
    protest: str
    accept_transfer: str
    want_person: str
    callback_slot: str
    understood: str
    yes: str
    yes_busy: str
    fillers: tuple[str, ...]
    cut_ins: tuple[str, ...]
    correction: str
    volunteer_name: str
    fact_cues: dict[str, tuple[str, ...]]
    confirm: tuple[str, ...]
    done: tuple[str, ...]
    refusal: tuple[str, ...]
    transfer_offer: tuple[str, ...]
    anything_else: tuple[str, ...]
    repeat: tuple[str, ...]
    verify: tuple[str, ...]
    working: tuple[str, ...]
    callback: tuple[str, ...]
    makes_sense: tuple[str, ...]
    requests: tuple[str, ...]  # words that ask for something without a question mark ("tell me …")


ENGLISH = Phrases(
    openings={
        "cooperative": ("Hi there. I'd like to {goal}, please.", "Hello, I need to {goal}."),
        "busy": ("Yeah, hi. I need to {goal}. Quickly, please.", "Hi. {Goal}. I've got five minutes."),
        "distrustful": ("Hello. I'm calling because I need to {goal}.",),
        "confused": ("Oh, hello. I'm not sure I'm in the right place. I want to {goal}, I think.",),
        "aggressive": ("Listen, I want to {goal}. Now.", "This is the third time I'm calling. I want to {goal}."),
        "talkative": ("Hello! Lovely to get a real person. So, I need to {goal}, it's been quite a week.",),
    },
    sidetracks=("By the way, my neighbour had the same trouble last spring.",
                "Sorry, the dog is barking, where was I?",
                "I was just telling my sister about this over lunch.",
                "It's been raining all week here, hasn't it?"),
    threats=("Hurry up or I'm hanging up.", "I'm not waiting forever, I'll hang up."),
    trust_challenges=("Hold on. How do I know you're really from Northwind?",
                      "Wait, how do I know this isn't a scam?"),
    confusion=("Sorry, I don't follow. What do you mean?", "I don't understand, what do you mean?"),
    answers={"account_id": "My account number is {v}.", "postcode": "The postcode is {v}.",
             "amount": "It was {v} {currency}.", "charge_date": "It was on {v}.", "slot": "{V} would be best.",
             "name": "My name is {v}.", "phone": "My phone number is {v}.", "email": "My email is {v}.",
             "date_of_birth": "My date of birth is {v}.", "address": "My address is {v}.",
             "order_number": "The order number is {v}.", "insurance_id": "My member ID is {v}.",
             "reference": "The reference is {v}.", "card_number": "My card number is {v}.",
             "card_last4": "The last four digits are {v}.", "maiden_name": "My mother's maiden name is {v}.",
             "car_make": "It's a {v}.", "licence_plate": "The registration is {v}.",
             "tracking_number": "The tracking number is {v}.", "pet_name": "My pet's name is {v}.",
             "species": "It's a {v}.", "breed": "It's a {v}.", "weight": "It weighs {v}.",
             "prescription": "Yes, I have a prescription.", "new_name": "The new name is {v}.",
             "flight": "It's flight {v}.", "new_date": "I'd like to move it to {v}.", "medicine": "I need {v}.",
             "dosage": "The dose is {v}.", "doctor": "I'd like to see the {v}.", "treatment": "I need {v}."},
    pick="{Option} works for me.",
    decline="Sorry, none of those works for me.",
    lacking={"prescription": "No, I don't have a prescription."},
    lacking_default="No, I don't have that.",
    answer_default="{K}: {v}.",
    new_address="It's {street}, {postcode}.",
    unknown="Sorry, I don't know my {item}.",
    give_up="Forget it, I don't have time for this. Goodbye.",
    bye_done="No, that's everything. Thanks, bye.",
    bye_thanks="Great, thank you. Bye.",
    still_need="Well, I still need to {goal}.",
    ask_goal="Okay. So can you {goal}?",
    protest="That's ridiculous! I've been a customer for years. ",
    accept_transfer="Fine, put me through.",
    want_person="No. I'd rather talk to a real person, please.",
    callback_slot="Yes, please. {slot} would be best.",
    understood="Oh, I see now. Thank you.",
    yes="Yes, please.",
    yes_busy="Yes. Go on.",
    fillers=("Um,", "Uh,", "Well,", "Hmm,"),
    cut_ins=("Sorry, let me stop you there.", "Wait, wait."),
    correction="{wrong}, sorry, no: {right}.",
    volunteer_name="I'm {v}, by the way.",
    fact_cues=FACT_CUES,
    confirm=("shall i", "would you like", "do you want me", "is that correct", "can you confirm",
             "should i", "does that make sense", "would that"),
    done=("done", "i've refunded", "i've issued", "is updated", "you're booked", "i've booked",
          "transferring you"),
    refusal=("can't refund", "cannot refund", "not refundable", "unable to", "can't do"),
    transfer_offer=("transfer you", "supervisor", "colleague"),
    anything_else=("anything else", "is there anything"),
    repeat=("say that again", "didn't catch", "didn't quite catch", "repeat", "read", "line is a bit"),
    verify=("verify", "account number", "postcode"),
    working=("let me check", "one moment", "bear with me", "just a moment", "please hold"),
    callback=("callback",),
    makes_sense=("does that make sense",),
    requests=("tell me", "give me", "can i have", "could i have", "can i take", "could i take", "may i have",
              "can you", "could you", "please provide", "please give", "please tell", "please confirm",
              "confirm your", "read me", "i need your", "i'll need your"),
)

RUSSIAN = Phrases(
    openings={
        "cooperative": ("Здравствуйте. Мне бы хотелось {goal}.", "Добрый день. Мне нужно {goal}."),
        "busy": ("Да, здравствуйте. Мне нужно {goal}. Только быстро.", "Алло. {Goal}. У меня пять минут."),
        "distrustful": ("Здравствуйте. Я звоню, потому что мне нужно {goal}.",),
        "confused": ("Ой, здравствуйте. Не знаю, туда ли я звоню. Мне, кажется, нужно {goal}.",),
        "aggressive": ("Слушайте, мне нужно {goal}. Сейчас же.", "Я звоню уже третий раз. Мне нужно {goal}."),
        "talkative": ("Здравствуйте! Как хорошо, что живой человек. Мне нужно {goal}, неделя такая была.",),
    },
    sidetracks=("Кстати, у соседки было то же самое весной.", "Извините, собака лает, о чём это я?",
                "Я как раз сестре за обедом рассказывала.", "У нас тут всю неделю дожди, представляете?"),
    threats=("Побыстрее, или я кладу трубку.", "Я не буду ждать вечно, положу трубку."),
    trust_challenges=("Подождите. А откуда я знаю, что вы правда оттуда?",
                      "Стоп, а это точно не мошенники?"),
    confusion=("Извините, не понимаю. Что вы имеете в виду?", "Не понимаю, это как?"),
    answers={"name": "Меня зовут {v}.", "phone": "Мой телефон {v}.", "order_number": "Номер заказа {v}.",
             "date_of_birth": "Дата рождения {v}.", "address": "Адрес: {v}.", "insurance_id": "Номер полиса {v}.",
             "account_id": "Номер счёта {v}.", "postcode": "Индекс {v}.", "amount": "Было {v} {currency}.",
             "charge_date": "Это было {v}.", "slot": "Мне удобно {v}.", "email": "Почта {v}.",
             "reference": "Номер брони {v}.", "card_number": "Номер карты {v}.",
             "card_last4": "Последние четыре цифры {v}.", "maiden_name": "Девичья фамилия матери {v}.",
             "car_make": "У меня {v}.", "licence_plate": "Госномер {v}.", "tracking_number": "Номер накладной {v}.",
             "pet_name": "Кличка {v}.", "species": "У меня {v}.", "breed": "Порода {v}.", "weight": "Вес {v}.",
             "prescription": "Да, рецепт есть.", "new_name": "Новая фамилия {v}.",
             "flight": "Рейс {v}.", "new_date": "Хочу перенести на {v}.", "medicine": "Мне нужен {v}.",
             "dosage": "Дозировка {v}.", "doctor": "Нужен {v}.", "treatment": "Услуга: {v}."},
    pick="Мне подходит {option}.",
    decline="Нет, мне это не подходит.",
    lacking={"prescription": "Нет, рецепта у меня нет."},
    lacking_default="Нет, этого у меня нет.",
    # A kind named in the prompt's own words: its key is transliterated, so the caller does not say it.
    answer_default="Это {v}.",
    new_address="Новый адрес: {street}, индекс {postcode}.",
    unknown="Извините, я не знаю {item}.",
    give_up="Ладно, у меня нет на это времени. До свидания.",
    bye_done="Нет, это всё. Спасибо, до свидания.",
    bye_thanks="Отлично, спасибо. До свидания.",
    still_need="Мне всё ещё нужно {goal}.",
    ask_goal="Хорошо. Так вы можете помочь? Мне нужно {goal}.",
    protest="Это безобразие! Я ваш клиент много лет. ",
    accept_transfer="Хорошо, соединяйте.",
    want_person="Нет. Я хочу поговорить с живым человеком.",
    callback_slot="Да, пожалуйста. Мне удобно {slot}.",
    understood="А, теперь понятно. Спасибо.",
    yes="Да, пожалуйста.",
    yes_busy="Да. Давайте.",
    fillers=("Ну,", "Э-э,", "Так,", "Слушайте,"),
    cut_ins=("Подождите, перебью.", "Секунду, секунду."),
    correction="{wrong}, ой, нет: {right}.",
    volunteer_name="Меня, кстати, зовут {v}.",
    fact_cues=FACT_CUES_RU,
    confirm=("хотите", "подтвердите", "верно?", "правильно?", "давайте я", "могу ли я", "оформить",
             "забронировать", "записать вас", "вам подходит", "понятно?", "подойдёт", "подойдет",
             "устроит", "согласны"),
    done=("готово", "оформил", "оформлен", "забронирован", "забронировал", "записал", "записаны",
          "перевожу", "соединяю"),
    refusal=("не могу", "к сожалению", "не можем", "нельзя", "не имею права"),
    transfer_offer=("перевести вас", "соединить вас", "переведу", "соединю", "фармацевт", "специалист",
                    "оператор"),
    anything_else=("что-нибудь ещё", "что-нибудь еще", "ещё вопрос", "еще вопрос", "чем ещё", "чем еще"),
    repeat=("повторите", "не расслышал", "не расслышала", "плохо слышно", "ещё раз", "еще раз"),
    verify=("фамили", "дату рождения", "номер", "телефон"),
    working=("минутку", "секунду", "одну минуту", "проверяю", "сейчас посмотрю", "подождите"),
    callback=("перезвон", "обратный звонок"),
    makes_sense=("понятно?",),
    requests=("назовите", "назови", "скажите", "скажи", "продиктуйте", "уточните", "подскажите", "сообщите",
              "укажите", "напомните", "подтвердите"),
)

PHRASES: dict[str, Phrases] = {"en": ENGLISH, "ru": RUSSIAN}


def phrases_for(language: str | None) -> Phrases:
    """The phrases of `language` (English for a language without its own table)."""
    return PHRASES.get(language or "en", ENGLISH)
