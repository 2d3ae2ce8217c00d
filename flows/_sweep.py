"""The run_sweep flow: points run one after another as evaluate_suite subflows, each on the task
runner `POLYGON_TASK_RUNNER` names where the sweep runs (`flows/_runner.py`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from polygon.flows._evaluate import evaluate_suite  # absolute: Prefect loads this file by path
from polygon.flows._runner import task_runner
from polygon.flows._story import run_tags, tag_flow_run
from polygon.tasks import (
    budget_point_task,
    early_stop_task,
    leaderboard_task,
    materialise_point_task,
    plan_sweep_task,
    summarise_point_task,
)
from prefect import flow, get_run_logger, tags
from prefect.runtime import flow_run

from polygon import usecases


def _run_name() -> str:
    return f"sweep {Path(str(flow_run.parameters['spec_path'])).name}"


def _named(text: str) -> Callable[[], str]:
    return lambda: text


@flow(name="run-sweep", flow_run_name=_run_name)
def run_sweep(spec_path: str) -> dict[str, Any]:
    """Run a sweep: budget each point, run it (or reuse its finished run), stop early under the
    floor, and rank what ran. Each distinct configuration runs once: a point that configures what
    an earlier point does (a parameter at its base value) reuses that run. Resumable: point runs are
    keyed by their configuration profile."""
    logger = get_run_logger()
    # Read here, where the sweep runs (a deployment's worker), as `polygon run` reads it: a subflow
    # would otherwise keep evaluate_suite's declared threads. A bad value fails before any point.
    runner = task_runner(usecases.shared_stores().settings.concurrency)  # POLYGON_TASK_RUNNER
    plan = plan_sweep_task(spec_path)
    name, points = plan["name"], plan["points"]
    results, refused, stopped = [], [], None
    used = tokens = turns = conversations = 0
    for number, point in enumerate(points, start=1):
        where = f"point {number}/{len(points)} ({point.label()})"
        budget = budget_point_task(spec_path, point.index, used, tokens, turns, conversations)
        if budget["refused"]:
            logger.warning("sweep %s: %s refused: %s", name, where, budget["refused"])
            refused.append({"label": point.label(), "estimate": budget["estimate"], "reason": budget["refused"]})
            continue
        made = materialise_point_task(spec_path, point)
        run = made["run"]
        point_tags = run_tags([run], sweep=name)
        if number == 1:
            tag_flow_run(point_tags)  # the sweep's own run: the base agent, the sweep, the rubric
        if made["complete"]:
            logger.info("sweep %s: %s reuses its finished run %s", name, where, run.id)
        else:
            logger.info("sweep %s: %s runs as %s", name, where, run.id)
            # The subflow's name says which point it is (a callable: a label may hold braces).
            subflow = evaluate_suite.with_options(
                task_runner=runner, flow_run_name=_named(f"sweep {name} {where}: {run.agent_name}@{run.agent_version[:8]}"))
            with tags(*point_tags, f"point:{number}"):
                subflow(suite_path=made["suite_path"], runs=[run], agent_paths=[made["agent_path"]])
        result = summarise_point_task(run.id, made["profile"], point.label(), point.values)
        logger.info("sweep %s: %s mean composite %s [%s, %s] over %d conversations, %d tokens", name, where,
                    result.mean_composite, result.ci_low, result.ci_high, result.conversations, result.tokens)
        results.append(result)
        used, tokens, turns = used + result.tokens, tokens + result.tokens, turns + result.turns
        conversations += result.conversations
        stopped = early_stop_task(results, plan["floor"])
        if stopped:
            logger.warning("sweep %s: %s", name, stopped)
            break
    report = leaderboard_task(name, results, refused, stopped, plan["same_configuration"])
    best = report["leaderboard"][0] if report["leaderboard"] else None
    logger.info("sweep %s: %d of %d distinct configurations ran, %d refused, %d not run again (same configuration "
                "as an earlier point); best: %s", name, len(results), len(points), len(refused),
                len(plan["same_configuration"]),
                f"{best['label']} (mean {best['mean_composite']})" if best else "none")
    return report
