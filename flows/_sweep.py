"""The run_sweep flow: points run one after another as evaluate_suite subflows."""

from __future__ import annotations

from typing import Any

from polygon.flows._evaluate import evaluate_suite
from polygon.tasks._sweep import (
    budget_point_task,
    early_stop_task,
    leaderboard_task,
    materialise_point_task,
    plan_sweep_task,
    summarise_point_task,
)
from prefect import flow


@flow(name="run-sweep", flow_run_name="sweep {spec_path}")
def run_sweep(spec_path: str) -> dict[str, Any]:
    """Run a sweep: budget each point, run it (or reuse its finished run), stop early under the
    floor, and rank what ran. Resumable: point runs are keyed by their immutable profile."""
    plan = plan_sweep_task(spec_path)
    results, refused, stopped = [], [], None
    used = tokens = turns = conversations = 0
    for point in plan["points"]:
        budget = budget_point_task(spec_path, point.index, used, tokens, turns, conversations)
        if budget["refused"]:
            refused.append({"label": point.label(), "estimate": budget["estimate"], "reason": budget["refused"]})
            continue
        made = materialise_point_task(spec_path, point)
        if not made["complete"]:
            evaluate_suite(suite_path=made["suite_path"], runs=[made["run"]], agent_paths=[made["agent_path"]],
                           seeds=plan["seeds"], rubric_version=plan["rubric"])
        result = summarise_point_task(made["run"].id, made["profile"], point.label())
        results.append(result)
        used, tokens, turns = used + result.tokens, tokens + result.tokens, turns + result.turns
        conversations += result.conversations
        stopped = early_stop_task(results, plan["floor"])
        if stopped:
            break
    return leaderboard_task(plan["name"], results, refused, stopped)
