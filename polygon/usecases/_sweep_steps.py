"""The run_sweep flow's steps over a sweep spec: plan, budget a point, give a point its run,
summarise a point, stop early. (Ranking and storing the leaderboard is `_leaderboard`.)"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from polygon_core import content_hash
from polygon_core.sweeps import (
    PointResult,
    SweepPoint,
    distinct_points,
    early_stop,
    estimate_point,
    expand_points,
    refuse_reason,
    summarise_point,
)

from ._common import Stores
from ._runs import new_run
from ._sweeps import (
    LoadedSweep,
    base_values,
    load_sweep,
    materialise_point,
    planned_conversations,
    point_cost,
    point_measurements,
    point_profile,
)

__all__ = ["budget_point", "plan_sweep", "point_run", "point_summary", "sweep_early_stop", "sweep_progress"]


def plan_sweep(spec_path: str) -> dict[str, Any]:
    """The sweep's name, floor and points (base first for one_at_a_time), one per configuration:
    a point whose profile an earlier point has is listed under `same_configuration`, not run."""
    sweep = load_sweep(spec_path)
    points = expand_points(sweep.spec, base_values(sweep))
    distinct, same = distinct_points(points, [point_profile(sweep, p) for p in points])
    return {"name": sweep.spec.name, "floor": sweep.spec.floor, "seeds": list(sweep.spec.seeds),
            "rubric": sweep.spec.rubric, "points": distinct, "same_configuration": same,
            "agent_path": str(sweep.agent_path), "suite_path": str(sweep.suite_path)}


def budget_point(spec_path: str, used: int, measured_tokens: int, measured_turns: int,
                 measured_conversations: int) -> dict[str, Any]:
    """Estimate a point's tokens (from what earlier points measured); say why it must not start
    when it would pass the sweep's token cap."""
    sweep = load_sweep(spec_path)
    conversations, default_turns = planned_conversations(sweep)
    turns = round(measured_turns / measured_conversations) if measured_conversations else default_turns
    est = estimate_point(conversations=conversations, turns_per_conversation=turns,
                         measured_tokens=measured_tokens, measured_turns=measured_turns,
                         stated_per_turn=sweep.spec.tokens_per_turn_estimate)
    return {"estimate": est.model_dump(), "refused": refuse_reason(used=used, estimate=est,
                                                                    cap=sweep.spec.token_cap)}


def point_run(stores: Stores, spec_path: str, point: SweepPoint) -> dict[str, Any]:
    """Write the point's immutable agent config and suite; return their paths, its profile, its run
    (the stored one when the point ran before) and whether that run is complete."""
    sweep = load_sweep(spec_path)
    agent_file, suite_dir, profile = materialise_point(sweep, point, stores.settings.home.resolve())
    # The run is the point's profile judged on the spec's seeds under its rubric: other seeds or
    # another rubric in an edited spec are another run, never a resumed one mixing both.
    run_id = _point_run_id(sweep, profile)
    existing = stores.repo.get_run(run_id, exact=True)
    # A point's run is labelled with the sweep's name, so it is never taken for a plain suite run
    # (for example as the previous version in a re-evaluation).
    run = existing or new_run(str(agent_file), str(suite_dir), seeds=sweep.spec.seeds,
                              rubric=sweep.spec.rubric, run_id=run_id,
                              ).model_copy(update={"suite": sweep.spec.name})
    return {"agent_path": str(agent_file), "suite_path": str(suite_dir), "profile": profile,
            "run": run, "complete": bool(existing and existing.status == "complete")}


def _point_run_id(sweep: LoadedSweep, profile: str) -> str:
    return f"sweep-{sweep.spec.name}-{profile}-{content_hash([list(sweep.spec.seeds), sweep.spec.rubric], 4)}"


def sweep_progress(stores: Stores, spec_path: str) -> tuple[int, Callable[[], int]]:
    """How many conversations the sweep's distinct points plan, and a count of those stored so far
    in their runs (a point that reuses a finished run counts at once): what `polygon sweep` shows
    as it goes. The count reads the database; call it from any thread."""
    sweep = load_sweep(spec_path)
    plan = plan_sweep(spec_path)
    ids = [_point_run_id(sweep, point_profile(sweep, p)) for p in plan["points"]]
    per_point, _turns = planned_conversations(sweep)

    def stored() -> int:
        # Ids only (not whole rows): it is read every quarter second while the sweep runs.
        return sum(len(stores.repo.conversation_ids(run_id)) for run_id in ids)

    return per_point * len(ids), stored


def point_summary(stores: Stores, run_id: str, profile: str, label: str,
                  values: dict[str, Any] | None = None) -> PointResult:
    """A finished point's mean, interval, stability, speed, tokens and estimated cost (and the
    parameter `values` it sets)."""
    rows, latencies, turns = point_measurements(stores, run_id)
    return summarise_point(profile, label, run_id, rows, latencies, turns, cost_usd=point_cost(stores, run_id),
                           values=values)


def sweep_early_stop(results: list[PointResult], floor: float | None) -> str | None:
    """Why the sweep stops after its first point (below the floor), or None."""
    return early_stop(results, floor)
