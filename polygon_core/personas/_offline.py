"""The offline persona generator: personas derived from the agent's prompt, deterministically.

It reads the prompt for the tasks the agent handles and the facts it asks for (see `read_prompt`),
then fills each plan cell with a persona: a goal for the cell's task and outcome, ground truth for
every fact the agent will ask (seeded values), what the caller does not know, what it keeps back,
and speaking traits for its type and difficulty. Same prompt, count and seed → same personas.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from .._hashing import content_hash, stable_seed
from ..files import prompt_hash
from ..models import CallerType, FactValue, Persona, SpeakingTraits
from ._dedupe import near_duplicates
from ._plan import generation_plan
from ._reading import IDENTITY_FACTS, PromptReading, TaskSpec, read_prompt
from ._types import GenerationResult, PlanCell

_STREETS = ("12 Canal Street", "4 Mill Lane", "27 Harbour Road", "9 Orchard Close", "151 High Street")
_POSTCODES = ("SW1A 2AA", "M1 4BT", "LS6 2QT", "BS8 1TH", "EH1 1YZ", "CF10 3AT", "G2 1DY", "B15 2TT")
_NAMES = ("Dana Whitfield", "Priya Natarajan", "Harold Finch", "Maureen Lake", "Rory Baird", "Gwen Pryce")
_SLOTS = ("tomorrow morning", "tomorrow afternoon", "monday morning", "this afternoon")
_DATES = ("June 14", "March 3", "October 2", "September 22", "August 30")
_AMOUNTS = (12.5, 15.0, 35.0, 49.0, 60.0, 89.99)

# Speaking traits per type: (verbosity, interruption tendency, base patience in caller turns).
_TRAITS: dict[CallerType, tuple[int, float, int]] = {
    "cooperative": (2, 0.0, 12),
    "busy": (1, 0.4, 6),
    "distrustful": (2, 0.1, 10),
    "confused": (3, 0.0, 14),
    "aggressive": (3, 0.6, 7),
    "talkative": (5, 0.3, 14),
}
_TRANSFER_GOALS = ("talk to a real person, I want to {goal}",
                   "be put through to a supervisor, I want to {goal}")


def _fact_value(key: str, rng: random.Random) -> FactValue:
    if key == "account_id":
        return str(rng.randint(1000, 9999))
    if key in ("postcode", "new_postcode"):
        return rng.choice(_POSTCODES)
    if key == "new_street":
        return rng.choice(_STREETS)
    if key == "name":
        return rng.choice(_NAMES)
    if key == "email":
        return f"{rng.choice(_NAMES).split()[0].lower()}@example.com"
    if key == "date_of_birth":
        return f"{rng.randint(1, 28)} {rng.choice(('March', 'July', 'November'))} {rng.randint(1940, 2001)}"
    if key == "phone":
        return "07700 9" + str(rng.randint(10000, 99999))
    if key == "order_number":
        return f"NW{rng.randint(100000, 999999)}"
    if key == "amount":
        return rng.choice(_AMOUNTS)
    if key == "charge_date":
        return rng.choice(_DATES)
    if key == "slot":
        return rng.choice(_SLOTS)
    return f"my {key.replace('_', ' ')}"


def _pick_task(cell: PlanCell, reading: PromptReading, rng: random.Random) -> TaskSpec:
    tasks = list(reading.tasks)
    if cell.outcome == "callback":
        tasks = [t for t in tasks if t.name in ("callback", "appointment")] or tasks
    elif cell.outcome == "refusal":
        tasks = [t for t in tasks if t.refusal_goals] or tasks
    else:
        # A success or transfer call is about something the agent can do itself.
        tasks = [t for t in tasks if t.name not in ("callback",)] or tasks
    return tasks[rng.randrange(len(tasks))]


def _goal(cell: PlanCell, task: TaskSpec, rng: random.Random) -> str:
    if cell.outcome == "refusal" and task.refusal_goals:
        return rng.choice(task.refusal_goals)
    goal = rng.choice(task.goals)
    if cell.outcome == "transfer":
        return rng.choice(_TRANSFER_GOALS).format(goal=goal)
    return goal


def _traits(kind: CallerType, difficulty: int) -> SpeakingTraits:
    verbosity, interruption, patience = _TRAITS[kind]
    # Harder callers give up sooner and cut in more often.
    return SpeakingTraits(verbosity=verbosity,
                          interruption=round(min(1.0, interruption + 0.05 * (difficulty - 1)), 2),
                          patience=max(2, patience - (difficulty - 1)), language="en")


def persona_for_cell(cell: PlanCell, reading: PromptReading, *, prompt_version: str,
                     seed: int = 0, index: int = 0) -> tuple[Persona, str]:
    """One persona for one plan cell (and the task it calls about), seeded by cell, index and seed."""
    rng = random.Random(stable_seed("offline-persona", prompt_version, seed, index, cell.label))
    task = _pick_task(cell, reading, rng)
    keys = [k for k in reading.facts if k in IDENTITY_FACTS] or ["account_id", "postcode"]
    keys += [k for k in task.facts if k not in keys and k not in IDENTITY_FACTS]
    if task.name == "address_change" and "postcode" in keys and "new_postcode" not in keys:
        keys.append("new_postcode")
    truth = {k: _fact_value(k, rng) for k in keys}
    unknown = ["card expiry"]
    if cell.difficulty >= 4 and len(keys) > 2:
        # A hard caller does not know one of the non-identity facts the agent will ask for.
        extra = [k for k in keys if k not in IDENTITY_FACTS and not k.startswith("new_")]
        if extra:
            missing = extra[rng.randrange(len(extra))]
            truth.pop(missing)
            unknown.append(missing.replace("_", " "))
    hidden = [k for k in ("postcode", "date_of_birth") if k in truth
              and (cell.type == "distrustful" or cell.difficulty >= 4)][:1]
    name = f"{cell.type}_{task.name}_{cell.outcome}_d{cell.difficulty}"
    persona = Persona(name=name, type=cell.type, intended_outcome=cell.outcome,
                      difficulty=cell.difficulty, goal=_goal(cell, task, rng), ground_truth=truth,
                      unknown=unknown, hidden=hidden, traits=_traits(cell.type, cell.difficulty),
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
