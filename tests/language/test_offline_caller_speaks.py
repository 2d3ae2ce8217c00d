"""The offline caller speaks the scenario's language like a caller on a phone (issue 20)."""

from __future__ import annotations

import asyncio
import re

from polygon_core.callers import OfflineCaller
from polygon_core.conversation import AgentAction, AgentRequest, conversation_key, run_conversation
from polygon_core.models import Conversation, Persona, Scenario, SpeakingTraits
from polygon_core.personas import simulator_faults


class PharmacyAgent:
    """A scripted Russian agent: asks for the name and phone, books, then asks if that is all."""

    LINES = ("Аптека «Здоровье», здравствуйте. Чем могу помочь?",
             "Подскажите, пожалуйста, вашу фамилию и имя, а также номер телефона для связи с вами?",
             "Спасибо. Лекарство есть в наличии. Забронировать его для самовывоза?",
             "Готово, лекарство забронировано на два дня. Что-нибудь ещё?",
             "Всего доброго!")

    async def act(self, request: AgentRequest) -> AgentAction:
        line = self.LINES[min(request.turn // 2, len(self.LINES) - 1)]
        return AgentAction(say=line, end="end" if line == self.LINES[-1] else None)


def _persona(kind: str, difficulty: int, **extra: object) -> Persona:
    return Persona(type=kind, difficulty=difficulty, goal="забронировать лекарство для самовывоза",
                   ground_truth={"name": "Иванова Мария Петровна", "phone": "+7 912 345-67-89"},
                   traits=SpeakingTraits(language="ru", interruption=0.5), **extra)


def _run(persona: Persona, seed: int = 0) -> Conversation:
    scenario = Scenario(id="apteka", language="ru", persona=persona, max_turns=12)
    caller = OfflineCaller(persona, conversation_id=conversation_key(scenario, seed), seed=seed)
    return asyncio.run(run_conversation(scenario, PharmacyAgent(), caller, {}, seed=seed,
                                        agent_name="apteka", agent_version="1"))


def _lines(conv: Conversation) -> list[str]:
    return [t.text for t in conv.turns if t.speaker == "caller"]


def test_a_cooperative_russian_caller_answers_in_russian_and_ends_the_call() -> None:
    conv = _run(_persona("cooperative", 1))
    assert _lines(conv) == [
        "Здравствуйте. Мне бы хотелось забронировать лекарство для самовывоза.",
        "Меня зовут Иванова Мария Петровна. Мой телефон +7 912 345-67-89.",
        "Да, пожалуйста.",
        "Нет, это всё. Спасибо, до свидания.",
    ]
    assert conv.end_reason == "caller_hangup"
    assert simulator_faults(conv, _persona("cooperative", 1)) == []


def test_hard_russian_callers_use_fillers_cut_ins_corrections_and_volunteer_facts() -> None:
    text = ""
    for kind in ("confused", "talkative", "busy"):
        for seed in range(4):
            persona = _persona(kind, 5)
            conv = _run(persona, seed)
            lines = _lines(conv)
            assert all(not re.search(r"[A-Za-z]", line) for line in lines), lines
            assert simulator_faults(conv, persona) == [], lines  # a corrected digit is not a contradiction
            text += " ".join(lines) + " "
    assert re.search(r"\b(?:Ну|Э-э|Так|Слушайте),", text)               # fillers
    assert "Подождите, перебью." in text or "Секунду, секунду." in text  # cut-ins on a long question
    assert ", ой, нет: " in text                                         # a digit corrected
    assert "Меня, кстати, зовут" in text                                 # talkative volunteers its name
    assert "Кстати" in text or "собака" in text or "сестре" in text or "дожди" in text  # sidetracks


def test_easy_english_callers_keep_their_lines() -> None:
    # English callers below difficulty 5 say exactly what the demo's pinned transcripts say.
    persona = Persona(type="confused", difficulty=4, goal="understand a charge on my bill",
                      ground_truth={"account_id": "4821"})
    caller = OfflineCaller(persona, conversation_id="c", seed=0)
    assert caller.realism == 0.0
    assert OfflineCaller(persona.model_copy(update={"difficulty": 5}), conversation_id="c", seed=0).realism == 1.0
