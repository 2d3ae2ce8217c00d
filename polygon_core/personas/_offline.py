"""The offline persona generator: personas derived from the agent's prompt, deterministically.

It reads the prompt in its language for the tasks the agent handles, the facts it asks for, what it
must refuse and whom it hands over to (see `read_prompt`), deals the plan over every (task, outcome)
the prompt gives a caller before any repeats (`task_plan`), then fills each cell with a persona: the
task's goal in the prompt's language and the caller's words; ground truth for exactly the facts the
prompt asks for that task (a name when none says who the caller is), with seeded values in the
formats of the prompt's country (`_values`); what the caller does not know and keeps back; and
speaking traits for its type and difficulty. Same prompt, count and seed → same personas.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

from .._hashing import content_hash, stable_seed
from ..callers import FACT_NAMES_RU, OBJECT_KINDS
from ..files import prompt_hash
from ..models import OUTCOMES, CallerType, FactValue, Outcome, Persona, SpeakingTraits
from ._coverage import coverage_warnings
from ._dedupe import near_duplicates
from ._objects import dose_for, lacks_prescription, object_value, typed_value
from ._plan import task_plan
from ._read_ru import with_preposition
from ._reading import IDENTITY_FACTS, PromptReading, read_prompt
from ._readingtypes import TaskSpec
from ._types import GenerationResult, PlanCell
from ._values import child_birth_date, fact_value

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
# Tasks a callback caller asks for when the prompt offers a callback but names no callback task.
_BOOKING = re.compile(r"book|schedul|appointment|slot|reserv|запис|брон|заказ", re.IGNORECASE)
_HIDEABLE = ("postcode", "date_of_birth", "insurance_id", "phone", "card_last4", "maiden_name")


def _items(reading: PromptReading) -> list[tuple[TaskSpec, Outcome]]:
    """Every (task, outcome) the prompt gives a caller, interleaved by outcome (see `task_plan`).

    A success caller asks for a service or a question the agent answers; a callback caller for a
    callback it offers; a transfer caller for what the prompt hands over (a trigger, or a refusal it
    transfers); a refusal caller for what it must refuse. An outcome the prompt reaches with no task
    of its own (a transfer on request, a callback on a booking) borrows the first fitting task.
    """
    by_kind: dict[str, list[TaskSpec]] = {o: [t for t in reading.tasks if t.kind == o] for o in OUTCOMES}
    transferred = [t for t in reading.refusal_tasks if t.goals[0] in reading.transferred]
    refused = [t for t in reading.refusal_tasks if t.goals[0] not in reading.transferred]
    by_kind["transfer"] += transferred
    by_kind["refusal"] = refused or transferred
    for outcome in ("success", "callback", "transfer"):
        if outcome in reading.outcomes and not by_kind[outcome]:
            pool = [t for t in reading.tasks if t.kind == "success"] or list(reading.tasks)
            if outcome == "callback":
                pool = [t for t in pool if _BOOKING.search(t.name + " " + t.goals[0])] or pool
            by_kind[outcome] = pool[:1]
    lists = [by_kind[o] for o in reading.outcomes if by_kind[o]]
    items: list[tuple[TaskSpec, Outcome]] = []
    for n in range(max((len(x) for x in lists), default=0)):
        items += [(tasks[n], o) for o, tasks in zip((o for o in reading.outcomes if by_kind[o]), lists, strict=True)
                  if n < len(tasks)]
    return items


def _goal(cell: PlanCell, task: TaskSpec, reading: PromptReading, rng: random.Random) -> str:
    goal = rng.choice(task.goals)
    if cell.outcome != "transfer" or task.kind == "transfer" or task.goals[0] in reading.transferred:
        return goal  # a transfer trigger is the caller's own goal
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


def persona_for_cell(cell: PlanCell, reading: PromptReading, *, prompt_version: str,
                     seed: int = 0, index: int = 0, task: TaskSpec | None = None) -> tuple[Persona, str]:
    """One persona for one plan cell (and the task it calls about), seeded by cell, index and seed.

    `task` defaults to the cell's task when the prompt has it, else to the prompt's tasks for the
    cell's outcome in turn.
    """
    rng = random.Random(stable_seed("offline-persona", prompt_version, seed, index, cell.label))
    task = task or _task_for(cell, reading, index)
    keys = list(task.facts) or ["name"]
    truth = {k: _value(k, rng, reading, task) for k in keys}
    if "dosage" in truth and "medicine" in truth:
        truth["dosage"] = dose_for(truth["medicine"], rng, reading.language)
    unknown: list[str] = []
    if cell.difficulty >= 4 and len(keys) > 2:
        # A hard caller does not know one of the non-identity facts the agent will ask for.
        # … but always knows what it calls about (which flight, which medicine).
        extra = [k for k in keys if k not in IDENTITY_FACTS and k != "slot" and k not in OBJECT_KINDS
                 and truth.get(k, False) is not False]  # a prescription it lacks is no unknown
        if extra:
            missing = extra[rng.randrange(len(extra))]
            truth.pop(missing)
            unknown.append(_unknown_name(missing, reading))
    hidden = [k for k in _HIDEABLE if k in truth and (cell.type == "distrustful" or cell.difficulty >= 4)][:1]
    name = f"{cell.type}_{task.name}_{cell.outcome}_d{cell.difficulty}"
    persona = Persona(name=name, type=cell.type, intended_outcome=cell.outcome,
                      difficulty=cell.difficulty, goal=_goal(cell, task, reading, rng), ground_truth=truth,
                      unknown=unknown, hidden=hidden,
                      traits=_traits(cell.type, cell.difficulty, reading.language),
                      prompt_version=prompt_version)
    return persona, task.name


_CHILD = re.compile(r"ребён|ребен|дет|child|son\b|daughter|kid", re.IGNORECASE)


def _value(key: str, rng: random.Random, reading: PromptReading, task: TaskSpec) -> FactValue:
    """A fact's value: an object kind's from the prompt's vocabulary, an identifier typed as the
    prompt types it ("6-character"), else one in the locale's formats (`fact_value`)."""
    typed = next(((n, kind) for k, n, kind in reading.formats if k == key), None)
    if typed:
        return typed_value(typed[1], typed[0], rng)
    if key == "prescription" and lacks_prescription(task.goals[0]):
        return False  # asked for it, the caller says it has none
    if key == "date_of_birth" and _CHILD.search(dict(reading.fact_names).get(key, "")):
        return child_birth_date(rng, reading.locale)  # «дату рождения ребёнка»
    value = object_value(key, rng, reading.language, task.goals[0], dict(reading.vocabulary))
    return value if value is not None else fact_value(key, rng, reading.locale, reading.amounts)


def _unknown_name(key: str, reading: PromptReading) -> str:
    """What a caller calls a fact it does not know: in Russian the prompt's own words («марку
    автомобиля»), which the caller says and recognises; else the key's words ("order number")."""
    names = dict(reading.fact_names)
    if reading.language == "ru" and key in FACT_NAMES_RU and key in OBJECT_KINDS:
        return FACT_NAMES_RU[key]  # «дозировку»: the prompt's words are a question («какая дозировка»)
    return names[key] if reading.language == "ru" and key in names else key.replace("_", " ")


def _task_for(cell: PlanCell, reading: PromptReading, index: int) -> TaskSpec:
    items = _items(reading)
    named = [t for t, o in items if t.name == cell.task and o == cell.outcome]
    fitting = named or [t for t, o in items if o == cell.outcome] or [t for t, _ in items]
    return fitting[index % len(fitting)]


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
    items = _items(reading)
    plan = list(cells) if cells is not None else task_plan(count, [(t.name, o) for t, o in items], seed=seed)
    made: list[Persona] = []
    made_cells: list[PlanCell] = []
    for i, cell in enumerate(plan):
        persona, task = persona_for_cell(cell, reading, prompt_version=version, seed=seed, index=i,
                                         task=_task_for(cell, reading, i))
        made.append(persona)
        made_cells.append(cell.model_copy(update={"task": task}))
    drop = set(near_duplicates(made, threshold=duplicate_threshold))
    kept = [p for i, p in enumerate(made) if i not in drop]
    return GenerationResult(personas=kept, cells=[c for i, c in enumerate(made_cells) if i not in drop],
                            dropped=[made[i].name or str(i) for i in sorted(drop)], generator="offline",
                            warnings=coverage_warnings(prompt, reading, kept))
