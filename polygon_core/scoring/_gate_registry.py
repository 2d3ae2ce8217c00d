"""The gate registry: a rubric's gate name → the function that finds its hits.

A gate is a function of one `GateInput` (the conversation's turns, its rubric and aggregate, the
forbidden phrases in force and its evaluated assertions) returning the hits it found, registered
with `@gate(name)` in a `_gate*` module of this package. The built-in gates live in `_gates.py`;
a rubric may list only registered gates, and `compute_gates` applies them in the rubric's order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from polygon_core._registry import Registry
from polygon_core.models import AssertionResult, GateHit, Turn

if TYPE_CHECKING:
    from ._aggregate import Aggregate
    from ._rubric import Rubric

__all__ = ["GATES", "PLUGIN_GROUP", "GateFunction", "GateInput", "compute_gates", "gate", "gate_names"]

# Turns may be model objects or the plain mappings they serialise to (stored transcripts).
TurnLike = Turn | Mapping[str, Any]


@dataclass(frozen=True)
class GateInput:
    """Everything a gate may read about one judged conversation."""

    turns: Sequence[TurnLike]
    rubric: Rubric
    aggregate: Aggregate
    forbidden_phrases: tuple[str, ...] = ()
    assertions: Sequence[AssertionResult] = field(default_factory=tuple)


GateFunction = Callable[[GateInput], list[GateHit]]

PLUGIN_GROUP = "polygon.gates"

# Every `_gate*` module of this package is imported on the first lookup, then the `polygon.gates`
# entry points of installed distributions: a new gate is one module (`_gate_<name>.py`, or a
# plugin's), named by no list. `_gates.py` holds the built-ins, and they lead the listing.
GATES: Registry[GateFunction] = Registry("gate", "polygon_core.scoring", submodules="_gate", first=("_gates",),
                                         plugins=PLUGIN_GROUP)


def gate(name: str) -> Callable[[GateFunction], GateFunction]:
    """Register the decorated function as the gate a rubric lists as `name`."""
    return GATES.register(name)


def gate_names() -> tuple[str, ...]:
    """The registered gates, in registration order."""
    return GATES.names()


def compute_gates(
    turns: Sequence[TurnLike],
    rubric: Rubric,
    aggregate: Aggregate,
    forbidden_phrases: Iterable[str] = (),
    assertions: Sequence[AssertionResult] = (),
) -> list[GateHit]:
    """Apply the gates `rubric` lists, in its order, and return every hit.

    `assertions` are the conversation's evaluated scenario assertions, read by the `assertion`
    gate (rubric v3) only.
    """
    given = GateInput(turns, rubric, aggregate, tuple(forbidden_phrases), assertions)
    registered = GATES.loaded()
    return [hit for name in rubric.gates for hit in registered[name](given)]
