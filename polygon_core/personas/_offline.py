"""The offline persona generator: personas derived from the agent's prompt, deterministically.

It reads the prompt in its language for the tasks the agent handles, the facts it asks for, what it
must refuse and whom it hands over to (see `read_prompt`), then fills each plan cell with a persona:
a goal from one of the prompt's own tasks (or refusals) for the cell's outcome, in the prompt's
language; ground truth for every fact the agent will ask, with seeded values in the formats of the
prompt's country (`_values`); what the caller does not know and keeps back; and speaking traits for
its type and difficulty. Same prompt, count and seed → same personas.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

from .._hashing import content_hash, stable_seed
from ..files import prompt_hash
from ..models import CallerType, Persona, SpeakingTraits
from ._dedupe import near_duplicates
from ._plan import generation_plan
from ._read_ru import with_preposition
from ._reading import IDENTITY_FACTS, PromptReading, read_prompt
from ._readingtypes import TaskSpec, slug
from ._types import GenerationResult, PlanCell
from ._values import fact_value

# Speaking traits per type: (verbosity, interruption tendency, base patience in caller turns).
_TRAITS: dict[CallerType, tuple[int, float, int]] = {
    "cooperative": (2, 0.0, 12),
    "busy": (1, 0.4, 6),
    "distrustful": (2, 0.1, 10),
    "confused": (3, 0.0, 14),
    "aggressive": (3, 0.6, 7),
    "talkative": (5, 0.3, 14),
}
_TRANSFER_GOALS = {
    "en": ("talk to a real person, I want to {goal}", "be put through to a supervisor, I want to {goal}"),
    "ru": ("поговорить с живым человеком: я хочу {goal}", "чтобы меня соединили с оператором: я хочу {goal}"),
}
_HANDOVER_GOALS = {"en": "be put through to {who}, I want to {goal}", "ru": "поговорить {who}: я хочу {goal}"}
# Tasks a callback call is about: booking something, or a call back itself.
_CALLBACK_TASK = re.compile(r"call.?back|book|schedul|appointment|slot|запис|брон|звон|заказ", re.IGNORECASE)
# Facts a caller with this kind of task knows besides who it is.
_BOOKING = re.compile(r"book|schedul|appointment|slot|call.?back|запис|брон|перенес|звон", re.IGNORECASE)
_REFUND = re.compile(r"refund|charge|возврат|вернуть", re.IGNORECASE)
_HIDEABLE = ("postcode", "date_of_birth", "insurance_id", "phone")


def _refusal_task(goal: str) -> TaskSpec:
    words = [w for w in re.findall(r"[^\W\d_]+", goal.lower())
             if w not in ("get", "the", "a", "an", "my", "попросить", "waived")]
    return TaskSpec(slug("_".join(words[:2])), (), (goal,), (), (goal,))


def _pick_task(cell: PlanCell, reading: PromptReading, rng: random.Random) -> TaskSpec:
    tasks = list(reading.tasks)
    if cell.outcome == "refusal" and reading.refusals:
        return _refusal_task(reading.refusals[rng.randrange(len(reading.refusals))])
    if cell.outcome == "callback":
        tasks = [t for t in tasks if _CALLBACK_TASK.search(t.name + " " + t.goals[0])] or tasks
    return tasks[rng.randrange(len(tasks))]


def _goal(cell: PlanCell, task: TaskSpec, reading: PromptReading, rng: random.Random) -> str:
    goal = rng.choice(task.goals)
    if cell.outcome != "transfer":
        return goal
    lang = reading.language
    if reading.handovers and rng.random() < 0.5:
        who = reading.handovers[rng.randrange(len(reading.handovers))]
        return _HANDOVER_GOALS[lang].format(who=with_preposition(who) if lang == "ru" else who, goal=goal)
    return rng.choice(_TRANSFER_GOALS[lang]).format(goal=goal)


def _traits(kind: CallerType, difficulty: int, language: str) -> SpeakingTraits:
    verbosity, interruption, patience = _TRAITS[kind]
    # Harder callers give up sooner and cut in more often.
    return SpeakingTraits(verbosity=verbosity,
                          interruption=round(min(1.0, interruption + 0.05 * (difficulty - 1)), 2),
                          patience=max(2, patience - (difficulty - 1)), language=language)  # type: ignore[arg-type]


def _fact_keys(task: TaskSpec, reading: PromptReading) -> list[str]:
    keys = [k for k in reading.facts if k in IDENTITY_FACTS] or ["name"]
    keys += [k for k in reading.facts if k not in keys and k not in ("amount",)]
    text = task.name + " " + task.goals[0]
    if _BOOKING.search(text):
        keys.append("slot")
    if _REFUND.search(text):
        keys += ["amount", "charge_date"]
    elif "amount" in reading.facts:
        keys.append("amount")
    return list(dict.fromkeys(keys))


def persona_for_cell(cell: PlanCell, reading: PromptReading, *, prompt_version: str,
                     seed: int = 0, index: int = 0) -> tuple[Persona, str]:
    """One persona for one plan cell (and the task it calls about), seeded by cell, index and seed."""
    rng = random.Random(stable_seed("offline-persona", prompt_version, seed, index, cell.label))
    task = _pick_task(cell, reading, rng)
    keys = _fact_keys(task, reading)
    truth = {k: fact_value(k, rng, reading.locale, reading.amounts) for k in keys}
    unknown: list[str] = []
    if cell.difficulty >= 4 and len(keys) > 2:
        # A hard caller does not know one of the non-identity facts the agent will ask for.
        extra = [k for k in keys if k not in IDENTITY_FACTS and k != "slot"]
        if extra:
            missing = extra[rng.randrange(len(extra))]
            truth.pop(missing)
            unknown.append(missing.replace("_", " "))
    hidden = [k for k in _HIDEABLE if k in truth and (cell.type == "distrustful" or cell.difficulty >= 4)][:1]
    name = f"{cell.type}_{task.name}_{cell.outcome}_d{cell.difficulty}"
    persona = Persona(name=name, type=cell.type, intended_outcome=cell.outcome,
                      difficulty=cell.difficulty, goal=_goal(cell, task, reading, rng), ground_truth=truth,
                      unknown=unknown, hidden=hidden,
                      traits=_traits(cell.type, cell.difficulty, reading.language),
                      prompt_version=prompt_version)
    return persona, task.name


def persona_id(persona: Persona, task: str | None = None) -> str:
    """A stable, readable id: `<task>-<type>-<outcome>-d<difficulty>-<hash>`."""
    digest = content_hash(persona.model_dump(mode="json"), 8)
    head = f"{task}-" if task else ""
    return f"{head}{persona.type}-{persona.intended_outcome}-d{persona.difficulty}-{digest}".replace("_", "-")


def generate_offline(prompt: str, *, count: int = 12, seed: int = 0,
                     cells: Sequence[PlanCell] | None = None,
                     duplicate_threshold: float = 0.92) -> GenerationResult:
    """Personas for `count` plan cells, derived from `prompt` without a model (deterministic).

    Each persona carries `prompt_version` = the prompt's content hash; near-duplicates are dropped
    (see `near_duplicates`).
    """
    reading = read_prompt(prompt)
    version = prompt_hash(prompt)
    plan = list(cells) if cells is not None else generation_plan(count, seed=seed,
                                                                 outcomes=reading.outcomes)
    made: list[Persona] = []
    made_cells: list[PlanCell] = []
    for i, cell in enumerate(plan):
        persona, task = persona_for_cell(cell, reading, prompt_version=version, seed=seed, index=i)
        made.append(persona)
        made_cells.append(cell.model_copy(update={"task": task}))
    drop = set(near_duplicates(made, threshold=duplicate_threshold))
    return GenerationResult(personas=[p for i, p in enumerate(made) if i not in drop],
                            cells=[c for i, c in enumerate(made_cells) if i not in drop],
                            dropped=[made[i].name or str(i) for i in sorted(drop)], generator="offline")
