"""Role reversal is caught by the speech act, not by a phrase list (issue 27, item 6).

A model playing the caller sometimes speaks the agent's part: it offers service, acts on "your"
records, reports such an act done, or closes the call the way an agent does. Before, the check caught
9 of 15 such lines measured on real runs ("Certainly! I can help you with that. Let me look into your
account.", "Your refund has been processed" were missed) and the missed conversations were scored
against the agent. Ordinary caller lines (apologies, questions to the agent, "can you help me?",
"I'd like to confirm my booking") must never be flagged.
"""

from __future__ import annotations

import pytest

from polygon_core.personas._roles import role_reversal

# Caller lines spoken as the agent: (line, scenario language).
AGENT_VOICED = [
    ("Certainly! I can help you with that. Let me look into your account.", "en"),
    ("Your refund has been processed.", "en"),
    ("Is there anything else we could do for you today?", "en"),
    ("I'd be happy to help you with your booking.", "en"),
    ("Let me check that for you.", "en"),
    ("Your booking is confirmed for Tuesday at 9.", "en"),
    ("Is there anything else I can help you with today?", "en"),
    ("Great news, I've cancelled your appointment and issued a full refund.", "en"),
    ("One moment while I pull up your reservation.", "en"),
    ("What can I do for you today?", "en"),
    ("Thanks for calling, and have a wonderful day!", "en"),
    ("Sure, I'll go ahead and reschedule that for you.", "en"),
    ("Okay, your new password has been sent to your email.", "en"),
    ("You're all set for Thursday at three.", "en"),
    ("Чем могу помочь?", "ru"),
    ("Ваш возврат оформлен.", "ru"),
    ("Ваша запись на завтра подтверждена.", "ru"),
    ("Сейчас проверю ваш заказ, одну минуту.", "ru"),
    ("Могу ли я ещё чем-нибудь вам помочь?", "ru"),
    ("Я отменила вашу запись и оформила возврат.", "ru"),
    ("Спасибо за обращение, хорошего дня!", "ru"),
    ("С удовольствием вам помогу.", "ru"),
    ("Давайте я посмотрю вашу бронь.", "ru"),
    ("Ваш платёж успешно обработан.", "ru"),
    ("Готово, вы записаны на пятницу.", "ru"),
]

# Ordinary caller lines, some close to the agent's words: never a role reversal.
ORDINARY = [
    ("Sorry to bother you, I have a quick question.", "en"),
    ("I'm so sorry, I didn't catch that.", "en"),
    ("Who am I speaking with?", "en"),
    ("Can you help me?", "en"),
    ("I'd like to confirm my booking.", "en"),
    ("Could you check my account, please?", "en"),
    ("Has my refund been processed yet?", "en"),
    ("Let me check, my account number is 4821.", "en"),
    ("Thank you so much, that's all I needed.", "en"),
    ("Thanks for calling me back.", "en"),
    ("My booking was confirmed last week but I never got an email.", "en"),
    ("I was told my refund has been processed, but I haven't seen it.", "en"),
    ("Is there anything else you need from me?", "en"),
    ("Is there anything else I can do to speed it up?", "en"),
    ("Can I ask you something about your opening hours?", "en"),
    ("Sorry, my mistake, it's Whitfield with two Ts.", "en"),
    ("I hope you can help me with my prescription.", "en"),
    ("Let me spell that for you: W-H-I-T-F-I-E-L-D.", "en"),
    ("I booked an appointment on your website last week.", "en"),
    ("I updated your app and now it keeps crashing.", "en"),
    ("Would you like me to spell it?", "en"),
    ("Have a great day!", "en"),
    ("Извините, я не расслышал.", "ru"),
    ("Здравствуйте, можете мне помочь?", "ru"),
    ("Я хотела бы подтвердить свою запись.", "ru"),
    ("Простите, а с кем я говорю?", "ru"),
    ("Мой возврат уже оформлен?", "ru"),
    ("Спасибо, что перезвонили.", "ru"),
    ("Проверьте, пожалуйста, мой заказ.", "ru"),
    ("Сейчас посмотрю, номер заказа у меня где-то записан.", "ru"),
    ("Спасибо большое, всего доброго!", "ru"),
    ("Извините за беспокойство, у меня вопрос по вашей аптеке.", "ru"),
    ("Скажите, пожалуйста, а как ваше имя?", "ru"),
    ("Я уже оплатил ваш счёт, но заказ не пришёл.", "ru"),
    ("Я записала ваш номер телефона.", "ru"),
    ("Ваша карта не принята, что делать?", "ru"),
]


def test_the_corpora_are_as_large_as_the_acceptance_asks() -> None:
    assert len(AGENT_VOICED) >= 15 and {lang for _, lang in AGENT_VOICED} == {"en", "ru"}
    assert len(ORDINARY) >= 20 and {lang for _, lang in ORDINARY} == {"en", "ru"}


def test_every_agent_voiced_line_is_caught() -> None:
    missed = [line for line, lang in AGENT_VOICED if role_reversal(line, lang) is None]
    assert missed == []


def test_no_ordinary_caller_line_is_a_false_alarm() -> None:
    flagged = {line: role_reversal(line, lang) for line, lang in ORDINARY}
    assert {line: why for line, why in flagged.items() if why is not None} == {}


@pytest.mark.parametrize(("line", "language", "why"), [
    ("Certainly! I can help you with that. Let me look into your account.", "en",
     "offers service: 'I can help you'"),
    ("Your refund has been processed.", "en",
     "reports an action on the caller's records as done: 'Your refund has been processed'"),
    ("Is there anything else I can help you with today?", "en",
     "closes the call: 'anything else I can help you'"),
    ("Ваша запись на завтра подтверждена.", "ru",
     "reports an action on the caller's records as done: 'Ваша запись на завтра подтверждена'"),
    ("Сейчас проверю ваш заказ, одну минуту.", "ru", "offers service: 'проверю ваш заказ'"),
    # a Russian scenario's caller speaking the agent's part in English is caught too
    ("Let me pull up your booking.", "ru", "offers service: 'Let me pull up your booking'"),
])
def test_the_reason_names_the_speech_act_and_the_words(line: str, language: str, why: str) -> None:
    assert role_reversal(line, language) == why
