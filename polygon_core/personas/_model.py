"""The model generator: one structured-output ChatRequest per persona, so one failure never takes the batch.

`generate_each` is the batch logic on its own (any async callable per cell): each cell is tried up to
`attempts` times; a cell that still fails is recorded as a GenerationFailure and the rest are kept.
`generate_with_model` plugs a `ChatModel` into it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from ..files import prompt_hash
from ..models import Persona, SpeakingTraits
from ..providers import ChatMessage, ChatModel, ChatRequest
from ._coverage import coverage_warnings
from ._dedupe import near_duplicates
from ._plan import generation_plan
from ._reading import read_prompt
from ._types import GenerationFailure, GenerationResult, PlanCell

MakeOne = Callable[[PlanCell], Awaitable[Persona]]

_VALUE = {"type": ["string", "number", "boolean"]}


def persona_schema(facts: Sequence[str] = ()) -> dict[str, Any]:
    """The JSON Schema of one persona reply; the facts the prompt asks for are required keys.

    A required fact may be null: the caller does not know it (it moves to `unknown`).
    """
    truth: dict[str, Any] = {"type": "object", "additionalProperties": _VALUE}
    if facts:
        truth["properties"] = {k: {"type": ["string", "number", "boolean", "null"]} for k in facts}
        truth["required"] = list(facts)
    return {
        "type": "object",
        "properties": {
            "name": {"type": "string", "minLength": 1},
            "goal": {"type": "string", "minLength": 3},
            "ground_truth": truth,
            "unknown": {"type": "array", "items": {"type": "string"}},
            "hidden": {"type": "array", "items": {"type": "string"}},
            "verbosity": {"type": "integer", "minimum": 1, "maximum": 5},
            "interruption": {"type": "number", "minimum": 0, "maximum": 1},
            "patience": {"type": "integer", "minimum": 1, "maximum": 100},
        },
        "required": ["name", "goal", "ground_truth", "unknown", "hidden", "verbosity", "interruption",
                     "patience"],
        "additionalProperties": False,
    }


PERSONA_SCHEMA: dict[str, Any] = persona_schema()

SYSTEM = """You write test callers for a phone agent. Given the agent's system prompt and one caller
profile (type, intended outcome, difficulty), invent ONE realistic caller who phones this agent.
- goal: what the caller wants, in the caller's words, starting with a verb ("get a refund for ...").
- ground_truth: every fact the agent will ask for (use the snake_case keys name, phone,
  date_of_birth, address, postcode, account_id, order_number, insurance_id, email, amount,
  charge_date, slot where they fit), with concrete values in the formats of the caller's country
  and of the length the prompt gives ("6-character reference": six characters), and what the call
  is about with its details in the prompt's own words (keys flight and new_date, medicine and dosage,
  doctor, treatment where they fit: which flight, which medicine). The caller knows these and
  nothing else.
- unknown: things the agent may ask that this caller does not know.
- hidden: ground_truth keys the caller gives only when asked directly.
- verbosity 1-5, interruption 0-1, patience (caller turns before giving up) fitting the type.
The intended outcome says how the call should end if the agent follows its prompt: success (the
agent does what is asked), refusal (the prompt forbids it), callback, or transfer to a human.
Reply with JSON only."""


_LANGUAGE_NAMES = {"en": "English", "ru": "Russian"}


def persona_request(prompt: str, cell: PlanCell, *, seed: int = 0) -> ChatRequest:
    """The structured-output request for one cell."""
    reading = read_prompt(prompt)
    user = (f"Agent prompt:\n<<<\n{prompt}\n>>>\n\nCaller profile: type={cell.type}, "
            f"intended_outcome={cell.outcome}, difficulty={cell.difficulty} (1 easy .. 5 hard).\n"
            f"Facts this agent asks for: {', '.join(reading.facts)}.\n"
            f"Write the goal, the fact values and the unknown items in {_LANGUAGE_NAMES[reading.language]}, "
            f"in the formats of {reading.locale}.")
    return ChatRequest(messages=[ChatMessage(role="system", content=SYSTEM, cache=True),
                                 ChatMessage(role="user", content=user)],
                       response_schema=persona_schema(reading.facts), schema_name="persona", temperature=0.9,
                       seed=seed, role="persona_generator")


def persona_from_reply(value: Any, cell: PlanCell, *, prompt_version: str, language: str = "en") -> Persona:
    """A Persona from a structured reply; the cell, not the model, decides type, outcome, difficulty
    (and the prompt, not the model, its language).

    Raises ValueError for a reply that is not a mapping or does not make a valid persona.
    """
    if not isinstance(value, dict):
        raise ValueError(f"the reply is not a JSON object: {str(value)[:80]!r}")
    raw = value.get("ground_truth") or {}
    truth = {k: v for k, v in raw.items() if v is not None}
    unknown = [*value.get("unknown", []), *(k.replace("_", " ") for k, v in raw.items() if v is None)]
    hidden = [h for h in value.get("hidden", []) if h in truth]
    return Persona(name=str(value.get("name") or cell.label), type=cell.type,
                   intended_outcome=cell.outcome, difficulty=cell.difficulty, goal=value["goal"],
                   ground_truth=truth, unknown=unknown, hidden=hidden,
                   traits=SpeakingTraits(verbosity=value.get("verbosity", 2),
                                         interruption=value.get("interruption", 0.0),
                                         patience=value.get("patience"),
                                         language=language),  # type: ignore[arg-type]
                   prompt_version=prompt_version)


async def generate_each(cells: Sequence[PlanCell], make_one: MakeOne, *, attempts: int = 2,
                        concurrency: int = 4) -> tuple[list[Persona | None], list[GenerationFailure]]:
    """Run `make_one` per cell, retrying a failing cell up to `attempts` times in all.

    Returns one slot per cell (None where it failed) and the failures; an exception in one cell
    never affects another.
    """
    if attempts < 1:
        raise ValueError("attempts must be at least 1")
    gate = asyncio.Semaphore(max(1, concurrency))
    failures: dict[int, GenerationFailure] = {}

    async def one(i: int, cell: PlanCell) -> Persona | None:
        last = ""
        async with gate:
            for _ in range(attempts):
                try:
                    return await make_one(cell)
                except Exception as exc:  # any failure of one request is recorded, never raised
                    last = f"{type(exc).__name__}: {exc}"
        failures[i] = GenerationFailure(cell=cell, attempts=attempts, error=last)
        return None

    slots = await asyncio.gather(*(one(i, c) for i, c in enumerate(cells)))
    return list(slots), [failures[i] for i in sorted(failures)]


async def generate_with_model(model: ChatModel, prompt: str, *, count: int = 12, seed: int = 0,
                              cells: Sequence[PlanCell] | None = None, attempts: int = 2,
                              concurrency: int = 4,
                              duplicate_threshold: float = 0.92) -> GenerationResult:
    """Personas from a model, one structured request per plan cell; failures recorded, rest kept."""
    version = prompt_hash(prompt)
    reading = read_prompt(prompt)
    plan = list(cells) if cells is not None else generation_plan(count, seed=seed,
                                                                 outcomes=reading.outcomes)

    async def make_one(cell: PlanCell) -> Persona:
        response = await model.chat(persona_request(prompt, cell, seed=seed))
        if response.unparseable:
            raise ValueError(response.parse_error or "the reply did not fit the persona schema")
        return persona_from_reply(response.parsed, cell, prompt_version=version, language=reading.language)

    slots, failures = await generate_each(plan, make_one, attempts=attempts, concurrency=concurrency)
    made = [(p, c) for p, c in zip(slots, plan, strict=False) if p is not None]
    drop = set(near_duplicates([p for p, _ in made], threshold=duplicate_threshold))
    kept = [p for i, (p, _) in enumerate(made) if i not in drop]
    return GenerationResult(personas=kept, cells=[c for i, (_, c) in enumerate(made) if i not in drop],
                            failures=failures,
                            dropped=[made[i][0].name or str(i) for i in sorted(drop)],
                            generator=getattr(model, "name", "model"),
                            warnings=coverage_warnings(prompt, reading, kept))
