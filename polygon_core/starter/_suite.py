"""The starter suite's scenarios: one per persona the offline generator derives from the prompt."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import yaml

from ..models import Persona
from ..personas import GenerationResult
from ._tools import CALLBACK_TOOL, TRANSFER_TOOL, Route

__all__ = ["MAX_TURNS", "assertions", "dump", "scenario_documents"]

MAX_TURNS = 16


class _Dumper(yaml.SafeDumper):
    """Short collections of plain values on one line (`{type: string}`, `[name, phone]`), others as blocks."""


def _flow(data: dict[Any, Any] | list[Any]) -> bool:
    values = data.values() if isinstance(data, dict) else data
    return all(not isinstance(v, (dict, list)) for v in values) and len(str(data)) <= 72


_Dumper.add_representer(dict, lambda d, data: d.represent_mapping("tag:yaml.org,2002:map", data,
                                                                  flow_style=_flow(data)))
_Dumper.add_representer(list, lambda d, data: d.represent_sequence("tag:yaml.org,2002:seq", data,
                                                                   flow_style=_flow(data)))


def dump(document: dict[str, Any], header: str = "") -> str:
    """A YAML file's text: `header` comment lines, then the document in its own key order."""
    comment = "".join(f"# {line}\n" if line else "#\n" for line in header.splitlines())
    return comment + yaml.dump(document, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)


def assertions(outcome: str, route: Route | None, tools: Sequence[str]) -> dict[str, str]:
    """What must hold for a caller who should end in `outcome`, by the tools the suite has.

    Success on a task with a tool: the tool was called (validly, successfully). Success on a
    question: nobody was handed over. A callback: one was booked. A transfer: the call was handed
    over. A refusal: nothing was done for the caller (no tool that acts was called).
    """
    acting = [t for t in tools if t not in (TRANSFER_TOOL, CALLBACK_TOOL)]
    if outcome == "success" and route is not None and route.tool is not None:
        return {"task_done": f"happened({route.tool})"}
    if outcome == "success":
        return {"answered_here": f"not happened({TRANSFER_TOOL})"}
    if outcome == "callback":
        return {"callback_booked": f"happened({CALLBACK_TOOL})"}
    if outcome == "transfer":
        return {"handed_over": f"happened({TRANSFER_TOOL})"}
    if acting:
        return {"nothing_done": " and ".join(f"not happened({t})" for t in acting)}
    return {"answered_here": f"not happened({TRANSFER_TOOL})"}


def _persona(persona: Persona) -> dict[str, Any]:
    # The prompt's hash is not kept: a scenario file outlives the prompt it was written from.
    data = persona.model_dump(mode="json", exclude_none=True, exclude={"prompt_version"})
    return {k: v for k, v in data.items() if v != []}


def _unique_id(base: str, taken: set[str]) -> str:
    found, n = base, 2
    while found in taken:
        found, n = f"{base}-{n}", n + 1
    taken.add(found)
    return found


def scenario_documents(result: GenerationResult, found: Sequence[Route], tools: Sequence[str], *,
                       language: str, knowledge: Sequence[str]) -> list[tuple[str, dict[str, Any]]]:
    """(scenario id, scenario document) per generated persona, in generation order.

    The id is the persona's task and intended outcome (`book-appointment-success`); every scenario
    offers the whole tool library, as the agent would have it on a real line.
    """
    by_task = {r.task: r for r in found}
    taken: set[str] = set()
    out: list[tuple[str, dict[str, Any]]] = []
    for index, (cell, persona) in enumerate(zip(result.cells, result.personas, strict=True)):
        task = cell.task or "call"
        sid = _unique_id(f"{task}-{cell.outcome}".replace("_", "-"), taken)
        document: dict[str, Any] = {
            "id": sid, "description": f"a {cell.type} caller who wants to {persona.goal}",
            "seed": index + 1, "max_turns": MAX_TURNS, "language": language,
            "persona": _persona(persona), "tools": list(tools),
            "assertions": assertions(cell.outcome, by_task.get(task), tools),
        }
        if knowledge:
            document["knowledge_base"] = list(knowledge)
        document["tags"] = [task, cell.outcome]
        out.append((sid, document))
    return out
