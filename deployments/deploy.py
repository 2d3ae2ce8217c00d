"""Declare Polygon's Prefect deployments on a work pool (the Python twin of prefect.yaml).

    PREFECT_API_URL=http://prefect:4200/api python deployments/deploy.py \
        --source /srv/polygon --pool polygon --suite suites/support

- `reevaluate-on-prompt-commit`: runs when the event `polygon.prompt.committed` arrives; the event's
  payload names the agent, the prompt hash and (optionally) the suite and the run to compare with.
- `weekly-production-grading`: a cron schedule (Monday 06:00 UTC by default) that grades the last
  seven days of production calls from `--production-source` (a folder or s3:// prefix of call
  exports; the deployment is declared only when a source is given).
- `sweep`: runs when `polygon.sweep.requested` arrives, with the sweep spec's path in the payload.

`--source` is where workers find the code: a local checkout (process workers on this machine; the
default is the checkout this script is in) or a git URL (`flow.from_source` clones it per run).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prefect.events import DeploymentEventTrigger

REPO = Path(__file__).resolve().parents[1]
PROMPT_COMMITTED = "polygon.prompt.committed"
SWEEP_REQUESTED = "polygon.sweep.requested"
WEEKLY_CRON = "0 6 * * 1"  # Monday 06:00


@dataclass(frozen=True)
class Declared:
    """One deployment: its flow entrypoint and how it is started."""

    name: str
    entrypoint: str
    description: str
    parameters: dict[str, Any] = field(default_factory=dict)
    triggers: list[DeploymentEventTrigger] = field(default_factory=list)
    cron: str | None = None
    timezone: str = "UTC"
    tags: list[str] = field(default_factory=list)


def _exists(source: str, entrypoint: str) -> bool:
    # A git URL is trusted to hold the flows; a local checkout is checked, so a deployment is only
    # declared for a flow that exists (production grading lands with issue 8).
    if "://" in source or source.startswith("git@"):
        return True
    return (Path(source) / entrypoint.split(":", 1)[0]).is_file()


def declared(source: str, *, suite_path: str, cron: str = WEEKLY_CRON, timezone: str = "UTC",
             production_source: str | None = None, seeds: list[int] | None = None) -> list[Declared]:
    """The deployments Polygon declares; flows that do not exist in `source` yet are left out."""
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
    if production_source and _exists(source, "flows/_production.py"):
        out.append(Declared(
            name="weekly-production-grading", entrypoint=grading,
            description="Grade the last seven days of production calls.",
            parameters={"source": production_source, "days": 7}, cron=cron, timezone=timezone,
            tags=["polygon", "production"]))
    sweep = "flows/_sweep.py:run_sweep"
    if _exists(source, sweep):
        out.append(Declared(
            name="sweep", entrypoint=sweep, description="A parameter sweep requested by webhook.",
            triggers=[DeploymentEventTrigger(
                name="sweep requested", expect={SWEEP_REQUESTED},
                match={"prefect.resource.id": "polygon.sweep.*"},
                parameters={"spec_path": "{{ event.payload.spec_path }}"})],
            tags=["polygon", "sweep"]))
    return out


def deploy(source: str | Path = REPO, *, work_pool: str, suite_path: str, cron: str = WEEKLY_CRON,
           timezone: str = "UTC", production_source: str | None = None,
           seeds: list[int] | None = None, job_variables: dict[str, Any] | None = None) -> dict[str, str]:
    """Create or update every declared deployment on `work_pool`; returns name → deployment id."""
    from prefect import flow
    from prefect.client.schemas.schedules import CronSchedule
    from prefect.deployments.runner import RunnerDeployment

    src = str(source)
    ids: dict[str, str] = {}
    for d in declared(src, suite_path=suite_path, cron=cron, timezone=timezone,
                      production_source=production_source, seeds=seeds):
        loaded = flow.from_source(source=src, entrypoint=d.entrypoint)
        deployment: RunnerDeployment = loaded.to_deployment(
            name=d.name, description=d.description, parameters=d.parameters, triggers=d.triggers,
            schedules=[CronSchedule(cron=d.cron, timezone=d.timezone)] if d.cron else None,
            tags=d.tags, work_pool_name=work_pool, job_variables=job_variables or {})
        ids[d.name] = str(deployment.apply(work_pool_name=work_pool))
    return ids


def main(argv: list[str] | None = None) -> None:
    """Command line: deploy everything, print name → id."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", default=str(REPO), help="local checkout or git URL (default: this one)")
    parser.add_argument("--pool", required=True, help="work pool name (create it first)")
    parser.add_argument("--suite", required=True, help="default suite folder, relative to the source")
    parser.add_argument("--cron", default=WEEKLY_CRON, help="weekly grading schedule (default: Monday 06:00)")
    parser.add_argument("--timezone", default="UTC", help="timezone of the cron schedule")
    parser.add_argument("--production-source", default=None, help="where production calls come from")
    parser.add_argument("--seeds", default=None, help="comma-separated seeds for re-evaluations")
    args = parser.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",")] if args.seeds else None
    for name, dep_id in deploy(args.source, work_pool=args.pool, suite_path=args.suite, cron=args.cron,
                               timezone=args.timezone, production_source=args.production_source,
                               seeds=seeds).items():
        print(f"{name}\t{dep_id}")


if __name__ == "__main__":
    main()
