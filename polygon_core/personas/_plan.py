"""The generation plan: which (caller type, intended outcome, difficulty) cells to make personas for.

`generation_plan` deals cells over outcomes (the model generator's plan); `task_plan` deals them over
the (task, outcome) items a prompt gives a caller, so a dozen personas call about a dozen tasks.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from .._hashing import stable_seed
from ..models import CALLER_TYPES, OUTCOMES, CallerType, Outcome
from ._types import PlanCell

DIFFICULTIES: tuple[int, ...] = (1, 2, 3, 4, 5)


def generation_plan(count: int, *, seed: int = 0, types: Sequence[CallerType] = CALLER_TYPES,
                    outcomes: Sequence[Outcome] = OUTCOMES) -> list[PlanCell]:
    """`count` cells over type × outcome × difficulty, every type before any type repeats.

    Cells are dealt round-robin over the caller types, so any count ≥ len(types) covers all six;
    within a type the outcomes are cycled before any repeats (so 24 cells cover every type × outcome
    pair), and difficulties are spread by a seeded shuffle. The same (count, seed, types, outcomes)
    always gives the same plan.
    """
    if count < 1:
        raise ValueError(f"count must be at least 1, got {count}")
    if not types or not outcomes:
        raise ValueError("a plan needs at least one caller type and one outcome")
    per_type: dict[str, list[tuple[Outcome, int]]] = {}
    for kind in types:
        rng = random.Random(stable_seed("persona-plan", seed, kind))
        rounds: list[tuple[Outcome, int]] = []
        difficulties = list(DIFFICULTIES)
        rng.shuffle(difficulties)
        # Each round visits every outcome once, with difficulties walking the shuffled order, so
        # the whole type × outcome × difficulty product is reached before anything repeats.
        order = list(outcomes)
        # Types start at different outcomes, so the first len(types) cells spread over outcomes.
        offset = (list(types).index(kind) + seed) % len(order)
        order = order[offset:] + order[:offset]
        for round_no in range(len(DIFFICULTIES)):
            for j, outcome in enumerate(order):
                rounds.append((outcome, difficulties[(round_no + j) % len(difficulties)]))
        per_type[kind] = rounds
    cells: list[PlanCell] = []
    i = 0
    while len(cells) < count:
        kind = types[i % len(types)]
        pairs = per_type[kind]
        outcome, difficulty = pairs[(i // len(types)) % len(pairs)]
        cells.append(PlanCell(type=kind, outcome=outcome, difficulty=difficulty))
        i += 1
    return cells


def task_plan(count: int, items: Sequence[tuple[str, Outcome]], *, seed: int = 0,
              types: Sequence[CallerType] = CALLER_TYPES) -> list[PlanCell]:
    """`count` cells over (task, outcome) items × type × difficulty, every item before any repeats.

    Cell `i` is of type ``types[i % len(types)]`` and calls about item ``(i + shift + seed) %
    len(items)``, so the first ``len(items)`` cells name every task once, and any count ≥
    len(types) covers all six types. The shift moves by one every lcm(len(types), len(items)) cells,
    so every type meets every item (and so every outcome); each (type, item) pair walks a seeded
    order of the five difficulties. After 5 × len(types) × len(items) cells the whole type × outcome
    × difficulty product is covered. Same (count, items, seed, types) → same plan.
    """
    if count < 1:
        raise ValueError(f"count must be at least 1, got {count}")
    if not types or not items:
        raise ValueError("a plan needs at least one caller type and one task")
    period = math.lcm(len(types), len(items))
    orders = {kind: random.Random(stable_seed("persona-plan", seed, kind)).sample(DIFFICULTIES, len(DIFFICULTIES))
              for kind in types}
    seen: dict[tuple[str, int], int] = {}
    cells: list[PlanCell] = []
    for i in range(count):
        kind = types[i % len(types)]
        position = (i + i // period + seed) % len(items)
        n = seen.get((kind, position), 0)
        seen[(kind, position)] = n + 1
        task, outcome = items[position]
        cells.append(PlanCell(type=kind, outcome=outcome, task=task,
                              difficulty=orders[kind][(n + position) % len(DIFFICULTIES)]))
    return cells
