"""The chart data of the web app: a run's distributions and filter values, trends, sweep curves.

The charts draw exactly these numbers (the browser tests compare the drawn marks with them), so a
script reading the API sees what the page shows.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, HTTPException

from polygon.usecases import (
    conversation_facets,
    metric_trends,
    run_distributions,
    shown_calibration,
    stored_sweep,
)

from ._api import Ctx, Limit, _run, read_access
from ._models import Facets, RunDistributions, SweepCurves, Trends
from ._schema import API_RESPONSES, documented
from ._views import sweep_curves

__all__ = ["router"]

router = APIRouter(prefix="/api", tags=["results"], dependencies=[Depends(read_access)],
                   responses=API_RESPONSES)


@router.get("/runs/{run_id}/distributions", **documented(RunDistributions))
def distributions(run_id: str, ctx: Ctx, rubric_version: str | None = None) -> dict[str, Any]:
    """The run's composite histogram and per-criterion score counts, with the judge's calibration."""
    stores = ctx.stores()
    run = _run(stores, run_id)
    out = run_distributions(stores, run, rubric_version)
    return {**out, "calibration": shown_calibration(stores, [run.id], out["judge_model"], out["rubric_version"])}


@router.get("/runs/{run_id}/facets", **documented(Facets))
def facets(run_id: str, ctx: Ctx, rubric_version: str | None = None) -> dict[str, Any]:
    """Every value of each conversation filter (verdict, scenario, caller type, end reason, gate,
    failed assertion) with its count, for the run page's filter menus."""
    stores = ctx.stores()
    return conversation_facets(stores, _run(stores, run_id), rubric_version)


@router.get("/trends", **documented(Trends))
def trends(ctx: Ctx, agent: str | None = None, suite: str | None = None, source: str | None = None,
           rubric_version: str | None = None, metric: str = "mean_composite", limit: Limit = 200) -> dict[str, Any]:
    """A metric and every probe over the runs of one suite (the newest run's that is not a sweep
    point's, unless named; of one agent when `agent` is given), oldest first, each point with its
    run's `created_at`: one series per agent version, rubric version, source and judge (per wording
    and source for a probe), never a line across them, a production line named by its import
    source; each judge's calibration beside it."""
    stores = ctx.stores()
    try:
        out = metric_trends(stores, agent=agent, suite=suite, source=source, rubric_version=rubric_version,
                            metric=metric, limit=limit)
    except ValueError as exc:
        raise HTTPException(422, str(exc)) from None
    for s in out["series"]:  # a judge calibrated on any run of the line (or its calls, or its source)
        s["calibration"] = shown_calibration(stores, [p["run_id"] for p in s["points"]], s["judge_model"],
                                             s["rubric_version"])
    return out


@router.get("/sweeps/{name}/curves", **documented(SweepCurves))
def curves(name: str, ctx: Ctx) -> dict[str, Any]:
    """The sweep's mean composite against each swept parameter, with 95% intervals; the base point
    (the agent's own values) is drawn as a reference band."""
    report = stored_sweep(ctx.stores(), name)
    if report is None:
        raise HTTPException(404, f"no sweep {name!r} is stored")
    return {"name": report.get("sweep", name), "metric": "mean_composite",
            "curves": sweep_curves(report.get("leaderboard") or [])}
