"""Which conversations of a run are calls, and on what line: the channel, the conditions, the recogniser.

One precedence, per scenario: the command line (`--channel`, `--conditions`, `--stt-model`, recorded
in the run's manifest as a `LineRequest`), then the scenario's own `channel:` / `conditions:`, then
suite.yaml's, then the defaults (channel `text`; conditions `phone` on a call). The manifest keeps
what the command line asked for, so a replay or a resumed run resolves the same line; and a summary
of the resolved line (`line`), so `show` says how the run was made even after the files change.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ConfigDict

from polygon_core.files import Suite
from polygon_core.models import (
    CONDITION_PRESETS,
    AgentConfig,
    Channel,
    DomainModel,
    LineConditions,
    Scenario,
    conditions_label,
)

__all__ = ["CallPlan", "LineRequest", "call_plan", "conditions_label", "line_summary", "line_text",
           "parse_conditions", "scenario_channel", "scenario_conditions"]

DEFAULT_CALL_PRESET = "phone"  # a call's conditions when neither the command line nor a file names any

_CONDITIONS_FORM = "NAME or NAME@INTENSITY with INTENSITY from 0 to 1, e.g. street@0.8"


class LineRequest(DomainModel):
    """What the command line asked for a run's line (None: not asked; the files decide).

    Recorded in the run's manifest under `channel`, `conditions` and `stt_model`
    (`manifest_fields`), and read back from it (`from_manifest`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    channel: Channel | None = None
    conditions: LineConditions | None = None
    stt_model: str | None = None

    def manifest_fields(self) -> dict[str, Any]:
        """The manifest's `channel`, `conditions` (a mapping or null) and `stt_model` keys."""
        return {"channel": self.channel,
                "conditions": None if self.conditions is None else self.conditions.model_dump(mode="json"),
                "stt_model": self.stt_model}

    @classmethod
    def from_manifest(cls, manifest: Mapping[str, Any]) -> LineRequest:
        """What a stored run was asked for (nothing, for a run made before the line was recorded)."""
        conditions = manifest.get("conditions")
        return cls(channel=manifest.get("channel"),
                   conditions=None if conditions is None else LineConditions.model_validate(conditions),
                   stt_model=manifest.get("stt_model"))


@dataclass(frozen=True)
class CallPlan:
    """How one conversation runs as a call: the line's conditions, its noise files (absolute paths,
    resolved against the suite folder) and the recogniser model asked for (None: the agent's
    engine default)."""

    conditions: LineConditions
    noise_paths: list[Path]
    stt_model: str | None


def parse_conditions(text: str) -> LineConditions:
    """`--conditions`' value: a preset name, optionally `@INTENSITY` (`street@0.8`); a ValueError
    naming the value and the presets otherwise."""
    name, at, dial = text.strip().partition("@")
    if name not in CONDITION_PRESETS:
        raise ValueError(f"--conditions {text!r}: unknown preset {name!r}; expected one of "
                         f"{', '.join(CONDITION_PRESETS)} ({_CONDITIONS_FORM})")
    if not at:
        return LineConditions(preset=name)
    try:
        intensity = float(dial)
    except ValueError:
        intensity = float("nan")
    if not 0.0 <= intensity <= 1.0:  # NaN fails too
        raise ValueError(f"--conditions {text!r}: intensity {dial!r} is not a number from 0 to 1 "
                         f"({_CONDITIONS_FORM})")
    return LineConditions(preset=name, intensity=intensity)


def scenario_channel(suite: Suite, scenario: Scenario, request: LineRequest) -> Channel:
    """The scenario's channel: the command line's, else the scenario's, else the suite's (text by default)."""
    return request.channel or scenario.channel or suite.config.channel


def scenario_conditions(suite: Suite, scenario: Scenario, request: LineRequest) -> tuple[LineConditions, str]:
    """A call's conditions and where they came from (`--conditions`, the scenario file, suite.yaml or
    the default): the command line's, else the scenario's, else the suite's, else `phone`."""
    if request.conditions is not None:
        return request.conditions, "--conditions"
    if scenario.conditions is not None:
        where = suite.scenario_files.get(scenario.id)
        return scenario.conditions, str(where) if where else f"scenario {scenario.id}"
    if suite.config.conditions is not None:
        return suite.config.conditions, str(suite.path / "suite.yaml")
    return LineConditions(preset=DEFAULT_CALL_PRESET), "the default"


def call_plan(suite: Suite, scenario: Scenario, manifest: Mapping[str, Any], *,
              agent: AgentConfig | None = None) -> CallPlan | None:
    """How `scenario` runs in the run whose manifest is `manifest`: None for a text conversation,
    else its `CallPlan`. `stt_model` is the command line's (`--stt-model`), else the agent
    config's `voice.stt_model` (`agent`, else the manifest's agent file), else None."""
    request = LineRequest.from_manifest(manifest)
    if scenario_channel(suite, scenario, request) != "voice":
        return None
    conditions, _source = scenario_conditions(suite, scenario, request)
    return CallPlan(conditions=conditions, noise_paths=noise_paths(suite, conditions),
                    stt_model=request.stt_model or _agent_stt_model(agent, manifest))


def noise_paths(suite: Suite, conditions: LineConditions) -> list[Path]:
    """The conditions' noise files as absolute paths (relative ones are relative to the suite folder)."""
    return [(suite.path / name).expanduser().resolve() for name in conditions.noise_files]


def _agent_stt_model(agent: AgentConfig | None, manifest: Mapping[str, Any]) -> str | None:
    if agent is None and manifest.get("agent_path"):
        from polygon_core.files import load_agent

        agent = load_agent(Path(manifest["agent_path"])).config
    return agent.voice.stt_model if agent is not None and agent.voice is not None else None


def line_summary(suite: Suite, request: LineRequest, scenario_ids: Sequence[str] | None = None,
                 agent: AgentConfig | None = None) -> dict[str, Any]:
    """What a run's line was, resolved over its scenarios (`scenario_ids`; None: the suite's), as
    the manifest's `line`: scenarios per channel, calls per conditions, and the recogniser model
    asked for (the command line's, else the agent's; None: the engine's default)."""
    keep = None if scenario_ids is None else set(scenario_ids)
    channels: Counter[str] = Counter()
    conditions: Counter[str] = Counter()
    for scenario in suite.scenarios:
        if keep is not None and scenario.id not in keep:
            continue
        channel = scenario_channel(suite, scenario, request)
        channels[channel] += 1
        if channel == "voice":
            conditions[conditions_label(scenario_conditions(suite, scenario, request)[0])] += 1
    stt = request.stt_model or (agent.voice.stt_model if agent is not None and agent.voice is not None else None)
    return {"channels": dict(sorted(channels.items())), "conditions": dict(sorted(conditions.items())),
            "stt_model": stt if conditions else None}


def line_text(line: Mapping[str, Any] | None) -> dict[str, str | None]:
    """A recorded `line_summary` as the words `show` prints: `channel` (`voice`, `text`, or `voice in
    2 of 5 scenarios`), `conditions` (`street@0.5`, or each with its number of calls; None without
    calls), `stt_model` (None: the default) and `text`, the one line (`channel voice · conditions
    street@0.5`). All None for a run made before the line was recorded."""
    if not line:
        return {"channel": None, "conditions": None, "stt_model": None, "text": None}
    channels: dict[str, int] = dict(line.get("channels") or {})
    total, calls = sum(channels.values()), channels.get("voice", 0)
    mixed = 0 < calls < total
    channel = f"voice in {calls} of {total} scenarios" if mixed else ("voice" if calls else "text")
    found: dict[str, int] = dict(line.get("conditions") or {})
    conditions = (next(iter(found)) if len(found) == 1 else
                  ", ".join(f"{label} ({n})" for label, n in found.items())) if found else None
    stt = line.get("stt_model")
    parts = [f"channel {channel}", *([f"conditions {conditions}"] if conditions else []),
             *([f"stt model {stt}"] if stt else [])]
    return {"channel": channel, "conditions": conditions, "stt_model": stt, "text": " · ".join(parts)}
