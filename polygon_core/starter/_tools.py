"""What the starter's agent can do, read from the prompt: one route per task, and the tools they call.

A task the prompt gives the agent to *do* (book, cancel, renew…) becomes a tool of its own whose
arguments are the facts the prompt asks callers for that task; a callback the prompt offers is
`schedule_callback`; a handover (a trigger the prompt transfers, or a refusal it hands over) is
`transfer_to_human`, which every starter suite has. A question the caller asks ("find out how much…")
is answered from the prompt's policy sentences, and what the prompt refuses is refused: neither has a
tool.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..personas import PromptReading

__all__ = ["CALLBACK_TOOL", "TRANSFER_TOOL", "Route", "routes", "tool_library"]

TRANSFER_TOOL = "transfer_to_human"
CALLBACK_TOOL = "schedule_callback"

# A goal that asks something rather than asks for something to be done (answered, not a tool).
_QUESTION = re.compile(r"^(find out|ask|check whether|узнать|спросить)\b", re.IGNORECASE)
# Names the assertion language reads itself: a tool of that name could not be asserted on.
_TAKEN = frozenset({"agent_text", "end_reason", "knowledge_base", "same_set", "cites_only", TRANSFER_TOOL,
                    CALLBACK_TOOL})


@dataclass(frozen=True)
class Route:
    """One thing a caller may call about, and what the starter agent does with it.

    `action` is ``tool`` (ask for `facts`, then call `tool`), ``transfer``, ``refuse`` or ``answer``
    (say `answer`); `task` is the prompt's task it comes from and `goal` that task's goal.
    """

    task: str
    goal: str
    action: str
    tool: str | None = None
    facts: tuple[str, ...] = ()
    answer: str | None = None


def _tool_name(name: str) -> str:
    # Every reader's task name is an ASCII slug; one word ("callback", "enquiry") or a name the
    # assertions read themselves gets a suffix, so no tool shadows a helper or a reserved name.
    return f"{name}_request" if "_" not in name or name in _TAKEN else name


def _answer(goal: str, policies: tuple[str, ...]) -> str | None:
    """The policy sentence sharing the most word stems with a question's goal (at least one)."""
    wanted = _stems(goal)
    scored = [(len(wanted & _stems(p)), -i, p) for i, p in enumerate(policies)]
    best = max(scored, default=(0, 0, ""))
    if best[0] == 0:
        return None
    sentence = best[2].strip().rstrip(";,.")
    return sentence[:1].upper() + sentence[1:] + "."


def _stems(text: str) -> set[str]:
    return {w[:5] for w in re.findall(r"[^\W\d_]{4,}", text.lower())} - {"find", "much", "about", "узнат"}


def routes(reading: PromptReading) -> list[Route]:
    """Every task of the prompt, in prompt order, with what the starter agent does about it."""
    out: list[Route] = []
    callback = "callback" in reading.outcomes
    for task in reading.tasks:
        goal = task.goals[0]
        if task.kind == "callback" and callback:
            out.append(Route(task.name, goal, "tool", CALLBACK_TOOL, task.facts))
        elif task.kind == "transfer":
            out.append(Route(task.name, goal, "transfer"))
        elif _QUESTION.match(goal):
            answer = _answer(goal, reading.policies)
            out.append(Route(task.name, goal, "answer" if answer else "transfer", answer=answer))
        else:
            out.append(Route(task.name, goal, "tool", _tool_name(task.name), task.facts))
    for task in reading.refusal_tasks:
        handed_over = task.goals[0] in reading.transferred
        out.append(Route(task.name, task.goals[0], "transfer" if handed_over else "refuse"))
    return out


def _string_parameters(facts: tuple[str, ...], fallback: str) -> dict[str, Any]:
    names = list(facts) or [fallback]
    return {"type": "object", "properties": {n: {"type": "string", "minLength": 1} for n in names},
            "required": names, "additionalProperties": False}


def _described(goal: str) -> str:
    return goal[:1].upper() + goal[1:] + "."


def _template(argument: str) -> str:
    # `args.items` would be the dict's method: such a name is read by key.
    read = f"args['{argument}']" if argument in dir(dict) else f"args.{argument}"
    return "{{ " + read + " }}"


def tool_library(found: list[Route]) -> dict[str, Any]:
    """The suite's `tools.yaml` document: a `state` stub per tool route (it records what was asked:
    the call acts), then the callback and the handover."""
    tools: dict[str, Any] = {}
    for route in found:
        if route.action != "tool" or route.tool is None or route.tool in tools:
            continue
        parameters = _string_parameters(route.facts, "name")
        if route.tool == CALLBACK_TOOL:
            tools[route.tool] = {
                "description": f"Book a callback for the caller ({route.goal}).", "parameters": parameters,
                "kind": "fixed", "response": {"booked": True}, "ends_call": "callback"}
            continue
        record = {name: _template(name) for name in parameters["required"]}
        tools[route.tool] = {
            "description": _described(route.goal), "parameters": parameters, "kind": "state",
            "state": {"op": "append", "path": route.tool, "record": record}, "latency": {"fixed_ms": 300}}
    tools[TRANSFER_TOOL] = {
        "description": "Transfer the caller to a person.", "parameters": _string_parameters((), "reason"),
        "kind": "fixed", "response": {"transferred": True}, "ends_call": "transfer"}
    return {"tools": tools}
