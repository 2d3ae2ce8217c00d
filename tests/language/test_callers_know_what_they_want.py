"""Issue 31: callers that know what they want.

In the airline (English) and pharmacy (Russian) suites generated offline from `prompts_callers`, an
agent that asks which flight / which medicine («Какое именно лекарство?») gets the persona's own
flight or medicine back, and no conversation ends in ``loop``: the agent asks again only while it has
not heard an answer, so a caller that repeated its goal instead (before this issue, 3 of 3 calls
each) would make it repeat itself into a loop.
"""

from __future__ import annotations

import asyncio
import re

import pytest

from polygon_core.callers import OfflineCaller
from polygon_core.conversation import AgentAction, AgentRequest, conversation_key, run_conversation
from polygon_core.models import Conversation, Persona, Scenario
from polygon_core.personas import generate_offline

from .prompts_callers import AIRLINE_EN, PHARMACY_RU

# The pharmacy's catalogue: the agent knows a medicine when it hears one of these names.
_CATALOGUE = re.compile(r"ибупрофен|амоксициллин|аторвастатин|метформин|лозартан|парацетамол", re.IGNORECASE)
_FLIGHT = re.compile(r"\b[A-Z]{2} \d{3,4}\b")
LINES = {
    "en": {"hello": "Bluebird Airways, this is Skye. How can I help?", "ask": "Which flight?",
           "again": "Sorry, which flight is it, please?", "done": "Thank you, I have that flight. Done. Is there anything else?",
           "bye": "Goodbye!", "heard": _FLIGHT},
    "ru": {"hello": "Аптека «Фарма Плюс», здравствуйте. Чем могу помочь?", "ask": "Какое именно лекарство?",
           "again": "Простите, а как называется лекарство?", "done": "Спасибо, нашла. Готово. Что-нибудь ещё?",
           "bye": "Всего доброго!", "heard": _CATALOGUE},
}


class WhichAgent:
    """Asks which flight / which medicine until it hears one, then closes the call."""

    def __init__(self, language: str) -> None:
        self.lines, self.asked, self.done = LINES[language], 0, False

    async def act(self, request: AgentRequest) -> AgentAction:
        lines = self.lines
        if request.heard is None:
            return AgentAction(say=lines["hello"])
        if self.done:
            return AgentAction(say=lines["bye"], end="end")
        if self.asked and lines["heard"].search(request.heard):
            self.done = True
            return AgentAction(say=lines["done"])
        self.asked += 1
        # A real agent asks the same question again: twice in the same words is a loop.
        return AgentAction(say=lines["ask"] if self.asked != 2 else lines["again"])


def _talk(persona: Persona, seed: int) -> Conversation:
    language = persona.traits.language
    scenario = Scenario(id=f"which-{language}", language=language, persona=persona, max_turns=20)
    caller = OfflineCaller(persona, conversation_id=conversation_key(scenario, seed), seed=seed)
    return asyncio.run(run_conversation(scenario, WhichAgent(language), caller, {}, seed=seed,
                                        agent_name="which", agent_version="1"))


# (goal, the caller's answer to the first "which" question, end reason): every persona whose task is
# about a flight (4 of the airline's 12) or a medicine (all 12 of the pharmacy's, whose prompt asks
# «какое лекарство» for every task).
EXPECTED = {
    "flight": [
        ("change a flight", "It's flight BL 1727.", "caller_hangup"),
        ("check flight status", "It's flight BL 1578. Hurry up or I'm hanging up.", "caller_hangup"),
        ("check flight status", "It's flight BL 1414.", "agent_end"),
        ("change a flight", "It's flight BL 1780. Sorry, the dog is barking, where was I?", "caller_hangup"),
    ],
    "medicine": [
        ("узнать наличие лекарства", "Мне нужен Метформин.", "caller_hangup"),
        ("забронировать рецептурные препараты без рецепта", "Мне нужен Метформин.", "caller_hangup"),
        ("попросить медицинских советов", "Мне нужен Ибупрофен.", "caller_hangup"),
        ("забронировать лекарство для самовывоза", "Мне нужен Метформин.", "caller_hangup"),
        ("продлить бронь", "Мне нужен Ибупрофен.", "caller_hangup"),
        ("узнать наличие лекарства", "Мне нужен Лозартан. У нас тут всю неделю дожди, представляете?",
         "caller_hangup"),
        ("забронировать рецептурные препараты без рецепта", "Мне нужен Лозартан.", "caller_hangup"),
        ("попросить медицинских советов", "Слушайте, мне нужен Метформин.", "caller_hangup"),
        ("забронировать лекарство для самовывоза", "Мне нужен Амоксициллин.", "caller_hangup"),
        ("продлить бронь", "Ну, мне нужен Ибупрофен.", "agent_end"),
        ("узнать наличие лекарства", "Мне нужен Аторвастатин.", "caller_hangup"),
        ("забронировать рецептурные препараты без рецепта", "Мне нужен Метформин. Извините, собака лает, о чём это я?",
         "caller_hangup"),
    ],
}


def _first_answer(conv: Conversation, lines: dict[str, object]) -> str:
    """The caller's first line after the agent first asked which, that names a value."""
    asked = next(i for i, t in enumerate(conv.turns) if t.speaker == "agent" and t.text in (lines["ask"], lines["again"]))
    heard = lines["heard"]
    assert isinstance(heard, re.Pattern)
    return next(t.text for t in conv.turns[asked:] if t.speaker == "caller" and heard.search(t.text))


@pytest.mark.parametrize(("prompt", "key"), [(AIRLINE_EN, "flight"), (PHARMACY_RU, "medicine")], ids=["airline", "pharmacy"])
def test_asked_which_the_caller_answers_and_no_call_loops(prompt: str, key: str) -> None:
    personas = [p for p in generate_offline(prompt, count=12).personas if key in p.ground_truth]
    seen = []
    for seed, persona in enumerate(personas):
        conv = _talk(persona, seed)
        answer = _first_answer(conv, LINES[persona.traits.language])
        assert str(persona.ground_truth[key]) in answer  # the persona's own flight / medicine
        seen.append((persona.goal, answer, conv.end_reason.value if conv.end_reason else None))
    assert seen == EXPECTED[key]
    assert "loop" not in {end for _goal, _answer, end in seen}


def test_a_refusal_caller_asked_for_its_prescription_number_says_it_has_none() -> None:
    from .test_caller_answers_facts import reply

    refusals = [p for p in generate_offline(PHARMACY_RU, count=12).personas if p.intended_outcome == "refusal"]
    assert [p.goal for p in refusals] == ["забронировать рецептурные препараты без рецепта"] * 3
    assert [reply("ru", p.ground_truth, "Назовите номер рецепта.") for p in refusals] == ["Нет, рецепта у меня нет."] * 3
