"""End to end: callers generated offline from a prompt give a scripted agent every fact their task has.

The car-service prompt (Russian) asks for the car make, the licence plate and a convenient date; the
library prompt (English) for the library card number and the date of birth. A dozen personas from
each (every caller type, easy to hard) talk to an agent that asks for each fact its persona's task
has, one question a fact, and asks again when the caller answers with a question of its own (a
distrustful caller asks who is calling, a confused one what was meant). Every ground-truth value
must be said, and every fact the persona does not know must be said to be unknown.
"""

from __future__ import annotations

import asyncio

import pytest

from polygon_core.callers import OfflineCaller
from polygon_core.conversation import AgentAction, AgentRequest, conversation_key, run_conversation
from polygon_core.models import Conversation, Language, Persona, Scenario
from polygon_core.personas import generate_offline, read_prompt

from .prompts import CAR_SERVICE_RU, LIBRARY_EN

QUESTIONS = {
    "ru": {"name": "Как вас зовут?", "car_make": "Какая у вас марка машины?", "licence_plate": "Назовите госномер.",
           "slot": "Когда вам удобно подъехать?", "phone": "Назовите номер телефона."},
    "en": {"name": "Can I take your full name?", "card_number": "Could I have the number on your card?",
           "date_of_birth": "And when were you born?"},
}
HELLO = {"ru": "Автосервис «Колесо», здравствуйте. Чем могу помочь?", "en": "Harbor City Library, how can I help?"}
# The agent says it is working on the request, so no caller gives up while facts are still asked.
WORKING = {"ru": "Секунду, проверяю. ", "en": "One moment. "}
DONE = {"ru": "Готово, вы записаны. Что-нибудь ещё?", "en": "Done. Is there anything else?"}
AGAIN = {"ru": ("Я из автосервиса «Колесо», не волнуйтесь. ", "Поясню: мне нужно для записи. ",
                "Скажу иначе. "),
         "en": ("I'm calling from the library, don't worry. ", "Let me put that another way. ", "To be clear: ")}
BYE = {"ru": "Всего доброго!", "en": "Goodbye!"}


class AskingAgent:
    """Asks for each of `keys` in turn; asks again when the caller answers with a question."""

    def __init__(self, language: str, keys: list[str]) -> None:
        self.language, self.keys, self.asked, self.again = language, keys, 0, 0

    async def act(self, request: AgentRequest) -> AgentAction:
        heard = (request.heard or "").strip()
        if request.heard is None:
            return AgentAction(say=HELLO[self.language])
        if heard.endswith("?") and 0 < self.asked <= len(self.keys):
            # Said in other words each time: an agent repeating itself word for word is a loop.
            self.again += 1
            again = AGAIN[self.language][(self.again - 1) % len(AGAIN[self.language])]
            return AgentAction(say=again + self._ask(self.asked - 1))
        if self.asked < len(self.keys):
            return AgentAction(say=self._ask(self.asked))
        if self.asked == len(self.keys):
            self.asked += 1
            return AgentAction(say=DONE[self.language])
        return AgentAction(say=BYE[self.language], end="end")

    def _ask(self, index: int) -> str:
        self.asked = max(self.asked, index + 1)
        return WORKING[self.language] + QUESTIONS[self.language][self.keys[index]]


def _talk(persona: Persona, language: Language, keys: list[str], seed: int) -> Conversation:
    scenario = Scenario(id=f"facts-{language}", language=language, persona=persona, max_turns=30)
    caller = OfflineCaller(persona, conversation_id=conversation_key(scenario, seed), seed=seed)
    return asyncio.run(run_conversation(scenario, AskingAgent(language, keys), caller, {}, seed=seed,
                                        agent_name="asking", agent_version="1"))


def _said(value: object) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


# Three dozen car-service personas include hard callers who do not know the make or the plate (the
# library's hard callers know all they are asked: both its facts say who the caller is).
CASES = [(CAR_SERVICE_RU, "ru", 36, {"name", "car_make", "licence_plate", "slot", "phone"},
          {"марку автомобиля", "госномер"}),
         (LIBRARY_EN, "en", 12, {"name", "card_number", "date_of_birth"}, set())]


@pytest.mark.parametrize(("prompt", "language", "count", "facts", "unknowns"), CASES, ids=["ru", "en"])
def test_every_caller_gives_every_fact_its_task_has(prompt: str, language: Language, count: int, facts: set[str],
                                                    unknowns: set[str]) -> None:
    by_name = {name: key for key, name in read_prompt(prompt).fact_names}
    result = generate_offline(prompt, count=count)
    facts_seen: set[str] = set()
    unknown_seen: set[str] = set()
    for seed, persona in enumerate(result.personas):
        unknown = {u: by_name.get(u, u.replace(" ", "_")) for u in persona.unknown}
        keys = [*persona.ground_truth, *unknown.values()]
        conv = _talk(persona, language, keys, seed)
        text = " ".join(t.text for t in conv.turns if t.speaker == "caller").lower()
        for key, value in persona.ground_truth.items():
            assert _said(value).lower() in text, (persona.name, key, text)
            facts_seen.add(key)
        for item in unknown:
            assert f"я не знаю {item}" in text, (persona.name, item, text)
            unknown_seen.add(item)
    assert (facts_seen, unknown_seen) == (facts, unknowns)
