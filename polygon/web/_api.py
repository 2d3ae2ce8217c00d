"""The JSON API over stored results (`/api/...`): what the pages show, for anyone to script.

Every list is paginated (`offset`, `limit`, answering `{total, offset, limit, items}`) and cut in
SQL, so a run of thousands of conversations costs one page, not the run. Reads need the ``read``
scope; re-scoring and re-probing need ``admin`` (see `_auth`). What lives in the artifact store
(prompt analyses, sweeps, personas) is served by `_api_stored`.
"""

from __future__ import annotations

import dataclasses
import threading
from dataclasses import dataclass, field
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Query, Request
from pydantic import BaseModel, ConfigDict

from polygon import usecases
from polygon.usecases import (
    CONVERSATION_SORTS,
    Stores,
    call_origins,
    conversation_judgments,
    conversation_list,
    conversation_probe_answers,
    conversation_record,
    find_run,
    judgment_page,
    load_conversation,
    open_stores,
    rubric_versions,
    run_labels,
    run_manifest,
    run_summaries,
    scorecard,
    stored_summary,
)
from polygon_core.adapters.artifacts import ArtifactNotFoundError
from polygon_core.adapters.settings import PolygonSettings
from polygon_core.compare import ProbeRate
from polygon_core.models import Run

from ._auth import ApiToken, Scope, authorize, tokens_from_settings
from ._models import (
    CalibrationPage,
    ConversationPage,
    ConversationView,
    JudgmentPage,
    RunDetail,
    RunPage,
    RunProbes,
)
from ._models_stored import ProbeTrendsOut, RescoreOut
from ._schema import API_RESPONSES, Access, documented
from ._views import conversation_view, probe_series, run_summary

__all__ = ["MAX_LIMIT", "Ctx", "Limit", "Offset", "WebContext", "context", "page", "read_access", "router"]

MAX_LIMIT = 500
RUN_SORTS = ("-created_at", "created_at", "agent_name", "-mean_composite", "mean_composite",
             "-conversations", "cost_usd")


@dataclass
class WebContext:
    """What every request of the web app shares: settings, tokens and the (lazily opened) stores."""

    settings: PolygonSettings
    tokens: list[ApiToken]
    _stores: Stores | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)
    #: Finished comparisons by (runs, baseline, what each run holds): see `_api_compare`.
    comparisons: dict[Any, dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def from_settings(cls, settings: PolygonSettings) -> WebContext:
        """Parse the tokens now, so a malformed POLYGON_API_TOKENS fails at start-up."""
        return cls(settings=settings, tokens=tokens_from_settings(settings))

    def stores(self) -> Stores:
        """The database and artifact store, opened on first use."""
        with self._lock:
            if self._stores is None:
                self._stores = open_stores(self.settings)
            return self._stores


def context(request: Request) -> WebContext:
    """The app's WebContext (installed by `install_web`)."""
    return request.app.state.polygon_web


def _need(scope: Scope) -> Any:
    def check(request: Request) -> ApiToken | None:
        return authorize(request, context(request).tokens, scope)
    return check


read_access = _need("read")
admin_access = _need("admin")

router = APIRouter(prefix="/api", tags=["results"], dependencies=[Depends(read_access)],
                   responses=API_RESPONSES)
Ctx = Annotated[WebContext, Depends(context)]
# Bounded: a larger offset reaches the database as an integer it cannot hold (a 500, not a page).
MAX_OFFSET = 1_000_000_000
Offset = Annotated[int, Query(ge=0, le=MAX_OFFSET)]
Limit = Annotated[int, Query(ge=1, le=MAX_LIMIT)]


def page(total: int, offset: int, limit: int, items: list[Any]) -> dict[str, Any]:
    """The paginated envelope every list answers with."""
    return {"total": total, "offset": offset, "limit": limit, "items": items}


def _run(stores: Stores, run_id: str) -> Run:
    try:
        run = find_run(stores, run_id)
    except ValueError as exc:  # an ambiguous prefix
        raise HTTPException(400, str(exc)) from None
    if run is None:
        raise HTTPException(404, f"no run {run_id!r} is stored")
    return run


def _summary(stores: Stores, run: Run) -> dict[str, Any]:
    # Computed now, by the code `polygon show` uses (one judge, one probe answerer), not the summary
    # stored when the run finished: a later `polygon probe` or `rescore` would leave that one behind.
    stored = stored_summary(stores, run.id)
    label = stored["label"] if stored and "label" in stored else run_labels([run])[run.id]
    return scorecard(stores, run.id, label=label).model_dump(mode="json")


# -- runs ----------------------------------------------------------------------------------------


@router.get("/runs", **documented(RunPage))
def list_runs(ctx: Ctx, offset: Offset = 0, limit: Limit = 50, agent: str | None = None,
              suite: str | None = None, rubric_version: str | None = None, status: str | None = None,
              source: str | None = None, q: str | None = None, sort: str = "-created_at") -> dict[str, Any]:
    """Stored runs, filtered and sorted (`sort`: -created_at, created_at, agent_name, -mean_composite,
    mean_composite, -conversations, cost_usd), one page with counts, verdicts and cost."""
    if sort not in RUN_SORTS:
        raise HTTPException(422, f"sort must be one of {', '.join(RUN_SORTS)}")
    stores = ctx.stores()
    runs = [r for r in usecases.list_runs(stores, limit=None)
            if (agent is None or r.agent_name == agent) and (suite is None or r.suite == suite)
            and (rubric_version is None or r.rubric_version == rubric_version)
            and (status is None or r.status == status) and (source is None or r.source == source)
            and (not q or q.lower() in f"{r.id} {r.agent_name} {r.suite} {r.agent_version}".lower())]
    key = sort.lstrip("-")
    if key in ("created_at", "agent_name"):
        runs.sort(key=lambda r: (getattr(r, key) or "", r.id), reverse=sort.startswith("-"))
        chosen = runs[offset:offset + limit]
        summaries = run_summaries(stores, [r.id for r in chosen])
        items = [run_summary(r, summaries.get(r.id)) for r in chosen]
    else:
        summaries = run_summaries(stores, [r.id for r in runs])
        rows = [run_summary(r, summaries.get(r.id)) for r in runs]
        present = [x for x in rows if x[key] is not None]
        present.sort(key=lambda x: x[key], reverse=sort.startswith("-"))
        rows = present + [x for x in rows if x[key] is None]  # unknown values last, either way
        items = rows[offset:offset + limit]
    return page(len(runs), offset, limit, items)


@router.get("/runs/{run_id}", **documented(RunDetail))
def get_run(run_id: str, ctx: Ctx) -> dict[str, Any]:
    """One run: its row on the runs list, its scorecard and manifest, its judge's calibration and
    the warning of a fitted judge stored with `--force` (`judge_warning`, else null)."""
    stores = ctx.stores()
    run = _run(stores, run_id)
    card = _summary(stores, run)
    return {**run_summary(run, card), "scorecard": card, "manifest": run_manifest(stores, run.id),
            "rubric_versions": sorted(rubric_versions(stores, run.id)),
            "calibration": _calibration(stores, run, card), "judge_warning": _judge_warning(stores, run, card)}


def _judge(run: Run, card: dict[str, Any]) -> str:
    """The judge whose judgments the card counts (the run's own when the card names none)."""
    return str(card.get("judge_model") or run.models.get("judge") or "offline-heuristic")


def _judge_warning(stores: Stores, run: Run, card: dict[str, Any]) -> str | None:
    """The warning the card's judge carries (`usecases.fitted_judge_warning`), else None."""
    from polygon.usecases import fitted_judge_warning

    return fitted_judge_warning(stores, _judge(run, card))


def _calibration(stores: Stores, run: Run, card: dict[str, Any]) -> dict[str, Any]:
    """The calibration the card's judge shows on this run's calls (`usecases.shown_calibration`)."""
    from polygon.usecases import shown_calibration

    return shown_calibration(stores, [run.id], _judge(run, card), card.get("rubric_version") or run.rubric_version)


@router.get("/runs/{run_id}/conversations", **documented(ConversationPage))
def list_conversations(run_id: str, ctx: Ctx, offset: Offset = 0, limit: Limit = 50,
                       sort: str = "conversation_id", scenario: str | None = None,
                       verdict: str | None = None, end_reason: str | None = None,
                       caller_type: str | None = None, rubric_version: str | None = None,
                       gate: str | None = None, assertion: str | None = None,
                       q: str | None = None) -> dict[str, Any]:
    """One page of a run's conversations with their verdicts (`verdict=unjudged` for none),
    filtered by scenario, verdict, end reason, caller type, a fired `gate`, a failed `assertion`
    and `q` (a search over conversation and scenario ids); `/api/runs/{id}/facets` lists the values."""
    stores = ctx.stores()
    run = _run(stores, run_id)
    if sort not in CONVERSATION_SORTS:
        raise HTTPException(422, f"sort must be one of {', '.join(CONVERSATION_SORTS)}")
    total, items = conversation_list(
        stores, run, rubric_version=rubric_version, offset=offset, limit=limit, sort=sort, scenario=scenario,
        verdict=verdict, end_reason=end_reason, caller_type=caller_type, gate=gate, assertion=assertion, q=q)
    return page(total, offset, limit, items)


@router.get("/runs/{run_id}/conversations/{conversation_id}", **documented(ConversationView))
def get_conversation(run_id: str, conversation_id: str, ctx: Ctx,
                     rubric_version: str | None = None) -> dict[str, Any]:
    """A conversation as the viewer shows it: turns as said and as heard (distortions placed),
    tool calls, end reason, assertions, gate hits and evidence quotes at their turn, probe answers."""
    stores = ctx.stores()
    run = _run(stores, run_id)
    record = conversation_record(stores, run.id, conversation_id)
    if record is None:
        raise HTTPException(404, f"run {run.id} has no conversation {conversation_id!r}")
    try:
        conv = load_conversation(stores, run.id, conversation_id)
    except ArtifactNotFoundError:
        raise HTTPException(404, f"the transcript of {conversation_id!r} is missing from the artifact store") from None
    view = conversation_view(
        run, conv, assertions=record.assertions,
        judgments=conversation_judgments(stores, run.id, conversation_id),
        answers=conversation_probe_answers(stores, run.id, conversation_id),
        rubric_version=rubric_version)
    origin = call_origins(stores, [conversation_id]).get(conversation_id) if run.source == "production" else None
    return {**view, "origin": origin.as_dict() if origin else None}


@router.get("/runs/{run_id}/judgments", **documented(JudgmentPage))
def list_judgments(run_id: str, ctx: Ctx, offset: Offset = 0, limit: Limit = 50,
                   rubric_version: str | None = None) -> dict[str, Any]:
    """One page of a run's judgments in the order saved (all rubric versions unless one is named)."""
    stores = ctx.stores()
    run = _run(stores, run_id)
    total, items = judgment_page(stores, run.id, rubric_version=rubric_version, offset=offset, limit=limit)
    return page(total, offset, limit, [j.model_dump(mode="json", exclude={"raw"}) for j in items])


def _rates(stores: Stores, run: Run, summary: dict[str, Any] | None) -> list[ProbeRate]:
    if summary is not None and "probes" in summary:
        return [ProbeRate.model_validate(p) for p in summary["probes"]]
    return scorecard(stores, run.id).probes  # one answerer's answers, as a scorecard counts them


@router.get("/runs/{run_id}/probes", **documented(RunProbes))
def run_probes(run_id: str, ctx: Ctx) -> dict[str, Any]:
    """A run's probe conformance by the answerer its scorecard shows (the run's own, else the latest),
    per probe and wording hash, with Wilson 95% intervals."""
    stores = ctx.stores()
    run = _run(stores, run_id)
    rates = _rates(stores, run, None)
    return {"run_id": run.id, "items": [r.model_dump(mode="json") for r in rates]}


@router.get("/probes/trends", **documented(ProbeTrendsOut))
def probe_trends(ctx: Ctx, agent: str | None = None, suite: str | None = None,
                 probe: str | None = None, limit: Limit = 100) -> dict[str, Any]:
    """Each probe's conformance across runs (oldest first), split into segments of equal wording."""
    stores = ctx.stores()
    runs = [r for r in usecases.list_runs(stores, limit=None)
            if (agent is None or r.agent_name == agent) and (suite is None or r.suite == suite)][:limit]
    runs.reverse()  # oldest first: a trend reads left to right
    summaries = run_summaries(stores, [r.id for r in runs])
    points = [(r, [p for p in _rates(stores, r, summaries.get(r.id)) if probe is None or p.probe_id == probe])
              for r in runs]
    points = [(r, rates) for r, rates in points if rates]  # a run without probe answers draws nothing
    runs = [r for r, _ in points]
    return {"runs": [{"id": r.id, "agent_name": r.agent_name, "agent_version": r.agent_version,
                      "created_at": r.created_at} for r in runs],
            "series": probe_series(points)}


# -- calibrations --------------------------------------------------------------------------------


@router.get("/calibrations", **documented(CalibrationPage))
def list_calibrations(ctx: Ctx, offset: Offset = 0, limit: Limit = 50, judge_model: str | None = None,
                      rubric_version: str | None = None) -> dict[str, Any]:
    """Stored calibrations (`polygon calibrate`), newest first, optionally of one judge / rubric."""
    from polygon.usecases import calibration_page

    total, items = calibration_page(ctx.stores(), offset=offset, limit=limit, judge_model=judge_model,
                                    rubric_version=rubric_version)
    return page(total, offset, limit, [c.model_dump(mode="json") for c in items])



# -- admin -----------------------------------------------------------------------------------------


class RescoreBody(BaseModel):
    """What to re-score under."""

    model_config = ConfigDict(extra="forbid")
    rubric_version: str
    judge_model: str = "offline"


class ReprobeBody(BaseModel):
    """Which model answers the probes."""

    model_config = ConfigDict(extra="forbid")
    probe_model: str = "offline"


@router.post("/runs/{run_id}/rescore", **documented(RescoreOut), dependencies=[Depends(admin_access)], tags=["admin"])
def rescore(run_id: str, body: RescoreBody, ctx: Ctx) -> dict[str, Any]:
    """Judge every conversation of a run under a rubric version (adds judgments; admin scope)."""
    from polygon.usecases import rescore_run

    stores = ctx.stores()
    run = _run(stores, run_id)
    try:
        result = rescore_run(stores, run.id, rubric_version=body.rubric_version, judge_model=body.judge_model)
    except (ValueError, KeyError, FileNotFoundError) as exc:
        raise HTTPException(422, str(exc)) from None
    return dataclasses.asdict(result)


@router.post("/runs/{run_id}/reprobe", **documented(RescoreOut), dependencies=[Depends(admin_access)], tags=["admin"])
def reprobe(run_id: str, body: ReprobeBody, ctx: Ctx) -> dict[str, Any]:
    """Answer the probes again on every conversation of a run (adds answers; admin scope)."""
    from polygon.usecases import probe_run

    stores = ctx.stores()
    run = _run(stores, run_id)
    try:
        result = probe_run(stores, run.id, probe_model=body.probe_model)
        ctx.comparisons.clear()  # new answers: a cached comparison's probe rates are stale
    except (ValueError, KeyError, FileNotFoundError) as exc:
        raise HTTPException(422, str(exc)) from None
    return dataclasses.asdict(result)


@router.get("/access", **documented(Access))
def access(request: Request, ctx: Ctx) -> dict[str, Any]:
    """Who the caller is: the token's name and scope (or loopback access when no token is configured)."""
    token = authorize(request, ctx.tokens, "read")
    if token is None:
        return {"mode": "loopback", "name": None, "scope": "admin"}
    return {"mode": "token", "name": token.name, "scope": token.scope}
