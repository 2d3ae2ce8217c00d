"""Tasks of the run_sweep flow: plan, budget, materialise, summarise, rank."""

from __future__ import annotations

import json
from typing import Any

from prefect import get_run_logger, task
from prefect.artifacts import create_markdown_artifact, create_table_artifact

from polygon import usecases
from polygon_core import content_hash
from polygon_core.reports import md_text
from polygon_core.sweeps import (
    PointResult,
    SameConfiguration,
    SweepPoint,
    distinct_points,
    early_stop,
    estimate_point,
    expand_points,
    rank,
    refuse_reason,
    summarise_point,
)

from ._retry import retry_unless_bad_input
from ._stores import task_stores


@task(name="plan-sweep", retries=1, retry_condition_fn=retry_unless_bad_input)
def plan_sweep_task(spec_path: str) -> dict[str, Any]:
    """The sweep's name, floor and points (base first for one_at_a_time), one per configuration:
    a point whose profile an earlier point has is listed under `same_configuration`, not run."""
    sweep = usecases.load_sweep(spec_path)
    points = expand_points(sweep.spec, usecases.base_values(sweep))
    distinct, same = distinct_points(points, [usecases.point_profile(sweep, p) for p in points])
    logger = get_run_logger()
    logger.info("sweep %s: %d points, %d distinct configurations", sweep.spec.name, len(points), len(distinct))
    for item in same:
        logger.info("point %s configures what %s does: it reuses that run", item.label, item.same_as)
    return {"name": sweep.spec.name, "floor": sweep.spec.floor, "seeds": list(sweep.spec.seeds),
            "rubric": sweep.spec.rubric, "points": distinct, "same_configuration": same,
            "agent_path": str(sweep.agent_path), "suite_path": str(sweep.suite_path)}


@task(name="budget-point", task_run_name="budget point {index}")
def budget_point_task(spec_path: str, index: int, used: int, measured_tokens: int,
                      measured_turns: int, measured_conversations: int) -> dict[str, Any]:
    """Estimate a point's tokens; say why it must not start when it would pass the cap."""
    sweep = usecases.load_sweep(spec_path)
    conversations, default_turns = usecases.planned_conversations(sweep)
    turns = round(measured_turns / measured_conversations) if measured_conversations else default_turns
    est = estimate_point(conversations=conversations, turns_per_conversation=turns,
                         measured_tokens=measured_tokens, measured_turns=measured_turns,
                         stated_per_turn=sweep.spec.tokens_per_turn_estimate)
    return {"estimate": est.model_dump(), "refused": refuse_reason(used=used, estimate=est,
                                                                    cap=sweep.spec.token_cap)}


@task(name="materialise-point", retries=1, retry_condition_fn=retry_unless_bad_input,
      task_run_name="materialise point {point.index}")
def materialise_point_task(spec_path: str, point: SweepPoint) -> dict[str, Any]:
    """Write the point's immutable agent config and suite; return paths, profile and run."""
    stores = task_stores()
    sweep = usecases.load_sweep(spec_path)
    agent_file, suite_dir, profile = usecases.materialise_point(sweep, point, stores.settings.home.resolve())
    # The run is the point's profile judged on the spec's seeds under its rubric: other seeds or
    # another rubric in an edited spec are another run, never a resumed one mixing both.
    run_id = f"sweep-{sweep.spec.name}-{profile}-{content_hash([list(sweep.spec.seeds), sweep.spec.rubric], 4)}"
    existing = stores.repo.get_run(run_id, exact=True)
    # A point's run is labelled with the sweep's name, so it is never taken for a plain suite run
    # (for example as the previous version in a re-evaluation).
    run = existing or usecases.new_run(str(agent_file), str(suite_dir), seeds=sweep.spec.seeds,
                                       rubric=sweep.spec.rubric, run_id=run_id,
                                       ).model_copy(update={"suite": sweep.spec.name})
    return {"agent_path": str(agent_file), "suite_path": str(suite_dir), "profile": profile,
            "run": run, "complete": bool(existing and existing.status == "complete")}


@task(name="summarise-point", task_run_name="summarise {run_id}")
def summarise_point_task(run_id: str, profile: str, label: str,
                         values: dict[str, Any] | None = None) -> PointResult:
    """A finished point's mean, interval, stability, speed, tokens and estimated cost (and the
    parameter `values` it sets)."""
    stores = task_stores()
    rows, latencies, turns = usecases.point_measurements(stores, run_id)
    cost = usecases.point_cost(stores, run_id)
    return summarise_point(profile, label, run_id, rows, latencies, turns, cost_usd=cost, values=values)


@task(name="early-stop")
def early_stop_task(results: list[PointResult], floor: float | None) -> str | None:
    """Whether the sweep stops after its first point (below the floor)."""
    return early_stop(results, floor)


@task(name="leaderboard")
def leaderboard_task(name: str, results: list[PointResult], refused: list[dict[str, Any]],
                     stopped: str | None, same: list[SameConfiguration] | None = None) -> dict[str, Any]:
    """Rank the points and publish the leaderboard as artifacts on the flow run. `same`: points not
    run because an earlier point configures the same (each named with the point it reuses)."""
    ranked = rank(results)
    stores = task_stores()
    report = {"sweep": name, "leaderboard": [r.model_dump() for r in ranked], "refused": refused,
              "stopped_early": stopped, "same_configuration": [s.model_dump() for s in same or []],
              # The scenario matrix of the top points: where the best profiles differ.
              "matrix_top": [row.model_dump(mode="json") for row in
                             usecases.top_matrix(stores, [(r.label, r.run_id) for r in ranked[:3]])]}
    # Stored for the web app and scripts (the Prefect artifacts below are for operators).
    stores.artifacts.put_text(f"sweeps/{name}/leaderboard.json", json.dumps(report, indent=2, default=str))
    key = "leaderboard-" + "".join(c if c.isalnum() else "-" for c in name.lower())
    create_table_artifact(key=key, table=[{"rank": i + 1, "point": r.label, "mean": r.mean_composite,
                                           "spread": r.spread_across_seeds,
                                           "latency/turn ms": r.median_latency_per_turn_ms,
                                           "tokens": r.tokens} for i, r in enumerate(ranked)],
                          description=f"Leaderboard of sweep {name}")
    # The sweep name, point labels and reasons come from the spec file: literal text, never markup.
    lines = [f"# Sweep {md_text(name)}", ""]
    if stopped:
        lines += [f"**Stopped early:** {md_text(stopped)}", ""]
    lines += ["| rank | point | mean | 95% CI | spread | latency/turn ms | tokens |", "|---|---|---|---|---|---|---|"]
    lines += [f"| {i + 1} | {md_text(r.label)} | {r.mean_composite} | [{r.ci_low}, {r.ci_high}] | "
              f"{r.spread_across_seeds} | {r.median_latency_per_turn_ms} | {r.tokens} |" for i, r in enumerate(ranked)]
    for item in refused:
        lines.append(f"\nRefused: {md_text(item['label'])}: {md_text(item['reason'])}")
    for dup in same or []:
        lines.append(f"\nNot run again: {md_text(dup.label)} is the configuration of {md_text(dup.same_as)}")
    create_markdown_artifact(key=key + "-md", markdown="\n".join(lines), description=f"Sweep {name}")
    return report
