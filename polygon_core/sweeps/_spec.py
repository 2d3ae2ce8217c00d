"""The sweep spec: a base agent, parameters to vary, a strategy, scenarios, a floor and a token cap."""

from __future__ import annotations

import math
import sys
from typing import Any, Literal

from pydantic import Field, model_validator

from ..models import FileModel
from ..scoring import DEFAULT_RUBRIC_VERSION

Strategy = Literal["one_at_a_time", "grid", "random"]

# Parameters a sweep may vary, and where each lands. Agent-config fields change the agent's version;
# `noise` and `stub_error_rate` change the world it is tested in (both are part of the point's hash).
AGENT_PARAMETERS = ("model", "sampling.temperature", "sampling.top_p", "sampling.max_tokens",
                    "prompt_file")
WORLD_PARAMETERS = ("noise", "stub_error_rate")
PARAMETERS = AGENT_PARAMETERS + WORLD_PARAMETERS
MAX_SWEEP_POINTS = 1_000
"""Most points one sweep spec may plan. Each point runs the whole suite at every seed, and the
points are counted before any is made: a grid of 2×10^10 points, or a range stepped by 1e-9, is
refused when the spec is read (by `polygon validate` and `polygon sweep`) instead of hanging the
sweep. Split a larger sweep into several specs."""

ALIASES = {"temperature": "sampling.temperature", "top_p": "sampling.top_p",
           "max_tokens": "sampling.max_tokens", "prompt": "prompt_file", "prompt_variant": "prompt_file"}


class Range(FileModel):
    """An inclusive numeric range sampled at a fixed step."""

    start: float
    stop: float
    step: float = Field(..., gt=0)

    @model_validator(mode="after")
    def _finite(self) -> Range:
        # `.inf` is a YAML float: `(stop - start) / step` would be infinite, and counting it fails.
        if not all(math.isfinite(x) for x in (self.start, self.stop, self.step)):
            raise ValueError("start, stop and step must be finite numbers")
        if not math.isfinite((self.stop - self.start) / self.step):
            raise ValueError("(stop - start) / step is too large to count")
        return self

    def count(self) -> int:
        """How many values `values()` gives, counted without making them."""
        last = round((self.stop - self.start) / self.step)
        if last < 0:
            return 0
        # The last step counts when it does not pass `stop` (rounding may have overshot by one).
        return last + 1 if self.start + last * self.step <= self.stop + 1e-9 else last

    def value_at(self, index: int) -> float:
        """The `index`-th value (0 is `start`)."""
        return round(self.start + index * self.step, 10)

    def values(self) -> list[float]:
        """The range's values, inclusive of `stop` when it falls on a step."""
        return [self.value_at(i) for i in range(self.count())]


class Parameter(FileModel):
    """One parameter to vary: a list of values or a range."""

    values: list[Any] | None = None
    range: Range | None = None

    @model_validator(mode="after")
    def _one_of(self) -> Parameter:
        if (self.values is None) == (self.range is None):
            raise ValueError("give `values` or `range`, exactly one")
        if self.values is not None and not self.values:
            raise ValueError("`values` must not be empty")
        return self

    def all_values(self) -> list[Any]:
        """Every value this parameter takes, in order."""
        return list(self.values) if self.values is not None else self.range.values()  # type: ignore[union-attr]

    def count(self) -> int:
        """How many values this parameter takes, counted without making them."""
        return len(self.values) if self.values is not None else self.range.count()  # type: ignore[union-attr]

    def value_at(self, index: int) -> Any:
        """The `index`-th value, made alone (a random draw from a fine range makes no other)."""
        return self.values[index] if self.values is not None else self.range.value_at(index)  # type: ignore[union-attr]


class SweepSpec(FileModel):
    """A sweep spec file (`polygon sweep SPEC.yaml`)."""

    name: str = Field(..., min_length=1, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")
    description: str = ""
    agent: str = Field(..., description="base agent config, relative to this file")
    suite: str = Field(..., description="suite folder, relative to this file")
    scenarios: list[str] | None = Field(None, description="scenario ids; default: the whole suite")
    seeds: list[int] = Field(default_factory=lambda: [0])
    parameters: dict[str, Parameter]
    strategy: Strategy = "one_at_a_time"
    points: int | None = Field(None, ge=1, description="random: how many points")
    seed: int = Field(0, description="random: which points")
    floor: float | None = Field(None, ge=0, le=100, description="stop if the first point scores below")
    token_cap: int | None = Field(None, ge=1, description="refuse points that would pass this")
    tokens_per_turn_estimate: int = Field(
        400, ge=1, description="stated estimate used before any point has been measured")
    turns_estimate: int | None = Field(None, ge=1, description="turns per conversation; default max_turns")
    concurrency: int = Field(4, ge=1)
    rubric: str = DEFAULT_RUBRIC_VERSION  # the sweep's own rubric: every point's run is judged under it

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, data: object) -> object:
        # `temperature: [0, 0.5]` is short for `sampling.temperature: {values: [0, 0.5]}`.
        if isinstance(data, dict) and isinstance(data.get("parameters"), dict):
            params = {}
            for written, body in data["parameters"].items():
                params[ALIASES.get(written, written)] = {"values": body} if isinstance(body, list) else body
            data = {**data, "parameters": params}
        return data

    @model_validator(mode="after")
    def _check(self) -> SweepSpec:
        unknown = sorted(set(self.parameters) - set(PARAMETERS))
        if unknown:
            raise ValueError(f"unknown parameter(s) {', '.join(unknown)}; expected: {', '.join(PARAMETERS)}")
        if self.strategy == "random" and self.points is None:
            raise ValueError("strategy 'random' needs `points`")
        if len(set(self.seeds)) != len(self.seeds):
            raise ValueError("`seeds` must not repeat")
        problem = points_problem(self)
        if problem:
            raise ValueError(problem)
        return self

    def combinations(self) -> int:
        """How many combinations of the parameters' values there are (the grid's size)."""
        return math.prod(p.count() for p in self.parameters.values())

    def planned_points(self) -> int:
        """How many points the spec expands to at most, counted without expanding it.

        `one_at_a_time`: the base and every value of every parameter (values equal to the base's,
        and repeats, are dropped when the points are made); `grid`: every combination; `random`:
        `points` combinations, or all of them when there are fewer.
        """
        if self.strategy == "one_at_a_time":
            return 1 + sum(p.count() for p in self.parameters.values())
        if self.strategy == "grid":
            return self.combinations()
        return min(self.points or 1, self.combinations())


def points_problem(spec: SweepSpec) -> str | None:
    """Why `spec` plans more points than a sweep may run (`MAX_SWEEP_POINTS`), or None.

    The message names one key of the spec (`parameters` or `points`), so the error points at its line.
    """
    counts = {name: spec.parameters[name].count() for name in sorted(spec.parameters)}
    planned = spec.planned_points()
    if spec.strategy == "random":
        combinations = spec.combinations()
        if combinations > sys.maxsize:  # more than a draw can index, whatever `points` says
            return (f"these parameters make {combinations:,} combinations ({_factors(counts)}), more than "
                    f"a random draw can index ({sys.maxsize:,})")
        if planned > MAX_SWEEP_POINTS:
            return f"{planned:,} points are more than the limit of {MAX_SWEEP_POINTS:,} points per sweep"
        return None
    if planned <= MAX_SWEEP_POINTS:
        return None
    if spec.strategy == "one_at_a_time":
        how = f"one at a time (1 base + {' + '.join(f'{n} {c:,}' for n, c in counts.items())})"
    else:
        how = f"as a grid ({_factors(counts)})"
    return (f"these parameters make {planned:,} points {how}, more than the limit of "
            f"{MAX_SWEEP_POINTS:,} points per sweep")


def _factors(counts: dict[str, int]) -> str:
    return " × ".join(f"{name} {count:,}" for name, count in counts.items())
