"""The starter's agent: a small Python class the user edits, written with the routes read from the prompt."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import yaml

from ..callers import FACT_CUES
from ._tools import TRANSFER_TOOL, Route

__all__ = ["AGENT_CLASS", "AGENT_MODULE", "agent_source", "agent_yaml", "questions"]

AGENT_MODULE = "my_agent"
AGENT_CLASS = "MyAgent"

# What the agent says, per language: English and Russian, the languages the prompt readers read.
_LINES: dict[str, dict[str, str]] = {
    "en": {"greeting": "Hello, thank you for calling. How can I help you today?",
           "working": "Thank you. One moment, please.",
           "done": "That's done. Is there anything else I can help with?",
           "refuse": "I'm sorry, I can't help with that over the phone. Is there anything else I can do for you?",
           "answered": "Is there anything else I can help with?",
           "failed": "Sorry, I couldn't do that just now. Is there anything else I can help with?",
           "transfer_to_human": "I'll put you through to a colleague who can help with that.",
           "schedule_callback": "I've booked a callback for you: we'll call you back soon. Goodbye!",
           "bye": "Thank you for calling. Goodbye!"},
    "ru": {"greeting": "Здравствуйте! Спасибо за звонок. Чем могу помочь?",
           "working": "Спасибо. Одну минуту, пожалуйста.",
           "done": "Готово. Чем ещё могу помочь?",
           "refuse": "К сожалению, с этим я по телефону помочь не могу. Чем ещё могу помочь?",
           "answered": "Чем ещё могу помочь?",
           "failed": "Извините, сейчас это сделать не получилось. Чем ещё могу помочь?",
           "transfer_to_human": "Соединяю вас с коллегой, который сможет с этим помочь.",
           "schedule_callback": "Я записал обратный звонок, вам скоро перезвонят. До свидания!",
           "bye": "Спасибо за звонок, до свидания!"},
}
_BYE = {"en": r"\b(bye|goodbye)\b|that's everything|that's all", "ru": r"до свидания|это вс[её]"}
# A caller asking for a person, whatever the task.
_PERSON = {"en": r"(talk|speak) to (a real person|someone)|put through|supervisor",
           "ru": r"с живым человеком|соедините|соединили"}
# Questions for the facts the readers know; any other fact is asked for in its own words.
_QUESTIONS_EN = {"name": "May I have your full name?", "phone": "What is your phone number?",
                 "date_of_birth": "What is your date of birth?", "email": "What is your email address?",
                 "postcode": "What is your postcode?", "address": "What is your address?",
                 "insurance_id": "What is your insurance member ID?", "card_last4":
                 "What are the last four digits of your card?", "slot": "What time would suit you?",
                 # What the call is about (the persona's task object): asked as a question.
                 "flight": "Which flight is it?", "new_date": "Which date would you like instead?",
                 "medicine": "Which medicine is it?", "dosage": "What dosage is it?",
                 "doctor": "Which doctor would you like to see?", "treatment": "Which treatment do you need?"}
_QUESTIONS_RU = {"name": "Как вас зовут?", "phone": "Назовите, пожалуйста, номер телефона.",
                 "date_of_birth": "Назовите, пожалуйста, дату рождения.",
                 "flight": "Какой у вас рейс?", "new_date": "На какую дату перенести?",
                 "medicine": "Какое именно лекарство?", "dosage": "Какая дозировка?",
                 "doctor": "К какому врачу вы хотите записаться?", "treatment": "Какая услуга вам нужна?"}
_NAMES_RU = {"name": "фамилию", "phone": "номер телефона", "order_number": "номер заказа",
             "date_of_birth": "дату рождения", "address": "адрес", "slot": "удобное время"}


def questions(facts: Sequence[str], language: str, fact_names: Sequence[tuple[str, str]] = ()) -> dict[str, str]:
    """The question the agent asks for each fact: in Russian in the prompt's own words where it
    has them («Назовите, пожалуйста, госномер.»), in English by the caller's cue for the fact."""
    named = dict(fact_names)
    return {fact: _question_ru(fact, named) if language == "ru" else _question_en(fact) for fact in facts}


def _question_en(fact: str) -> str:
    if fact in _QUESTIONS_EN:
        return _QUESTIONS_EN[fact]
    return f"What is your {FACT_CUES.get(fact, (fact.replace('_', ' '),))[0]}?"


def _question_ru(fact: str, named: dict[str, str]) -> str:
    if fact not in named and fact in _QUESTIONS_RU:
        return _QUESTIONS_RU[fact]
    words = named.get(fact) or _NAMES_RU.get(fact) or fact.replace("_", " ")
    return f"Назовите, пожалуйста, {words}."


def _literal(value: dict[str, Any]) -> str:
    """A dict literal with one entry a line (an entry too long for 100 columns, one key a line),
    as a person would write it; JSON's quoting of strings and lists is Python's."""
    def text(v: Any) -> str:
        return json.dumps(v, ensure_ascii=False)

    lines = []
    for key, item in value.items():
        line = f"    {text(key)}: {text(item)},"
        if len(line) > 100 and isinstance(item, dict):
            inner = "".join(f"        {text(k)}: {text(v)},\n" for k, v in item.items())
            line = f"    {text(key)}: {{\n{inner}    }},"
        lines.append(line + "\n")
    return "{\n" + "".join(lines) + "}"


def _routes(found: Sequence[Route]) -> dict[str, dict[str, object]]:
    out: dict[str, dict[str, object]] = {}
    for r in found:
        entry: dict[str, object] = {"action": r.action, "goal": r.goal}
        if r.tool:
            entry["tool"] = r.tool
            entry["facts"] = list(r.facts) or ["name"]
        if r.answer:
            entry["answer"] = r.answer
        out[r.task] = entry
    return out


_SOURCE = '''"""Your agent, as Polygon calls it (docs/agents.md): a class, one instance per conversation.

Written by `polygon init` from {prompt_name} as a stand-in to replace with your own agent. It
greets, finds which of the prompt's tasks the caller wants from their first words, asks for the
facts that task's tool needs, calls the tool, answers questions from the prompt's own sentences,
refuses what the prompt refuses, hands over what it hands over, and hangs up when the caller is
done. Edit `act`, or make it call your real agent; it returns a dict of `say`, `tool_calls`, `end`
(or an AgentAction). Then: polygon run {suite} --agent {agent_file}
"""

from __future__ import annotations

import re
from typing import Any

from polygon_core.agent import AgentRequest, ToolCall

LINES = {lines}
# The caller is done; the caller asks for a person (handed over, whatever the task).
BYE = re.compile(r"{bye}", re.IGNORECASE)
PERSON = re.compile(r"{person}", re.IGNORECASE)
# What the agent asks for each fact a tool needs.
QUESTIONS = {questions}
# The prompt's tasks: what a caller asks for (its goal) and what this agent does about it:
# `tool` (ask for `facts`, then call `tool`: tools.yaml), `answer`, `refuse` or `transfer`.
ROUTES: dict[str, dict[str, Any]] = {routes}


class {cls}:
    """Greets, routes the caller by their words, asks what the tool needs, calls it, says goodbye."""

    def __init__(self) -> None:
        self.route: dict[str, Any] | None = None  # what the caller is calling about, once known
        self.answers: dict[str, str] = {{}}  # fact -> what the caller said
        self.asking: str | None = None  # the fact asked for last
        self.handled: set[str] = set()  # goals already answered or refused

    def act(self, request: AgentRequest) -> dict[str, Any]:
        """One step: `request.heard` is what the caller said (None at the opening and after a tool)."""
        if request.turn == 0:  # the opening: nobody has spoken yet
            return {{"say": LINES["greeting"]}}
        if request.tool_results:  # the step after a tool call: what the tool answered
            return self.after_tool(request.tool_results[0])
        heard = request.heard or ""
        if BYE.search(heard):
            return {{"say": LINES["bye"], "end": "end"}}
        if self.asking is not None:  # the caller answered the last question
            self.answers[self.asking] = _value(heard)
            self.asking = None
        elif self.route is None:  # a new request
            self.route = self.choose(heard)
            if self.route["action"] != "tool":
                return self.reply(heard)
        missing = [fact for fact in self.route["facts"] if fact not in self.answers]
        if missing:
            self.asking = missing[0]
            return {{"say": QUESTIONS.get(missing[0], missing[0].replace("_", " ") + "?")}}
        call = {{"name": self.route["tool"], "arguments": {{f: self.answers[f] for f in self.route["facts"]}}}}
        return {{"say": LINES["working"], "tool_calls": [call], "latency_ms": 250}}

    def choose(self, heard: str) -> dict[str, Any]:
        """The route for a new request; asked again after an answer or a refusal, a handover."""
        route = _route(heard)
        if PERSON.search(heard) or (route["action"] in ("answer", "refuse") and route["goal"] in self.handled):
            return {{"action": "transfer"}}
        self.handled.add(route["goal"])
        return route

    def reply(self, heard: str) -> dict[str, Any]:
        """Answer, refuse or hand over: no facts needed."""
        route, self.route = self.route or {{}}, None
        if route["action"] == "answer":
            return {{"say": f"{{route['answer']}} {{LINES['answered']}}"}}
        if route["action"] == "refuse":
            return {{"say": LINES["refuse"]}}
        call = {{"name": "{transfer}", "arguments": {{"reason": heard or "caller asked"}}}}
        return {{"tool_calls": [call]}}  # what to say comes with the tool's answer, next step

    def after_tool(self, done: ToolCall) -> dict[str, Any]:
        """What to say once a tool has answered; that task is over either way."""
        self.route = None
        if not done.valid or done.error:  # bad arguments, or the tool failed
            return {{"say": LINES["failed"]}}
        return {{"say": LINES.get(done.name, LINES["done"])}}


def _stems(text: str) -> set[str]:
    return {{word[:5] for word in re.findall(r"[^\\W\\d_]{{4,}}", text.lower())}}


def _route(heard: str) -> dict[str, Any]:
    """The route whose goal shares the most words with what the caller said (else a handover)."""
    said, best, most = _stems(heard), None, 0
    for route in ROUTES.values():
        shared = len(said & _stems(route["goal"]))
        if shared > most:
            best, most = route, shared
    return best or {{"action": "transfer", "goal": heard}}


def _value(heard: str) -> str:
    """The value in an answer's first sentence: what follows "is" or a colon ("My name is Dana
    Whitfield. I'm in a hurry." -> "Dana Whitfield")."""
    first = heard.split(". ")[0]
    return re.split(r" is |: ", first, maxsplit=1)[-1].strip().rstrip(".") or heard
'''


def agent_source(found: Sequence[Route], *, language: str, asks: dict[str, str], prompt_name: str,
                 suite: str, agent_file: str) -> str:
    """The agent module's text (`my_agent.py`)."""
    return _SOURCE.format(prompt_name=prompt_name, suite=suite, agent_file=agent_file, cls=AGENT_CLASS,
                          lines=_literal(_LINES[language]), bye=_BYE[language], person=_PERSON[language], questions=_literal(asks),
                          routes=_literal(_routes(found)), transfer=TRANSFER_TOOL)


def agent_yaml(name: str, prompt_ref: str, language: str) -> str:
    """The agent file's text (`my_agent.yaml`): the class and the prompt it is given."""
    body = yaml.safe_dump({"name": name, "callable": f"{AGENT_MODULE}:{AGENT_CLASS}", "prompt_file": prompt_ref,
                           "language": language}, sort_keys=False, allow_unicode=True)
    return ("# Your agent (docs/agents.md): the class in my_agent.py, given your prompt as `request.prompt`.\n"
            "# Its version hashes the prompt and the module's code, so each edit is a new version.\n" + body)
