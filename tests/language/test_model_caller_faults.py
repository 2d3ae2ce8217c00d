"""A model-backed caller that swaps roles or changes language ends `simulator_error` (issue 20).

The caller is the real `ModelCaller` over the openai SDK, against the scripted fake server.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from polygon_core.conversation import AgentAction, AgentRequest, run_conversation
from polygon_core.models import Conversation, EndReason, Persona, Scenario
from polygon_core.personas import apply_simulator_check, simulator_faults
from polygon_core.personas._roles import other_language, role_reversal
from tests.fakes.llm_server import Behaviour, FakeLLMServer


class ClinicAgent:
    """A scripted agent that asks for a name, then offers a slot, then says goodbye."""

    LINES = ("Brightsmile Dental, this is Mia. How can I help?", "Sure. May I have your full name?",
             "Thanks. I have tomorrow at 9. Shall I book it?", "Done. Goodbye!")

    async def act(self, request: AgentRequest) -> AgentAction:
        return AgentAction(say=self.LINES[min(request.turn // 2, len(self.LINES) - 1)])


def _converse(tmp_path: Path, lines: list[str], language: str) -> tuple[Conversation, Persona]:
    from polygon_core.adapters.callers import ModelCaller
    from polygon_core.adapters.providers import make_chat_model
    from polygon_core.adapters.settings import load_settings

    persona = Persona(type="cooperative", goal="book a cleaning", ground_truth={"name": "Dana Whitfield"})
    scenario = Scenario(id="clinic", language=language, persona=persona, max_turns=8)
    with FakeLLMServer(Behaviour(caller_lines=lines, caller_turns=len(lines))) as server:
        settings = load_settings(home=tmp_path, model_max_attempts=1, openai_api_key="test-key")
        model_name = f"openai:fake-model@{server.openai_url}"
        caller = ModelCaller(persona, make_chat_model(model_name, settings), conversation_id="c1", seed=0,
                             language=language)

        async def go() -> Conversation:
            try:
                return await run_conversation(scenario, ClinicAgent(), caller, {}, seed=0, agent_name="clinic",
                                              agent_version="1", models={"caller": model_name})
            finally:
                await caller.aclose()

        return asyncio.run(go()), persona


def test_a_caller_that_swaps_roles_ends_simulator_error(tmp_path: Path) -> None:
    conv, persona = _converse(tmp_path, [
        "Hi, I'd like to book a cleaning.",
        "I'm so sorry for the inconvenience on our side. How can I help you today?",
        "Yes, please.",
    ], "en")
    checked = apply_simulator_check(conv, persona)
    assert checked.end_reason == EndReason.SIMULATOR_ERROR
    assert [f.kind for f in simulator_faults(conv, persona)] == ["role_reversal"]
    assert checked.end_detail == (
        "simulated caller at fault (was caller_hangup): turn 3: role_reversal: the caller spoke as the "
        "agent (apologises for the company: 'sorry for the inconvenience on our side')")


def test_a_caller_that_answers_in_another_language_ends_simulator_error(tmp_path: Path) -> None:
    conv, persona = _converse(tmp_path, [
        "Здравствуйте, мне нужно записаться на чистку.",
        "Yes, my name is Dana Whitfield and I would like tomorrow morning.",
        "Да, пожалуйста.",
    ], "ru")
    faults = simulator_faults(conv, persona)
    assert [(f.kind, f.detail) for f in faults] == [
        ("wrong_language", "the caller answered in en; the scenario is in ru")]
    assert apply_simulator_check(conv, persona).end_reason == EndReason.SIMULATOR_ERROR


def test_an_ordinary_caller_is_not_flagged_and_the_offline_caller_is_never_checked(tmp_path: Path) -> None:
    conv, persona = _converse(tmp_path, ["Hi, sorry to bother you. Can you help me book a cleaning?",
                                         "It's Dana Whitfield.", "Yes, please book it."], "en")
    assert simulator_faults(conv, persona) == []
    offline = conv.model_copy(update={"models": {"caller": "offline"}, "turns": [
        t.model_copy(update={"text": "How can I help you today?"}) if t.speaker == "caller" else t
        for t in conv.turns]})
    assert simulator_faults(offline, persona) == []


def test_role_reversal_and_language_cues_in_both_languages() -> None:
    assert role_reversal("Приносим извинения за нашу ошибку.", "ru") is not None
    assert role_reversal("Назовите, пожалуйста, ваш номер телефона.", "ru") is not None
    assert role_reversal("Could I have your account number, please?", "en") is not None
    assert role_reversal("Извините, что беспокою. Мне нужна помощь.", "ru") is None
    assert role_reversal("Sorry, can you say that again?", "en") is None
    assert other_language("Меня зовут Dana Whitfield, почта dana@example.com.", "ru") is None
    assert other_language("Ok", "ru") is None
    assert other_language("Я хочу записаться на приём завтра.", "en") == "ru"


def test_a_corrected_value_is_not_a_contradiction_but_a_wrong_one_is() -> None:
    from polygon_core.models import Turn

    persona = Persona(goal="забронировать лекарство", ground_truth={"phone": "+7 912 345-67-89"})

    def conv(text: str) -> Conversation:
        return Conversation(id="c", scenario_id="s", seed=0, agent_name="a", agent_version="1",
                            persona_hash="p", caller_type="cooperative", difficulty=1, language="ru",
                            end_reason=EndReason.CALLER_HANGUP, turns=[
                                Turn(index=0, speaker="agent", text="Ваш телефон?"),
                                Turn(index=1, speaker="caller", text=text)])

    assert simulator_faults(conv("Мой телефон +7 912 345-67-90, ой, нет: +7 912 345-67-89."), persona) == []
    assert [f.kind for f in simulator_faults(conv("Мой телефон +7 912 345-67-90."), persona)] == ["contradiction"]


def test_a_hidden_fact_asked_for_in_russian_is_not_an_unprompted_reveal() -> None:
    from polygon_core.models import Turn

    persona = Persona(goal="забронировать лекарство", ground_truth={"phone": "+7 912 345-67-89"}, hidden=["phone"])

    def conv(question: str) -> Conversation:
        return Conversation(id="c", scenario_id="s", seed=0, agent_name="a", agent_version="1",
                            persona_hash="p", caller_type="cooperative", difficulty=1, language="ru",
                            end_reason=EndReason.CALLER_HANGUP, models={"caller": "openai:m"}, turns=[
                                Turn(index=0, speaker="agent", text=question),
                                Turn(index=1, speaker="caller", text="Мой номер +7 912 345-67-89.")])

    assert simulator_faults(conv("Назовите, пожалуйста, номер телефона."), persona) == []
    assert [(f.kind, f.detail) for f in simulator_faults(conv("Аптека «Здоровье», слушаю вас."), persona)] == [
        ("unprompted_reveal", "caller revealed hidden phone before the agent asked for it")]


def test_the_fault_check_hears_a_question_as_the_offline_caller_does() -> None:
    from polygon_core.models import Turn

    persona = Persona(goal="update my payment card", ground_truth={"card_number": "4929 1234 5678 9012"},
                      hidden=["card_number"])

    def conv(question: str) -> Conversation:
        return Conversation(id="c", scenario_id="s", seed=0, agent_name="a", agent_version="1",
                            persona_hash="p", caller_type="cooperative", difficulty=1, language="en",
                            end_reason=EndReason.CALLER_HANGUP, models={"caller": "openai:m"}, turns=[
                                Turn(index=0, speaker="agent", text=question),
                                Turn(index=1, speaker="caller", text="It's 4929 1234 5678 9012.")])

    assert simulator_faults(conv("What is your card number?"), persona) == []
    # Asked for the last four digits only: the whole number was not asked for (the longer cue wins).
    assert [(f.kind, f.detail) for f in simulator_faults(conv("What are the last four digits of your card number?"),
                                                         persona)] == [
        ("unprompted_reveal", "caller revealed hidden card number before the agent asked for it")]
