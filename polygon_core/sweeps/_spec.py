"""The sweep spec: a base agent, parameters to vary, a strategy, scenarios, a floor and a token cap."""

from __future__ import annotations

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
ALIASES = {"temperature": "sampling.temperature", "top_p": "sampling.top_p",
           "max_tokens": "sampling.max_tokens", "prompt": "prompt_file", "prompt_variant": "prompt_file"}


class Range(FileModel):
    """An inclusive numeric range sampled at a fixed step."""

    start: float
    stop: float
    step: float = Field(..., gt=0)

    def values(self) -> list[float]:
        """The range's values, inclusive of `stop` when it falls on a step."""
        count = round((self.stop - self.start) / self.step)
        return [round(self.start + i * self.step, 10) for i in range(count + 1)
                if self.start + i * self.step <= self.stop + 1e-9]


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
        return self
