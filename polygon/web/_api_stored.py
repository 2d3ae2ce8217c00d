"""The JSON API over what the artifact store keeps: prompt analyses, sweeps and personas.

Split from `_api` (runs, conversations, comparisons, admin) to keep each module small; same
prefix, same access rule (the ``read`` scope), same documented refusals.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Depends, HTTPException

from polygon import usecases
from polygon.usecases import Stores, run_manifest
from polygon_core.models import Run

from ._api import Ctx, Limit, Offset, page, read_access
from ._models_stored import AnalysisOut, AnalysisPage, PersonaGroups, SweepList, SweepOut
from ._schema import API_RESPONSES, documented

__all__ = ["router"]

router = APIRouter(prefix="/api", tags=["results"], dependencies=[Depends(read_access)],
                   responses=API_RESPONSES)


# -- prompt analyses -----------------------------------------------------------------------------


@lru_cache(maxsize=256)
def _prompt_hash(agent_path: str) -> str | None:
    from polygon_core.files import load_agent

    try:
        return load_agent(Path(agent_path)).prompt_hash
    except Exception:
        return None


def _prompt_history(stores: Stores, limit: int = 200) -> list[tuple[Run, str]]:
    """(run, prompt hash) of recent runs made from an agent file, oldest first."""
    out = []
    for run in reversed(usecases.list_runs(stores, limit=limit)):
        path = run_manifest(stores, run.id).get("agent_path")
        digest = _prompt_hash(path) if path else None
        if digest:
            out.append((run, digest))
    return out


def _analysis(stores: Stores, prompt_hash: str) -> Any:
    try:
        return usecases.stored_analysis(stores, prompt_hash)
    except ValueError as exc:
        raise HTTPException(422, str(exc)) from None


@router.get("/analyses", **documented(AnalysisPage))
def list_analyses(ctx: Ctx, offset: Offset = 0, limit: Limit = 50) -> dict[str, Any]:
    """Stored prompt analyses (one per prompt version), with axis scores and the agents that used them."""
    stores = ctx.stores()
    hashes = usecases.stored_analyses(stores)
    used: dict[str, set[str]] = {}
    for run, digest in _prompt_history(stores):
        used.setdefault(digest, set()).add(run.agent_name)
    items = []
    for digest in hashes[offset:offset + limit]:
        a = _analysis(stores, digest)
        if a is None:
            continue
        items.append({"prompt_hash": a.prompt_hash, "language": a.language, "length": a.length,
                      "axes": {k: v.score for k, v in a.axes.items()},
                      "agents": sorted(used.get(a.prompt_hash, ()))})
    return page(len(hashes), offset, limit, items)


@router.get("/analyses/{prompt_hash}", **documented(AnalysisOut))
def get_analysis(prompt_hash: str, ctx: Ctx, previous: str | None = None) -> dict[str, Any]:
    """One prompt version's analysis with its text, and the change since the previous version.

    The previous version is `previous` when given, else the prompt of the same agent's latest
    earlier run with a different prompt that has an analysis.
    """
    from polygon_core.analysis import compare_analyses

    stores = ctx.stores()
    current = _analysis(stores, prompt_hash)
    if current is None:
        raise HTTPException(404, f"no analysis of prompt {prompt_hash!r} is stored (run `polygon analyze`)")
    if previous is None:
        history = _prompt_history(stores)
        agents = {r.agent_name for r, d in history if d == prompt_hash}
        first = next((i for i, (r, d) in enumerate(history) if d == prompt_hash), None)
        if first is not None:
            for run, digest in reversed(history[:first]):
                if run.agent_name in agents and digest != prompt_hash and _analysis(stores, digest) is not None:
                    previous = digest
                    break
    change = None
    if previous is not None:
        before = _analysis(stores, previous)
        if before is None:
            raise HTTPException(404, f"no analysis of the previous prompt {previous!r} is stored")
        change = {"prompt_hash": previous,
                  "axes": {k: v.model_dump(mode="json")
                           for k, v in compare_analyses(before, before.prompt, current, current.prompt).items()}}
    data = current.model_dump(mode="json")
    return {**data, "previous": change}


# -- sweeps and personas -------------------------------------------------------------------------


@router.get("/sweeps", **documented(SweepList))
def list_sweeps(ctx: Ctx) -> dict[str, Any]:
    """Stored sweeps: name, points ranked, points refused, and the leader."""
    items = []
    for name, report in usecases.stored_sweeps(ctx.stores()).items():
        board = report.get("leaderboard") or []
        items.append({"name": report.get("sweep") or name, "points": len(board),
                      "refused": len(report.get("refused") or []), "leader": board[0] if board else None,
                      "stopped_early": report.get("stopped_early")})
    return {"total": len(items), "items": items}


@router.get("/sweeps/{name}", **documented(SweepOut))
def get_sweep(name: str, ctx: Ctx) -> dict[str, Any]:
    """A sweep's leaderboard (ranked points) and its refused points with their reasons."""
    report = usecases.stored_sweep(ctx.stores(), name)
    if report is None:
        raise HTTPException(404, f"no sweep {name!r} is stored")
    return {"name": report.get("sweep", name), "leaderboard": report.get("leaderboard") or [],
            "refused": report.get("refused") or [], "stopped_early": report.get("stopped_early")}


@router.get("/personas", **documented(PersonaGroups))
def list_personas(ctx: Ctx, agent: str | None = None, prompt_hash: str | None = None,
                  status: str | None = None) -> dict[str, Any]:
    """Personas grouped by agent and the prompt version they were made from; stale ones marked."""
    records = [r for r in usecases.persona_records(ctx.stores(), agent)
               if (prompt_hash is None or r.prompt_hash == prompt_hash) and (status is None or r.status == status)]
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in records:
        p = r.persona
        groups.setdefault((r.agent, r.prompt_hash), []).append({
            "id": r.id, "status": r.status, "stale": r.status == "stale", "task": r.task,
            "generator": r.generator, "error": r.error,
            "type": getattr(p, "type", None), "intended_outcome": getattr(p, "intended_outcome", None),
            "difficulty": getattr(p, "difficulty", None), "name": getattr(p, "name", None)})
    return {"total": len(records),
            "groups": [{"agent": a, "prompt_hash": h, "stale": all(x["stale"] for x in items),
                        "personas": items} for (a, h), items in sorted(groups.items())]}
