"""Issue 31: the offline caller takes one of the options the agent offers when one fits its goal, and
says no when none does (it used to answer "Tuesday 10am or Friday 2pm?" with "Yes, please.").

A caller's preference is its `slot`, its new date, or another fact about when; the first option that
contradicts none of it (weekday, date, part of the day against the clock time) is taken. A caller with
no preference takes the first. A value the caller knows among the options is taken over the others.
"""

from __future__ import annotations

import asyncio

import pytest

from polygon_core.callers import OfflineCaller
from polygon_core.callers._options import offered
from polygon_core.conversation import AgentAction, AgentRequest, conversation_key, run_conversation
from polygon_core.models import FactValue, Language, Scenario
from polygon_core.personas import generate_offline

from .prompts_callers import DENTAL_EN
from .test_caller_answers_facts import reply

OFFER = "I have Tuesday at 10am or Friday at 2pm. Which suits you?"
OFFER_RU = "Есть вторник в 10:00 или пятница в 18:30. Что вам удобнее?"


@pytest.mark.parametrize(("language", "truth", "line", "expected"), [
    ("en", {"slot": "Friday after lunch"}, OFFER, "Friday at 2pm works for me."),
    ("en", {"slot": "tomorrow morning"}, OFFER, "Tuesday at 10am works for me."),
    ("en", {"slot": "Monday morning"}, OFFER, "Sorry, none of those works for me. Monday morning would be best."),
    ("en", {}, OFFER, "Tuesday at 10am works for me."),
    ("en", {"new_date": "October 14"}, "On October 14 there's a flight at 9:15 or at 17:40. Which would you like?",
     "9:15 works for me."),
    ("en", {"new_date": "October 14"}, "I have October 12 or October 15. Which would you like?",
     "Sorry, none of those works for me. I'd like to move it to October 14."),
    ("en", {"medicine": "ibuprofen"}, "Do you need ibuprofen or paracetamol?", "Ibuprofen works for me."),
    ("ru", {"slot": "в пятницу вечером"}, OFFER_RU, "Мне подходит пятница в 18:30."),
    ("ru", {"slot": "завтра утром"}, OFFER_RU, "Мне подходит вторник в 10:00."),
    ("ru", {"slot": "в понедельник утром"}, "Могу предложить вторник в 10:00 или пятницу в 18:30.",
     "Нет, мне это не подходит. Мне удобно в понедельник утром."),
    ("ru", {"den": "16 августа"}, "Есть 16 августа в 9:00 или 17 августа в 15:00.", "Мне подходит 16 августа в 9:00."),
])
def test_the_caller_takes_the_option_that_fits_or_says_no(language: Language, truth: dict[str, FactValue], line: str,
                                                           expected: str) -> None:
    name = "Иванова Мария Петровна" if language == "ru" else "Dana Whitfield"
    assert reply(language, {"name": name, **truth}, line) == expected


@pytest.mark.parametrize("line", ["Can I have your account number or postcode?",
                                  "Would you like a refund or a credit note?",
                                  "Назовите номер заказа или телефон."])
def test_a_choice_of_facts_or_of_remedies_offers_no_options(line: str) -> None:
    assert offered(line, {"account_id": "4821", "postcode": "NE1 7RU", "phone": "+7 912 345-67-89"}) == []


class OfferingAgent:
    """Asks which treatment, offers two times, books the one taken, else offers two more, then closes."""

    OFFERS = ("I have Tuesday at 10am or Friday at 2pm. Which suits you?",
              "I also have Monday at 9am or Wednesday at 4pm. Would either work?")

    def __init__(self) -> None:
        self.step = 0

    async def act(self, request: AgentRequest) -> AgentAction:
        self.step += 1
        heard = request.heard or ""
        if request.heard is None:
            return AgentAction(say="Maple Street Dental, this is Ava. How can I help?")
        if self.step == 2:
            return AgentAction(say="Which treatment do you need?")
        if self.step in (3, 4) and "works for me" not in heard:
            return AgentAction(say=self.OFFERS[self.step - 3])
        if self.step <= 5 and "works for me" in heard:
            return AgentAction(say="Done, you're booked. Is there anything else?")
        return AgentAction(say="Goodbye!", end="end")


def test_dental_callers_take_a_time_that_fits_or_say_none_does() -> None:
    personas = [p for p in generate_offline(DENTAL_EN, count=12).personas if p.goal.startswith(("book", "reschedule"))]
    seen = []
    for seed, persona in enumerate(personas):
        scenario = Scenario(id="options-en", language="en", persona=persona, max_turns=20)
        caller = OfflineCaller(persona, conversation_id=conversation_key(scenario, seed), seed=seed)
        conv = asyncio.run(run_conversation(scenario, OfferingAgent(), caller, {}, seed=seed,
                                            agent_name="offering", agent_version="1"))
        offers = [i for i, t in enumerate(conv.turns) if t.speaker == "agent" and t.text in OfferingAgent.OFFERS]
        replies = [conv.turns[i + 1].text for i in offers if i + 1 < len(conv.turns)]
        seen.append((persona.ground_truth["slot"], replies, conv.end_reason.value if conv.end_reason else None))
    # (its slot, what it said to each offer, end): the confused caller asks what was meant first.
    assert seen == [
        ("tomorrow afternoon", ["Friday at 2pm works for me."], "caller_hangup"),
        ("tomorrow morning", ["Sorry, I don't follow. What do you mean?", "Monday at 9am works for me."],
         "caller_hangup"),
        ("tomorrow morning", ["Tuesday at 10am works for me."], "caller_hangup"),
        ("tomorrow morning", ["Tuesday at 10am works for me."], "caller_hangup"),
    ]
