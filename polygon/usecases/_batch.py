"""Batch judging: a run's judge or probe pass through the OpenAI Batch API or Anthropic Message Batches.

Three steps, each a Prefect task in `flows/_batch.py`, each re-runnable:

1. `submit_batch_pass`: build the requests of every conversation the pass still lacks, answer what
   the record/replay cache holds, submit the rest (in chunks of `batch_max_requests`) and store the
   job under `runs/<run>/batches/<key>.json`. A job already submitted for the same pass is reused,
   so a retried or resumed flow never pays for a second batch.
2. `wait_for_batch_pass`: poll every batch of the job until it ends (or `batch_max_wait_hours`).
3. `collect_batch_pass`: read the results, map them back by custom id, store judgments or probe
   answers exactly as the live pass would, and write the usage ledger (batch tokens are discounted).

Conversations whose batch items failed are returned in `failed`; the evaluate flow judges those live.
A server with no batch API at all (a local llama.cpp, Ollama or vLLM: 404 on `/files`) is found by
the submission's first request, before anything is paid for: the job records why (`error`), and
collecting it stores every pending conversation as the live pass stores a failed judge (a
`judge_error` judgment, or `error` probe answers) with that reason, so the run ends, the CLI says
so in one line and exits 1, and a live `rescore` retries them. Polygon does not switch to live
judging by itself: batch judging was asked for at its price.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import Field

from polygon_core import content_hash
from polygon_core.adapters.providers import BatchStatus, NoBatchApi, UsageMeter, ledger_key, make_chat_model
from polygon_core.judging import (
    agent_failure,
    agent_failure_judgment,
    build_judgment,
    judge_error_judgment,
    probe_error_answers,
    probe_request,
    read_judge_reply,
    read_probe_reply,
    to_probe_answers,
)
from polygon_core.models import AssertionResult, Conversation, DomainModel, Run
from polygon_core.probes import Probe, default_probes
from polygon_core.providers import ChatRequest, ChatResponse
from polygon_core.scoring import DEFAULT_RUBRIC_VERSION, get_rubric

from ._common import FileCaches, Stores
from ._dispatch import judge_style
from ._extensions import batch_model_forms
from ._grade import (
    OFFLINE_NAMES,
    RescoreResult,
    _run_inputs,
    forbidden_phrases,
    judge_requests,
    probes_for,
    scorable,
)

__all__ = ["BatchJob", "BatchPass", "BatchTimeout", "batch_passes", "collect_batch_pass", "load_job",
           "rescore_batch_pass", "submit_batch_pass", "wait_for_batch_pass"]


class BatchTimeout(TimeoutError):
    """A batch did not end within `batch_max_wait_hours`; the job is kept and can be waited on again."""


class BatchPass(DomainModel):
    """One judge or probe pass over one run, through a batch API."""

    run_id: str
    kind: Literal["judge", "probe"]
    model: str = Field(..., description="the judge's or probe answerer's model name (not offline)")
    suite_path: str | None = Field(None, description="None for a production run (no scenarios)")
    agent_path: str | None = None
    rubric_version: str = DEFAULT_RUBRIC_VERSION
    repeats: int = Field(1, ge=1)
    probes_path: str | None = None

    @property
    def key(self) -> str:
        """Stable per pass: the same pass asked twice finds the same job."""
        what = self.model_dump(exclude={"run_id", "suite_path", "agent_path"})
        return f"{self.kind}-{content_hash(what, 12)}"


class BatchJob(DomainModel):
    """A submitted pass: which custom id is which conversation, and where it stands."""

    spec: BatchPass
    items: dict[str, tuple[str, int]] = Field(default_factory=dict,
                                              description="custom id → (conversation id, repeat)")
    batch_ids: list[str] = Field(default_factory=list)
    chunks: dict[str, list[str]] = Field(default_factory=dict, description="batch id → its custom ids")
    cached: list[str] = Field(default_factory=list, description="custom ids answered by the replay cache")
    unscored: list[str] = Field(default_factory=list)
    submitted_at: str = ""
    state: Literal["submitted", "ended", "collected"] = "submitted"
    statuses: list[BatchStatus] = Field(default_factory=list)
    error: str | None = Field(None, description="why nothing could be submitted (the server has no batch API)")


def job_key(run_id: str, key: str) -> str:
    """Where a pass's job record lives in the artifact store."""
    return f"runs/{run_id}/batches/{key}.json"


def load_job(stores: Stores, run_id: str, key: str) -> BatchJob | None:
    """The stored job of a pass, if it was submitted."""
    path = job_key(run_id, key)
    if not stores.artifacts.exists(path):
        return None
    return BatchJob.model_validate_json(stores.artifacts.get_text(path))


def _save(stores: Stores, job: BatchJob) -> None:
    stores.artifacts.put_text(job_key(job.spec.run_id, job.spec.key), job.model_dump_json(indent=2))


# -- what a pass asks, per conversation ---------------------------------------------------------


@dataclass
class _Work:
    conv: Conversation
    scenario: Any  # None on a production run
    requests: list[ChatRequest]
    probes: list[Probe]  # the probes answered (asked, plus not-applicable ones on a production run)
    production: bool = False
    assertions: list[AssertionResult] = field(default_factory=list)  # for rubric v3's assertion gate


def _run(stores: Stores, run_id: str) -> Run:
    run = stores.repo.get_run(run_id, exact=True)
    if run is None:
        raise ValueError(f"no run {run_id!r} is stored (see `polygon runs`)")
    return run


def _probes(stores: Stores, spec: BatchPass) -> list[Probe]:
    return stores.caches.probes(spec.probes_path) if spec.probes_path else default_probes()


def _done(stores: Stores, spec: BatchPass) -> set[str]:
    """Conversations this pass has already answered (by this model): never asked twice."""
    if spec.kind == "judge":
        return {j.conversation_id for j in stores.repo.judgments(spec.run_id, spec.rubric_version)
                if j.judge_model == spec.model and j.status != "judge_error"}
    return {a.conversation_id for a in stores.repo.probe_answers(spec.run_id) if a.answered_by == spec.model}


def _work(stores: Stores, spec: BatchPass, only: set[str] | None = None) -> Iterator[_Work | str]:
    """Each pending conversation's requests; an unscorable conversation's id as a plain string.

    A production run has no scenarios: its checks are the production ones, the judge gets no
    persona, and probes that need ground truth are not asked (they are stored `na`).
    """
    from polygon_core.imports import NOT_APPLICABLE_PROBES  # here: a run imports this module, rarely batches
    run = _run(stores, spec.run_id)
    production = run.source == "production"
    done = _done(stores, spec)
    prompt = stores.caches.agent(spec.agent_path)[1] if spec.agent_path else None
    rubric = get_rubric(spec.rubric_version)
    library = _probes(stores, spec) if spec.kind == "probe" else []
    for item in scorable(stores, run, spec.suite_path, spec.agent_path, skip=done, only=only):
        if isinstance(item, str):
            yield item
            continue
        conv, checks, scenario = item
        if spec.kind == "judge":
            broken = agent_failure(conv)
            if broken is not None:
                # A broken call is never sent to a judge: it is the agent's failure, stored now.
                stores.repo.save_judgment(spec.run_id, agent_failure_judgment(
                    conv, broken, rubric_version=rubric.version, judge_model=spec.model))
                continue
            yield _Work(conv, scenario, judge_requests(
                conv, rubric=rubric, persona=scenario.persona if scenario else None, instructions=prompt,
                checks=checks, repeats=spec.repeats, style=judge_style(spec.model)), [], production,
                list(checks.assertions))
            continue
        answered = probes_for(scenario, library)
        asked = [p for p in answered if not (production and p.id in NOT_APPLICABLE_PROBES)]
        if asked:
            yield _Work(conv, scenario, [probe_request(conv, asked, checks=checks, style=judge_style(spec.model))],
                        answered, production)


def _custom_id(spec: BatchPass, index: int) -> str:
    # Short and plain: Anthropic allows 1-64 of [A-Za-z0-9_-]; conversation ids can be longer.
    return f"{spec.kind[0]}{index:07d}"


# -- the three steps ----------------------------------------------------------------------------


def _model(stores: Stores, name: str, meter: UsageMeter | None = None) -> Any:
    model = make_chat_model(name, stores.settings, meter=meter)
    if not getattr(model, "supports_batch", False):
        raise ValueError(f"model {name!r} cannot take batches: batch judging needs a judge "
                         f"with a batch API ({batch_model_forms()}); the offline judge has nothing to send")
    return model


def _in_loop(model: Any, steps: Callable[[], Any]) -> Any:
    async def go() -> Any:
        try:
            return await steps()
        finally:
            await model.aclose()

    return asyncio.run(go())


def _requests_of(stores: Stores, job: BatchJob, only: set[str] | None = None) -> tuple[
        dict[str, ChatRequest], dict[str, _Work]]:
    """Rebuild the job's requests (deterministic from the stored conversations) by custom id."""
    wanted = {cid for cid, _ in job.items.values()} if only is None else only
    works = {w.conv.id: w for w in _work(stores, job.spec, wanted) if isinstance(w, _Work)}
    requests = {custom: works[cid].requests[i] for custom, (cid, i) in job.items.items() if cid in works}
    return requests, works


def submit_batch_pass(stores: Stores, spec: BatchPass) -> BatchJob:
    """Submit the pass's pending requests as batches (or reuse the job already submitted)."""
    if spec.model in OFFLINE_NAMES:
        raise ValueError(f"batch judging needs a model with a batch API ({batch_model_forms()}); the "
                         "offline judge has nothing to send")
    existing = load_job(stores, spec.run_id, spec.key)
    if existing is not None and existing.state != "collected":
        return existing
    job = BatchJob(spec=spec, submitted_at=datetime.now(UTC).isoformat(timespec="seconds"))
    requests: dict[str, ChatRequest] = {}
    for work in _work(stores, spec):
        if isinstance(work, str):
            job.unscored.append(work)
            continue
        for i, request in enumerate(work.requests):
            custom = _custom_id(spec, len(job.items))
            job.items[custom] = (work.conv.id, i)
            requests[custom] = request
    model = _model(stores, spec.model)
    job.cached = sorted(model.cached_replies(requests))  # replay: every request must be here
    pending = {cid: r for cid, r in requests.items() if cid not in set(job.cached)}
    size = stores.settings.batch_max_requests
    chunks = [dict(list(pending.items())[i:i + size]) for i in range(0, len(pending), size)]

    async def submit_all() -> None:
        for chunk in chunks:
            batch_id = await model.submit_batch(chunk)
            job.batch_ids.append(batch_id)
            job.chunks[batch_id] = list(chunk)
            _save(stores, job)  # after each batch: a crash here loses no batch already paid for

    if chunks:
        try:
            _in_loop(model, submit_all)
        except NoBatchApi as exc:  # found on the first request: nothing was submitted
            if job.batch_ids:
                raise
            job.error, job.state = str(exc), "ended"
    else:
        job.state = "ended"  # nothing to send: every request was cached, or nothing is pending
    _save(stores, job)
    return job


def wait_for_batch_pass(stores: Stores, run_id: str, key: str, *,
                        on_status: Callable[[list[BatchStatus]], None] | None = None,
                        sleep: Callable[[float], None] = time.sleep) -> BatchJob:
    """Poll the job's batches every `batch_poll_seconds` until all have ended."""
    job = load_job(stores, run_id, key)
    if job is None:
        raise ValueError(f"run {run_id!r} has no submitted batch pass {key!r}")
    if job.state != "submitted":
        return job
    model = _model(stores, job.spec.model)
    deadline = time.monotonic() + stores.settings.batch_max_wait_hours * 3600

    batch_ids = job.batch_ids

    async def poll() -> list[BatchStatus]:
        return [await model.batch_status(b) for b in batch_ids]

    while True:
        statuses = _in_loop(model, poll)
        if on_status is not None:
            on_status(statuses)
        if all(s.done for s in statuses):
            break
        if time.monotonic() >= deadline:
            raise BatchTimeout(f"run {run_id}: batches {', '.join(job.batch_ids)} still running after "
                               f"{stores.settings.batch_max_wait_hours:g} h; wait again later")
        sleep(stores.settings.batch_poll_seconds)
    job = job.model_copy(update={"statuses": statuses, "state": "ended"})
    _save(stores, job)
    return job


def collect_batch_pass(stores: Stores, run_id: str, key: str) -> RescoreResult:
    """Store what the ended batches answered; conversations with a failed item go to `failed`."""
    job = load_job(stores, run_id, key)
    if job is None:
        raise ValueError(f"run {run_id!r} has no submitted batch pass {key!r}")
    spec = job.spec
    result = RescoreResult(run_id=run_id, judge_model=spec.model,
                           rubric_version=spec.rubric_version if spec.kind == "judge" else None,
                           unscored=list(job.unscored))
    if job.state == "submitted":
        raise ValueError(f"run {run_id}: batch pass {key} has not ended yet (wait for it first)")
    requests, works = _requests_of(stores, job)
    if job.error is not None:
        return _store_failures(stores, job, works, result)
    meter = UsageMeter()
    model = _model(stores, spec.model, meter)
    replies: dict[str, ChatResponse] = model.cached_replies(
        {c: requests[c] for c in job.cached if c in requests})
    errors: dict[str, str] = {}

    async def read_all() -> None:
        for batch_id in job.batch_ids:
            chunk = {c: requests[c] for c in job.chunks.get(batch_id, []) if c in requests}
            for outcome in await model.batch_results(batch_id, chunk) if chunk else []:
                if outcome.response is not None:
                    replies[outcome.custom_id] = outcome.response
                else:
                    errors[outcome.custom_id] = outcome.error or "no result"

    if job.batch_ids and requests:
        _in_loop(model, read_all)
    by_conv: dict[str, dict[int, ChatResponse]] = {}
    for custom, reply in replies.items():
        cid, i = job.items[custom]
        by_conv.setdefault(cid, {})[i] = reply
    for cid, work in works.items():
        got = by_conv.get(cid, {})
        if len(got) < len(work.requests):
            result.failed.append(cid)  # a missing repeat: no judgment rather than a partial one
            continue
        result.added += _store(stores, spec, work, [got[i] for i in range(len(work.requests))])
    result.skipped = sorted({cid for cid, _ in job.items.values()} - set(works))
    # One ledger per submission (a later pass over the same key adds its own, never overwrites).
    tag = job.batch_ids[0] if job.batch_ids else "cached-" + job.submitted_at.replace(":", "")
    stores.artifacts.put_text(ledger_key(run_id, spec.kind, f"batch-{key}-{tag}"), meter.to_json())
    _save(stores, job.model_copy(update={"state": "collected"}))
    return result


def _store_failures(stores: Stores, job: BatchJob, works: dict[str, _Work], result: RescoreResult) -> RescoreResult:
    """A job that could not be submitted: every pending conversation stored as a failed judge (or
    answerer) with the job's reason, as the live pass stores one; a live pass retries them."""
    from polygon_core.imports import mark_probes_not_applicable
    spec, reason = job.spec, str(job.error)
    for cid, work in works.items():
        if spec.kind == "judge":
            stores.repo.save_judgment(spec.run_id, judge_error_judgment(
                cid, reason, rubric_version=get_rubric(spec.rubric_version).version, judge_model=spec.model))
        else:
            answers = probe_error_answers(cid, work.probes, reason, answered_by=spec.model)
            stores.repo.save_probe_answers(spec.run_id, mark_probes_not_applicable(answers) if work.production
                                           else answers)
        result.errors[cid] = reason
    result.skipped = sorted({cid for cid, _ in job.items.values()} - set(works))
    _save(stores, job.model_copy(update={"state": "collected"}))
    return result


def _store(stores: Stores, spec: BatchPass, work: _Work, replies: list[ChatResponse]) -> int:
    """Judgment or probe answers from a conversation's replies, as the live pass stores them."""
    from polygon_core.imports import NOT_APPLICABLE_CRITERIA, NOT_APPLICABLE_PROBES, mark_probes_not_applicable
    if spec.kind == "judge":
        rubric = get_rubric(spec.rubric_version)
        raws = [read_judge_reply(r, rubric) for r in replies]
        judgment = build_judgment(work.conv, raws, rubric_version=rubric.version, judge_model=spec.model,
                                  forbidden_phrases=forbidden_phrases(stores, work.scenario, spec.agent_path),
                                  not_applicable=list(NOT_APPLICABLE_CRITERIA) if work.production else (),
                                  assertions=work.assertions)
        stores.repo.save_judgment(spec.run_id, judgment)
        return 1
    asked = [p for p in work.probes if not (work.production and p.id in NOT_APPLICABLE_PROBES)]
    answers = to_probe_answers(work.conv.id, work.probes, read_probe_reply(replies[0], asked, work.conv),
                               answered_by=spec.model)
    if work.production:
        answers = mark_probes_not_applicable(answers)
    stores.repo.save_probe_answers(spec.run_id, answers)
    return len(answers)


def batch_passes(run: Run, *, suite_path: str | None, agent_path: str | None, rubric_version: str,
                 repeats: int = 1, probes_path: str | None = None,
                 enabled: bool | None = None, caches: FileCaches | None = None) -> list[BatchPass]:
    """The passes of a run that go through a batch API: its model-backed judge and probe roles.

    `enabled` None leaves it to the suite's `batch_judging` (a production run has no suite: off);
    False gives none. Offline roles are computed locally (there is nothing to batch). `probes_path`
    is the run's library as `create_run` recorded it (`RunSettings.probes_path`; None: the bundled
    one), never resolved again here, so the batch pass asks what the live pass asks. `caches` (a
    `Stores`' own) saves parsing a suite read before.
    """
    caches = caches or FileCaches()
    if enabled is None:
        enabled = bool(suite_path) and caches.suite(str(suite_path)).config.batch_judging
    if not enabled:
        return []
    passes = []
    for kind in ("judge", "probe"):
        model = run.models.get(kind) or "offline"
        if model not in OFFLINE_NAMES:
            passes.append(BatchPass(run_id=run.id, kind=kind, model=model, suite_path=suite_path,
                                    agent_path=agent_path, rubric_version=rubric_version,
                                    repeats=repeats if kind == "judge" else 1, probes_path=probes_path))
    return passes


def rescore_batch_pass(stores: Stores, run_id: str, *, kind: Literal["judge", "probe"], model: str,
                       rubric_version: str | None = None, repeats: int = 1, probes_path: str | None = None,
                       suite_path: str | None = None, agent_path: str | None = None) -> BatchPass:
    """The batch pass that `polygon rescore --batch` / `polygon probe --batch` runs on a stored run.

    Checked as the live rescore is: the run exists, its suite and agent files are the ones it was
    made from, the rubric and probe library load, and the model name (and its key) is usable.
    Without `rubric_version`, the run's own.
    """
    if model in OFFLINE_NAMES:
        raise ValueError(f"--batch needs a model with a batch API ({batch_model_forms()}); the offline "
                         "judge has nothing to send")
    if repeats < 1:
        raise ValueError(f"--repeats must be at least 1, got {repeats}")
    run, suite, agent = _run_inputs(stores, run_id, suite_path, agent_path)
    rubric = get_rubric(rubric_version or run.rubric_version)
    spec = BatchPass(run_id=run.id, kind=kind, model=model, suite_path=suite, agent_path=agent,
                     rubric_version=rubric.version, repeats=repeats, probes_path=probes_path)
    _probes(stores, spec)  # a bad probe file fails before anything is sent
    _model(stores, model)  # a bad name, a missing key or a model that cannot batch, before sending
    return spec
