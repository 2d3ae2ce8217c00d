"""Applying the declared deployments to a Prefect server: from the installed package, or from a
checkout or git URL (`flow.from_source`)."""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any, cast

from ._declared import POLYGON_DEPLOYMENTS, POLYGON_TAG, PULL_CRON, WEEKLY_CRON, Declared, declared

DEFAULT_POOL = "polygon"


class WorkingDirectory:
    """Deployment storage that only says where a flow run starts: one `set_working_directory` pull
    step (the flows themselves come from the installed package). Relative paths in parameters and
    event payloads (`agents/support.yaml`, `suites/support`) resolve against this folder."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._base_path = directory

    def set_base_path(self, path: Path) -> None:
        """Part of Prefect's storage protocol; the folder does not move."""
        self._base_path = path

    @property
    def destination(self) -> Path:
        """Where the code is (the folder flow runs start in)."""
        return self._base_path

    @property
    def pull_interval(self) -> int:
        """Part of Prefect's storage protocol (nothing to pull)."""
        return 60

    async def pull_code(self) -> None:
        """Nothing to pull: the flows are installed."""

    def to_pull_step(self) -> list[dict[str, Any]]:
        """The pull step the deployment stores."""
        return [{"prefect.deployments.steps.set_working_directory": {"directory": str(self.directory)}}]


def _installed_flow(d: Declared) -> Any:
    module, name = d.module_entrypoint.rsplit(".", 1)
    return getattr(importlib.import_module(module), name)


def ensure_work_pool(name: str, pool_type: str = "process") -> bool:
    """Create the work pool unless it exists; True when it was created."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.actions import WorkPoolCreate
    from prefect.exceptions import ObjectNotFound

    with get_client(sync_client=True) as client:
        try:
            client.read_work_pool(name)
            return False
        except ObjectNotFound:
            client.create_work_pool(WorkPoolCreate(name=name, type=pool_type))
            return True


def deploy(source: str | Path | None = None, *, work_pool: str = DEFAULT_POOL, suite_path: str,
           cron: str = WEEKLY_CRON, timezone: str = "UTC", production_source: str | None = None,
           seeds: list[int] | None = None, job_variables: dict[str, Any] | None = None,
           working_dir: str | Path | None = None, pull_cron: str = PULL_CRON,
           production_format: str | None = None, production_agent: str | None = None,
           production_suite: str | None = None) -> dict[str, str]:
    """Create or update every declared deployment on `work_pool`; returns name → deployment id.
    (`remove_undeclared` then removes the ones Polygon declared before and no longer does.)

    `source` None: the flows of the installed package (entrypoints such as
    `polygon.flows._sweep.run_sweep`; workers need Polygon installed, nothing else), and flow runs
    start in `working_dir` (default: the current folder). A local checkout or a git URL: the flows
    are loaded from there with `flow.from_source` and runs start in the checkout.
    """
    from prefect import flow
    from prefect.client.schemas.schedules import CronSchedule
    from prefect.deployments.runner import EntrypointType, RunnerDeployment

    src = None if source is None else str(source)
    start_in = Path(working_dir or Path.cwd()).absolute()
    ids: dict[str, str] = {}
    for d in declared(src, suite_path=suite_path, cron=cron, timezone=timezone,
                      production_source=production_source, seeds=seeds, pull_cron=pull_cron,
                      production_format=production_format, production_agent=production_agent,
                      production_suite=production_suite):
        options: dict[str, Any] = {
            "name": d.name, "description": d.description, "parameters": d.parameters, "triggers": d.triggers,
            "schedules": [CronSchedule(cron=d.cron, timezone=d.timezone)] if d.cron else None,
            "tags": d.tags, "work_pool_name": work_pool, "job_variables": job_variables or {}}
        deployment: RunnerDeployment
        if src is None:
            deployment = _installed_flow(d).to_deployment(entrypoint_type=EntrypointType.MODULE_PATH, **options)
            deployment.storage = WorkingDirectory(start_in)
        else:
            # Sync callers get the values, not coroutines (Prefect's sync/async dual API).
            loaded = cast(Any, flow.from_source(source=src, entrypoint=d.entrypoint))
            deployment = cast(RunnerDeployment, loaded.to_deployment(**options))
        ids[d.name] = str(deployment.apply(work_pool_name=work_pool))
    return ids


def remove_undeclared(kept: Iterable[str]) -> list[str]:
    """Delete Polygon's own deployments on the server that are not in `kept` (deployment names):
    the weekly grading of a re-deploy without a production source keeps no schedule running.
    Polygon's own: a name Polygon declares (`POLYGON_DEPLOYMENTS`), of the flow it declares it
    with, tagged `polygon`; any other deployment on the server is left alone. Returns the full
    names (`<flow>/<deployment>`) removed."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import DeploymentFilter, DeploymentFilterTags, FlowFilter, FlowFilterName

    stale = {name: flow for name, flow in POLYGON_DEPLOYMENTS.items() if name not in set(kept)}
    if not stale:
        return []
    removed = []
    with get_client(sync_client=True) as client:
        flows = {f.id: f.name for f in client.read_flows(flow_filter=FlowFilter(
            name=FlowFilterName(any_=sorted(set(stale.values())))))}
        found = client.read_deployments(
            flow_filter=FlowFilter(name=FlowFilterName(any_=sorted(set(stale.values())))),
            deployment_filter=DeploymentFilter(tags=DeploymentFilterTags(all_=[POLYGON_TAG])))
        for dep in found:
            flow = flows.get(dep.flow_id)
            if stale.get(dep.name) == flow:
                client.delete_deployment(dep.id)
                removed.append(f"{flow}/{dep.name}")
    return sorted(removed)
