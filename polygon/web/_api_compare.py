"""The comparison API: a comparison of stored runs, its divergences page by page, and one pair aligned.

A comparison reads every result row of its runs and each pair's transcripts (for the divergence
point), which takes seconds for runs of thousands of conversations. It is computed once and kept
on the app's `WebContext` under what the runs hold (their status, conversation and judgment
counts), so the screen's later requests (divergence pages, another baseline's view of the same
runs) answer from memory, and a re-score or a finished run is never served stale. The page shows
each run's stored scorecard first and fills the comparison in when it is ready.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Query

from polygon.usecases import (
    ComparisonError,
    Stores,
    compare_runs,
    conversation_ids,
    conversation_page,
    judgment_page,
    load_conversation,
    run_labels,
)

from ._api import MAX_LIMIT, Ctx, Limit, Offset, WebContext, _calibration, _judge_warning, _run, read_access
from ._models import ComparisonOut, DivergencesOut, PairView
from ._schema import API_RESPONSES, documented
from ._views import aligned_pair

__all__ = ["CACHED_COMPARISONS", "router"]

#: How many computed comparisons the app keeps (the oldest is dropped first).
CACHED_COMPARISONS = 8

router = APIRouter(prefix="/api", tags=["results"], dependencies=[Depends(read_access)],
                   responses=API_RESPONSES)


def _run_ids(runs: list[str]) -> list[str]:
    ids = [i.strip() for value in runs for i in value.split(",") if i.strip()]
    if len(ids) < 2:
        raise HTTPException(422, "choose at least two runs to compare")
    return ids


def _holdings(stores: Stores, run_id: str) -> tuple[str, int, int]:
    """What a cached comparison of this run depends on: its status and its stored row counts."""
    run = _run(stores, run_id)
    judged, _ = judgment_page(stores, run.id, limit=0)
    return run.status, len(conversation_ids(stores, run.id)), judged


def _comparison(ctx: WebContext, runs: list[str], baseline: str | None, rubric: str | None = None,
                judge: str | None = None) -> dict[str, Any]:
    """The comparison as JSON (every divergence kept), from the cache when the runs are unchanged.
    `rubric` and `judge` choose the judgments compared, as `polygon compare --rubric --judge` does."""
    stores = ctx.stores()
    ids = [_run(stores, rid).id for rid in _run_ids(runs)]
    base = _run(stores, baseline).id if baseline else None
    key = (tuple(ids), base, rubric, judge, tuple(_holdings(stores, i) for i in ids))
    cached = ctx.comparisons.get(key)
    if cached is not None:
        return cached
    try:
        comparison = compare_runs(stores, ids, base, rubric_version=rubric, judge=judge)
    except ComparisonError as exc:
        raise HTTPException(422, str(exc)) from None
    out = comparison.report_json()
    out.pop("rows", None)  # one row per conversation: the conversations endpoint pages them
    out["run_ids"] = {label: run.id for label, run in zip(comparison.labels, comparison.runs, strict=False)}
    out["calibrations"] = {card.label: _calibration(stores, run, card.model_dump(mode="json"))
                           for card, run in zip(comparison.cards, comparison.runs, strict=False)}
    out["judge_warnings"] = {card.label: _judge_warning(stores, run, card.model_dump(mode="json"))
                             for card, run in zip(comparison.cards, comparison.runs, strict=False)}
    while len(ctx.comparisons) >= CACHED_COMPARISONS:
        ctx.comparisons.pop(next(iter(ctx.comparisons)))
    ctx.comparisons[key] = out
    return out


@router.get("/compare", **documented(ComparisonOut))
def compare(ctx: Ctx, runs: Annotated[list[str], Query()], baseline: str | None = None,
            divergences: Limit = 200, rubric: str | None = None, judge: str | None = None) -> dict[str, Any]:
    """Compare runs (`runs=A&runs=B` or `runs=A,B`): scorecards, the matrix ordered by spread
    (incomparable rows last), the first `divergences` divergences of each candidate (all of them
    page by page at `/api/compare/divergences`), noise-aware differences (overall, per criterion
    and per scenario, with intervals and the noise floor), probe comparison and the written analysis.

    `rubric` compares the judgments stored under that version (a rescore's), `judge` one judge's;
    runs judged under different rubric versions without `rubric`, or a run with no judgments under
    it (or by `judge`), are refused with 422 and the reason.
    """
    out = dict(_comparison(ctx, runs, baseline, rubric, judge))
    out["divergence_sets"] = [{**s, "total": len(s["items"]), "items": s["items"][:divergences]}
                              for s in out["divergence_sets"]]
    return out


@router.get("/compare/divergences", **documented(DivergencesOut))
def compare_divergences(ctx: Ctx, runs: Annotated[list[str], Query()], baseline: str | None = None,
                        candidate: str | None = None, offset: Offset = 0, limit: Limit = 50,
                        diverged: bool = False, scenario: str | None = None, rubric: str | None = None,
                        judge: str | None = None) -> dict[str, Any]:
    """One page of the divergences between the baseline and a candidate (a label; by default the
    first candidate), in (scenario, seed) order; `diverged=true` keeps only pairs that part."""
    sets = _comparison(ctx, runs, baseline, rubric, judge)["divergence_sets"]
    chosen = next((s for s in sets if candidate in (None, s["b"])), None)
    if chosen is None:
        raise HTTPException(404, f"no candidate labelled {candidate!r} in this comparison "
                                 f"(candidates: {', '.join(s['b'] for s in sets)})")
    items = [d for d in chosen["items"] if (not diverged or d["turn"] is not None)
             and (not scenario or d["scenario_id"] == scenario)]
    return {"a": chosen["a"], "b": chosen["b"], "total": len(items), "offset": offset, "limit": limit,
            "items": items[offset:offset + limit]}


@router.get("/compare/pair", **documented(PairView))
def compare_pair(ctx: Ctx, a: str, b: str, scenario: str, seed: int | None = None,
                 rubric: str | None = None) -> dict[str, Any]:
    """One scenario's conversations of two runs side by side, aligned by turn, with the divergence
    turn and its reasons (the lowest seed both ran, unless `seed` is given); `rubric` as `/api/compare`'s."""
    stores = ctx.stores()
    run_a, run_b = _run(stores, a), _run(stores, b)
    if rubric is None and run_a.rubric_version != run_b.rubric_version:
        raise HTTPException(422, f"cannot compare runs judged under different rubric versions "
                                 f"({run_a.rubric_version} and {run_b.rubric_version}); `rubric` names the one to compare")
    found: list[dict[int, str]] = []
    for run in (run_a, run_b):
        _total, items = conversation_page(stores, run.id, rubric_version=rubric or run.rubric_version,
                                          scenario=scenario, limit=MAX_LIMIT, sort="scenario_id")
        found.append({i["seed"]: i["conversation_id"] for i in items})
    shared = sorted(set(found[0]) & set(found[1]))
    if seed is None:
        if not shared:
            raise HTTPException(404, f"no seed of scenario {scenario!r} was run by both {run_a.id} and {run_b.id}")
        seed = shared[0]
    elif seed not in shared:
        raise HTTPException(404, f"scenario {scenario!r} seed {seed} was not run by both runs (incomparable)")
    conv_a = load_conversation(stores, run_a.id, found[0][seed])
    conv_b = load_conversation(stores, run_b.id, found[1][seed])
    labels = run_labels([run_a, run_b])
    return {**aligned_pair(conv_a, conv_b), "seeds": shared,
            "runs": {"a": {"id": run_a.id, "label": labels[run_a.id]},
                     "b": {"id": run_b.id, "label": labels[run_b.id]}}}
