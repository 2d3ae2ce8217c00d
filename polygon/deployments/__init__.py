"""Polygon's Prefect deployments, shipped in the package: `polygon deploy` creates them on the
Prefect server PREFECT_API_URL names (docs/deployments.md). `deployments/deploy.py` and
`deployments/prefect.yaml` in a checkout declare the same ones."""

from ._apply import DEFAULT_POOL, WorkingDirectory, deploy, ensure_work_pool, remove_undeclared
from ._declared import (
    ARRIVAL_WINDOW,
    CALLS_ARRIVED,
    POLYGON_DEPLOYMENTS,
    POLYGON_TAG,
    PROMPT_COMMITTED,
    PULL_CRON,
    SWEEP_REQUESTED,
    WEEKLY_CRON,
    Declared,
    declared,
    flow_exists,
)

__all__ = [
    "ARRIVAL_WINDOW",
    "CALLS_ARRIVED",
    "DEFAULT_POOL",
    "POLYGON_DEPLOYMENTS",
    "POLYGON_TAG",
    "PROMPT_COMMITTED",
    "PULL_CRON",
    "SWEEP_REQUESTED",
    "WEEKLY_CRON",
    "Declared",
    "WorkingDirectory",
    "declared",
    "deploy",
    "ensure_work_pool",
    "flow_exists",
    "remove_undeclared",
]
