"""Tasks of the run_sweep flow: plan, budget, materialise, summarise, rank. Each wraps one use case."""

from __future__ import annotations

from typing import Any

from prefect import get_run_logger, task
from prefect.artifacts import create_markdown_artifact, create_table_artifact

from polygon import usecases
from polygon_core.sweeps import PointResult, SameConfiguration, SweepPoint

from ._retry import retry_unless_bad_input
from ._stores import task_stores


@task(name="plan-sweep", retries=1, retry_condition_fn=retry_unless_bad_input)
def plan_sweep_task(spec_path: str) -> dict[str, Any]:
    """The sweep's name, floor and points (base first for one_at_a_time), one per configuration:
    a point whose profile an earlier point has is listed under `same_configuration`, not run."""
    plan = usecases.plan_sweep(spec_path)
    logger = get_run_logger()
    distinct, same = plan["points"], plan["same_configuration"]
    logger.info("sweep %s: %d points, %d distinct configurations", plan["name"], len(distinct) + len(same),
                len(distinct))
    for item in same:
        logger.info("point %s configures what %s does: it reuses that run", item.label, item.same_as)
    return plan


@task(name="budget-point", task_run_name="budget point {index}")
def budget_point_task(spec_path: str, index: int, used: int, measured_tokens: int,
                      measured_turns: int, measured_conversations: int) -> dict[str, Any]:
    """Estimate a point's tokens; say why it must not start when it would pass the cap."""
    return usecases.budget_point(spec_path, used, measured_tokens, measured_turns, measured_conversations)


@task(name="materialise-point", retries=1, retry_condition_fn=retry_unless_bad_input,
      task_run_name="materialise point {point.index}")
def materialise_point_task(spec_path: str, point: SweepPoint) -> dict[str, Any]:
    """Write the point's immutable agent config and suite; return paths, profile and run."""
    return usecases.point_run(task_stores(), spec_path, point)


@task(name="summarise-point", task_run_name="summarise {run_id}")
def summarise_point_task(run_id: str, profile: str, label: str,
                         values: dict[str, Any] | None = None) -> PointResult:
    """A finished point's mean, interval, stability, speed, tokens and estimated cost (and the
    parameter `values` it sets)."""
    return usecases.point_summary(task_stores(), run_id, profile, label, values)


@task(name="early-stop")
def early_stop_task(results: list[PointResult], floor: float | None) -> str | None:
    """Whether the sweep stops after its first point (below the floor)."""
    return usecases.sweep_early_stop(results, floor)


@task(name="leaderboard")
def leaderboard_task(name: str, results: list[PointResult], refused: list[dict[str, Any]],
                     stopped: str | None, same: list[SameConfiguration] | None = None) -> dict[str, Any]:
    """Rank the points, store the leaderboard (for the web app and scripts) and publish it as
    artifacts on the flow run (for operators). `same`: points not run because an earlier point
    configures the same (each named with the point it reuses)."""
    board = usecases.sweep_leaderboard(task_stores(), name, results, refused, stopped, same)
    key = "leaderboard-" + "".join(c if c.isalnum() else "-" for c in name.lower())
    create_table_artifact(key=key, table=board.table, description=f"Leaderboard of sweep {name}")
    create_markdown_artifact(key=key + "-md", markdown=board.markdown, description=f"Sweep {name}")
    return board.report
