"""What loading produces: the suite.yaml model, a loaded suite and a loaded agent."""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from pydantic import Field, field_validator

from ..models import AgentConfig, Channel, FileModel, LineConditions, Scenario, ToolDef
from ..scoring import DEFAULT_RUBRIC_VERSION, KNOWN_VERSIONS
from ._versions import ToolsArg, VersionPart, agent_version, prompt_hash

_H = TypeVar("_H", bound=Hashable)


def repeated(values: Iterable[_H]) -> list[_H]:
    """The values that occur more than once, each once, in order of first occurrence.

    One pass with a Counter (linear): `[v for v in values if values.count(v) > 1]` is quadratic, and
    a suite.yaml of 19,000 seeds took 45 s to validate."""
    return [value for value, times in Counter(values).items() if times > 1]


class SuiteConfig(FileModel):
    """A suite folder's optional `suite.yaml`: how the suite is run by default."""

    name: str | None = Field(None, min_length=1, description="default: the folder's name")
    description: str = ""
    rubric: str = Field(
        DEFAULT_RUBRIC_VERSION,
        description="rubric version the suite is judged under",
        json_schema_extra={"enum": list(KNOWN_VERSIONS)},
    )
    seeds: list[int] = Field(
        default_factory=lambda: [0],
        min_length=1,
        description="caller seeds each scenario runs with",
    )
    caller_model: str | None = Field(None, description="model of the simulated caller")
    judge_model: str | None = Field(None, description="model of the judge")
    probe_model: str | None = Field(None, description="model that answers behaviour probes")
    probes: str | None = Field(None, description="probe library file, relative to the suite folder")
    homophones: str | None = Field(
        None, description="sound-alike groups for recognition noise (`groups: [[word, word, …], …]`), "
        "relative to the suite folder; they extend the bundled English and Russian lists")
    channel: Channel = Field("text", description="text, or voice: every scenario runs as a call")
    conditions: LineConditions | None = Field(None, description="the calls' line conditions (a preset "
                                              "name or {preset, intensity, noise_files}); default: phone")
    concurrency: int | None = Field(None, ge=1, le=1024, description="conversations run at once")
    batch_judging: bool = Field(
        False, description="send model-backed judge and probe passes through the provider's batch API "
        "(`polygon rescore --help` names the providers with one): half the price, results within 24 h")

    @field_validator("rubric")
    @classmethod
    def _known_rubric(cls, value: str) -> str:
        if value not in KNOWN_VERSIONS:
            raise ValueError(
                f"unknown rubric version {value!r}; known versions: {', '.join(KNOWN_VERSIONS)}"
            )
        return value

    @field_validator("seeds")
    @classmethod
    def _distinct_seeds(cls, value: list[int]) -> list[int]:
        # A repeated seed would run the same conversation twice and count it twice in every rate.
        twice = sorted(repeated(value))
        if twice:
            raise ValueError(f"seeds are listed more than once: {', '.join(map(str, twice))}")
        return value


@dataclass(frozen=True)
class Suite:
    """A loaded suite folder: its settings, its tool library and its scenarios in file order."""

    name: str
    path: Path
    config: SuiteConfig
    tools: dict[str, ToolDef]
    scenarios: list[Scenario]
    scenario_files: dict[str, Path] = field(default_factory=dict)
    tools_file: Path | None = None
    homophones: tuple[tuple[str, ...], ...] = ()  # the suite's own sound-alike groups (suite.yaml)

    def scenario(self, scenario_id: str) -> Scenario:
        """The scenario with this id (KeyError naming the known ids otherwise)."""
        for scenario in self.scenarios:
            if scenario.id == scenario_id:
                return scenario
        known = ", ".join(s.id for s in self.scenarios)
        raise KeyError(f"no scenario {scenario_id!r} in suite {self.name!r}; known: {known}")


@dataclass(frozen=True)
class LoadedAgent:
    """An agent config with its prompt read: `prompt_text` is "" for an agent without a prompt."""

    config: AgentConfig
    path: Path
    prompt_text: str
    prompt_path: Path | None = None

    @property
    def prompt_hash(self) -> str:
        """Content hash of the normalised prompt (see `prompt_hash`)."""
        return prompt_hash(self.prompt_text)

    def version(self, tools: ToolsArg = None, code: Sequence[VersionPart] = ()) -> str:
        """The agent's behaviour version (see `agent_version`), given the tools it is offered and,
        for a Python agent, its code parts (read from disk by the agent adapter, `callable_code`:
        without them a Python agent's version leaves its code out)."""
        return agent_version(self.config, self.prompt_text, tools, code)
