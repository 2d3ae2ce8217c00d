"""The evaluate_suite flow: simulate every (scenario, seed), then judge, probe and aggregate."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast
from uuid import UUID

from polygon.flows._batch import batch_judge  # absolute: Prefect loads this file by path
from polygon.flows._progress import Progress
from polygon.flows._runner import on_cluster, run_on_cluster
from polygon.flows._story import run_tags, tag_flow_run
from polygon.tasks import (
    compare_runs_task,
    create_run_task,
    evaluate_conversation_task,
    finish_run_task,
    judge_task,
    probe_task,
    publish_artifacts_task,
)
from prefect import flow, get_run_logger, tags
from prefect.artifacts import create_progress_artifact, update_progress_artifact
from prefect.futures import as_completed
from prefect.runtime import flow_run
from prefect.task_runners import ThreadPoolTaskRunner

from polygon import usecases
from polygon_core.models import Run


def _conversations(run: Run, plan: list[tuple[str, int]], limit: int, step: Callable[[int], None],
                   stages: tuple[str, ...]) -> tuple[list[usecases.Evaluated], usecases.InFlight]:
    """Every conversation of one run as its own task, all on one event loop, `limit` at once.

    One Prefect client for the loop (Prefect would otherwise open one, with its TLS context, per
    task). A conversation whose task failed after its retries fails the flow, as before. Each task
    is given the run id, scenario, seed and stages only: it reads the rest from the stored run.
    """
    from prefect.context import AsyncClientContext

    per = 1 + len(stages)
    if on_cluster():  # the flow run's runner is Dask's: one submitted task per conversation (flows/_runner.py)
        return run_on_cluster(evaluate_conversation_task, run.id, plan, lambda _r: step(per), stages=stages)

    async def main() -> tuple[list[Any], usecases.InFlight]:
        async with AsyncClientContext.get_or_create():
            return await usecases.run_bounded(
                plan, lambda item: evaluate_conversation_task(run.id, *item, stages=stages),
                limit=limit, done=lambda _result: step(per))

    results, flight = asyncio.run(main())
    if flight.errors:
        raise flight.errors[0]
    return results, flight


def _send_progress(artifact_id: UUID, percent: float, description: str) -> None:
    # _sync: the progress thread has no event loop of its own, and Prefect would hand back a coroutine
    # where one runs.
    update_progress_artifact(artifact_id, percent, description=description, _sync=True)  # type: ignore[call-arg]


def _run_name() -> str:
    # "evaluate suite: agent@version, …" — what an operator scanning the Prefect UI looks for.
    params = flow_run.parameters
    runs: list[Any] = params.get("runs") or []
    agents = ", ".join(f"{r['agent_name']}@{r['agent_version'][:8]}" if isinstance(r, dict)
                       else f"{r.agent_name}@{r.agent_version[:8]}" for r in runs)
    return f"evaluate {Path(str(params.get('suite_path', ''))).name}: {agents}"


def _unfinished(status: str) -> Any:  # a Prefect FlowStateHook
    """A flow-run hook: the runs the flow run was evaluating and did not finish are marked `status`
    (`polygon runs` would otherwise list them as running for ever); they resume with their id."""

    def hook(_flow: Any, run: Any, _state: Any) -> None:
        ids = [r["id"] if isinstance(r, dict) else r.id for r in run.parameters.get("runs") or []]
        usecases.mark_unfinished(usecases.shared_stores(), ids, status)

    return hook


@flow(name="evaluate-suite", flow_run_name=_run_name,
      task_runner=ThreadPoolTaskRunner(max_workers=8),  # type: ignore[arg-type]
      on_failure=[_unfinished("failed")], on_crashed=[_unfinished("interrupted")],
      on_cancellation=[_unfinished("interrupted")])
def evaluate_suite(suite_path: str, runs: list[Run], agent_paths: list[str], repeats: int = 1, probes_path: str | None = None,
                   batch_judging: bool | None = None, scenarios: list[str] | None = None,
                   concurrency: int | None = None, line: usecases.LineRequest | None = None) -> list[dict]:
    """Evaluate one suite for each (run, agent) pair; returns each run's scorecard as a dict.

    Each conversation is one `evaluate-conversation` task (simulate, judge, probe); a run's
    conversations share one event loop, at most `concurrency` at once (None: the suite's
    `concurrency`, else POLYGON_CONCURRENCY; `usecases.run_concurrency`).

    `scenarios` (exact ids; None: all) narrows the plan to part of the suite (`polygon run --scenario`).

    `line` is the line the command line asked for (`--channel`, `--conditions`, `--stt-model`; None:
    the suite's and scenarios' own), recorded in each new run's manifest: the conversations read it
    from there (`usecases.call_plan`).

    With `batch_judging` (None: the suite's `batch_judging`), model-backed judge and probe passes go
    through the provider's batch API (the `batch-judge` subflow); conversations whose batch items
    failed are then judged live.
    """
    cards = []
    stores = usecases.shared_stores()
    # Recorded before any conversation (repeats and probes_path too, for a new run); a resumed run
    # comes back as it was stored, and from here on the stored runs are the one carrier.
    runs = [usecases.resumed_run(stores, run, asked=("seeds", "rubric_version", "agent_version")) for run in runs]
    for run, agent_path in zip(runs, agent_paths, strict=True):
        create_run_task(run, suite_path, agent_path, repeats=repeats, probes_path=probes_path, line=line,
                        scenarios=scenarios)
    plans = {r.id: usecases.plan_conversations(suite_path, r.seeds, scenarios, caches=stores.caches) for r in runs}
    logger = get_run_logger()  # its lines are kept on the flow run's page in the Prefect UI
    tag_flow_run(run_tags(runs))
    logger.info("evaluating suite %s: %s conversations per agent, agents %s, rubric %s", suite_path,
                "/".join(sorted({str(len(p)) for p in plans.values()})),
                ", ".join(f"{r.agent_name}@{r.agent_version[:8]} (run {r.id})" for r in runs),
                ", ".join(sorted({r.rubric_version for r in runs})))
    # Progress for the Prefect UI during long runs: simulate, judge and probe each conversation.
    total = 3 * sum(len(p) for p in plans.values())
    progress = Progress(cast(UUID, create_progress_artifact(0.0, description=f"0 of {total} steps")), total,
                        _send_progress, every=max(10, total // 100))  # bounded API traffic on big suites

    def step(n: int = 1) -> None:
        before = progress.finished
        progress.advance(n)  # never waits on the API: also called on the conversations' event loop
        if 10 * progress.finished // max(total, 1) > 10 * before // max(total, 1):  # each tenth
            logger.info("%d of %d steps (simulate, judge, probe per conversation) done", progress.finished, total)

    def advance(futures: list[Any]) -> None:
        for _ in as_completed(futures):
            step()

    try:
        limit = usecases.run_concurrency(concurrency, suite_path, stores.settings, caches=stores.caches)
        for run, agent_path in zip(runs, agent_paths, strict=True):
            carried = usecases.run_settings(stores, run.id)
            passes = usecases.batch_passes(carried.run, suite_path=suite_path, agent_path=agent_path,
                                           rubric_version=carried.rubric_version, repeats=carried.repeats,
                                           probes_path=carried.probes_path, enabled=batch_judging,
                                           caches=stores.caches)
            stages = tuple(k for k in usecases.STAGES if k not in {spec.kind for spec in passes})
            # The task reads the rest (files, rubric, repeats, probe library) from the run, as
            # create-run recorded it.
            done, flight = _conversations(run, plans[run.id], limit, step, stages)
            logger.info("run %s: %s", run.id, usecases.record_execution(stores, run.id, flight,
                                                                        limit, [r.simulated for r in done]))
            cids = [r.conversation_id for r in done]
            live: dict[str, list[str]] = {"judge": [], "probe": []}
            for spec in passes:
                with tags(*run_tags([run])):  # the batch-judge subflow carries the run's tags
                    live[spec.kind] = batch_judge(spec).failed
                step(len(cids) - len(live[spec.kind]))
            # Live passes for what the batch failed: they read rubric, repeats and probes from the run.
            judged = [judge_task.submit(run.id, cid) for cid in live["judge"]]
            probed = [probe_task.submit(run.id, cid) for cid in live["probe"]]
            advance([*judged, *probed])
            for future in [*judged, *probed]:
                future.result()
            card = finish_run_task(run.id)
            logger.info("run %s (%s@%s) finished: %d conversations, mean composite %s [95%% CI %s, %s] (rubric %s, "
                        "judge %s), verdicts %s, gate failures per gate %s", run.id, run.agent_name,
                        run.agent_version[:8], card.conversations, card.mean_composite, card.ci_low, card.ci_high,
                        card.rubric_version, card.judge_model, dict(card.verdicts), dict(card.gates) or "none")
            publish_artifacts_task(card)
            cards.append(card.model_dump(mode="json"))
    finally:
        progress.close()  # the final count, and the progress thread stopped, whatever happened
    # The matrix (and, with two or more agents, the comparison) as artifacts on this flow run.
    compare_runs_task([run.id for run in runs])
    return cards
