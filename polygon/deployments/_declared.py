"""The deployments Polygon declares: one list, used from an installed package (`polygon deploy`) and
from a checkout (`python deployments/deploy.py`); `deployments/prefect.yaml` is its twin for
`prefect deploy`, kept in agreement by a test.

- `reevaluate-on-prompt-commit`: runs when the event `polygon.prompt.committed` arrives; the event's
  payload names the agent, the prompt hash and (optionally) the suite and the run to compare with.
- `weekly-production-grading`: a cron schedule (Monday 06:00 UTC by default) that grades the last
  seven days of production calls from `production_source` (a folder or s3:// prefix of call
  exports; declared only when a source is given), read in `production_format` (default: each
  file's name says), graded against `production_agent` (its forbidden phrases, its tools) and
  `production_suite` when given.
- `sweep`: runs when `polygon.sweep.requested` arrives, with the sweep spec's path in the payload.
- `import-calls`: runs when `polygon.calls.arrived` arrives (a voice platform's call-ended webhook,
  or S3 objects an event notification named), at most once per `ARRIVAL_WINDOW` seconds for all
  sources; the run waits that long, then imports everything waiting as one batch.
- `pull-calls`: a cron schedule (`pull_cron`, every 15 minutes by default) that lists each
  source's S3 prefix and imports the objects not seen before.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from prefect.events import DeploymentEventTrigger
from prefect.events.schemas.automations import Posture

from polygon_core.events import CALLS_ARRIVED, PROMPT_COMMITTED, SWEEP_REQUESTED

WEEKLY_CRON = "0 6 * * 1"  # Monday 06:00
PULL_CRON = "*/15 * * * *"  # every 15 minutes
ARRIVAL_WINDOW = 60  # seconds: arrivals of every source within it are imported by one flow run
#: Every deployment Polygon can declare, by name, with the name of its flow (the deployment's full
#: name is `<flow>/<deployment>`): what a re-deploy may remove when it no longer declares it. A
#: deployment of another name or flow is never Polygon's to remove.
POLYGON_DEPLOYMENTS: dict[str, str] = {
    "reevaluate-on-prompt-commit": "reevaluate-on-prompt-commit",
    "weekly-production-grading": "weekly-production-grading",
    "sweep": "run-sweep",
    "import-calls": "import-calls",
    "pull-calls": "pull-calls",
}
#: The tag every deployment Polygon declares carries.
POLYGON_TAG = "polygon"


@dataclass(frozen=True)
class Declared:
    """One deployment: its flow entrypoint (as a path in a checkout) and how it is started."""

    name: str
    entrypoint: str
    description: str
    parameters: dict[str, Any] = field(default_factory=dict)
    triggers: list[DeploymentEventTrigger] = field(default_factory=list)
    cron: str | None = None
    timezone: str = "UTC"
    tags: list[str] = field(default_factory=list)

    @property
    def module_entrypoint(self) -> str:
        """The same flow in the installed package: `flows/_sweep.py:run_sweep` is
        `polygon.flows._sweep.run_sweep` (`flows/` is installed as `polygon.flows`)."""
        path, name = self.entrypoint.split(":", 1)
        return ".".join(["polygon", *Path(path).with_suffix("").parts, name])


def flow_exists(source: str | None, entrypoint: str) -> bool:
    """Whether the flow file of `entrypoint` is there: in the installed package (`source` None), in a
    local checkout, or (trusted) behind a git URL."""
    if source is None:
        module = ".".join(["polygon", *Path(entrypoint.split(":", 1)[0]).with_suffix("").parts])
        return importlib.util.find_spec(module) is not None
    if "://" in source or source.startswith("git@"):
        return True
    return (Path(source) / entrypoint.split(":", 1)[0]).is_file()


def declared(source: str | None, *, suite_path: str, cron: str = WEEKLY_CRON, timezone: str = "UTC",
             production_source: str | None = None, seeds: list[int] | None = None,
             pull_cron: str = PULL_CRON, production_format: str | None = None,
             production_agent: str | None = None, production_suite: str | None = None) -> list[Declared]:
    """The deployments Polygon declares, each once; flows that do not exist in `source` (None: the
    installed package) are left out. `production_format`, `_agent` and `_suite` are the weekly
    grading's `fmt`, `agent_path` and `suite_path` parameters (left out when not given)."""
    out = [Declared(
        name="reevaluate-on-prompt-commit",
        entrypoint="flows/_reevaluate.py:reevaluate_on_prompt_commit",
        description="A committed prompt: analyse, regenerate personas, run the suite, compare, report.",
        parameters={"suite_path": suite_path, **({"seeds": seeds} if seeds is not None else {})},
        triggers=[DeploymentEventTrigger(
            name="prompt committed",
            expect={PROMPT_COMMITTED},
            match={"prefect.resource.id": "polygon.agent.*"},
            # Prefect renders a one-expression template as `{{ expr | tojson }}`: the parentheses
            # keep `or` from binding to the filter. An absent run id renders as "" ("not given").
            parameters={
                "agent_path": "{{ event.payload.agent_path }}",
                "prompt_hash": "{{ event.payload.prompt_hash }}",
                "suite_path": "{{ (event.payload.suite_path or '" + suite_path.replace("'", "") + "') }}",
                "previous_run_id": "{{ (event.payload.previous_run_id or '') }}",
            })],
        tags=["polygon", "reevaluation"])]
    grading = "flows/_weekly.py:weekly_production_grading"
    if production_source and flow_exists(source, grading):
        out.append(Declared(
            name="weekly-production-grading", entrypoint=grading,
            description="Grade the last seven days of production calls.",
            parameters={"source": production_source, "days": 7, **{key: value for key, value in (
                ("fmt", production_format), ("agent_path", production_agent),
                ("suite_path", production_suite)) if value}}, cron=cron, timezone=timezone,
            tags=["polygon", "production"]))
    sweep = "flows/_sweep.py:run_sweep"
    if flow_exists(source, sweep):
        out.append(Declared(
            name="sweep", entrypoint=sweep, description="A parameter sweep requested by webhook.",
            triggers=[DeploymentEventTrigger(
                name="sweep requested", expect={SWEEP_REQUESTED},
                match={"prefect.resource.id": "polygon.sweep.*"},
                parameters={"spec_path": "{{ event.payload.spec_path }}"})],
            tags=["polygon", "sweep"]))
    return out + _call_imports(source, pull_cron, timezone)


def _call_imports(source: str | None, pull_cron: str, timezone: str) -> list[Declared]:
    """import-calls (on arrival events) and pull-calls (scheduled), when their flows exist."""
    entry = "flows/_import_calls.py"
    if not flow_exists(source, entry):
        return []
    # Reactive, threshold 1, within ARRIVAL_WINDOW: the first arrival of any source fires at once and
    # the next ones in the window fire nothing; the run waits out the window (settle_seconds) and
    # then imports them all, of every source. No `for_each`: one window per source started a run per
    # source at the same moment, each importing every source's calls (and reporting the other's as
    # duplicates); one window for all keeps a burst one run.
    arrived = DeploymentEventTrigger(
        name="calls arrived", expect={CALLS_ARRIVED}, match={"prefect.resource.id": "polygon.calls.*"},
        posture=Posture.Reactive, threshold=1, within=timedelta(seconds=ARRIVAL_WINDOW),
        parameters={"source": "{{ event.payload.source }}"})
    return [
        Declared(name="import-calls", entrypoint=f"{entry}:import_arrived_calls",
                 description="Import (and grade on arrival) the calls that arrived by webhook or S3 event.",
                 parameters={"settle_seconds": ARRIVAL_WINDOW}, triggers=[arrived],
                 tags=["polygon", "production"]),
        Declared(name="pull-calls", entrypoint=f"{entry}:pull_calls",
                 description="List each source's S3 prefix and import the objects not seen before.",
                 cron=pull_cron, timezone=timezone, tags=["polygon", "production"]),
    ]
