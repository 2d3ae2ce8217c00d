"""The evaluate_suite flow: simulate every (scenario, seed), then judge, probe and aggregate."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast
from uuid import UUID

from polygon.flows._batch import batch_judge  # absolute: Prefect loads this file by path
from polygon.flows._story import run_tags, tag_flow_run
from polygon.tasks import (
    compare_runs_task,
    create_run_task,
    finish_run_task,
    judge_task,
    probe_task,
    publish_artifacts_task,
    simulate_task,
)
from prefect import flow, get_run_logger, tags
from prefect.artifacts import create_progress_artifact, update_progress_artifact
from prefect.futures import as_completed
from prefect.runtime import flow_run
from prefect.task_runners import ThreadPoolTaskRunner

from polygon import usecases
from polygon_core.models import Run


def _run_name() -> str:
    # "evaluate suite: agent@version, …" — what an operator scanning the Prefect UI looks for.
    params = flow_run.parameters
    runs: list[Any] = params.get("runs") or []
    agents = ", ".join(f"{r['agent_name']}@{r['agent_version'][:8]}" if isinstance(r, dict)
                       else f"{r.agent_name}@{r.agent_version[:8]}" for r in runs)
    return f"evaluate {Path(str(params.get('suite_path', ''))).name}: {agents}"


@flow(name="evaluate-suite", flow_run_name=_run_name,
      task_runner=ThreadPoolTaskRunner(max_workers=8))  # type: ignore[arg-type]
def evaluate_suite(suite_path: str, runs: list[Run], agent_paths: list[str],
                   seeds: list[int] | None = None, rubric_version: str = "v1",
                   repeats: int = 1, probes_path: str | None = None,
                   batch_judging: bool | None = None, scenarios: list[str] | None = None) -> list[dict]:
    """Evaluate one suite for each (run, agent) pair; returns each run's scorecard as a dict.

    `scenarios` (exact ids; None: all) narrows the plan to part of the suite (`polygon run --scenario`).

    With `batch_judging` (None: the suite's `batch_judging`), model-backed judge and probe passes go
    through the provider's batch API (the `batch-judge` subflow); conversations whose batch items
    failed are then judged live.
    """
    cards = []
    plan = usecases.plan_conversations(suite_path, seeds, scenarios)
    logger = get_run_logger()  # its lines are kept on the flow run's page in the Prefect UI
    tag_flow_run(run_tags(runs))
    logger.info("evaluating suite %s: %d conversations per agent, agents %s, rubric %s", suite_path, len(plan),
                ", ".join(f"{r.agent_name}@{r.agent_version[:8]} (run {r.id})" for r in runs), rubric_version)
    # Progress for the Prefect UI during long runs: simulate, judge and probe each conversation.
    total, finished = 3 * len(plan) * len(runs), 0
    progress = cast(UUID, create_progress_artifact(0.0, description=f"0 of {total} steps"))  # sync call

    def step(n: int = 1) -> None:
        nonlocal finished
        finished += n
        if finished % 10 < n or finished == total:  # bounded API traffic on big suites
            update_progress_artifact(progress, 100.0 * finished / max(total, 1),
                                     description=f"{finished} of {total} steps")
        if 10 * finished // max(total, 1) > 10 * (finished - n) // max(total, 1):  # each tenth
            logger.info("%d of %d steps (simulate, judge, probe per conversation) done", finished, total)

    def advance(futures: list[Any]) -> None:
        for _ in as_completed(futures):
            step()

    for run, agent_path in zip(runs, agent_paths, strict=True):
        create_run_task(run, suite_path, agent_path)
        sims = [simulate_task.submit(run.id, suite_path, agent_path, sid, seed) for sid, seed in plan]
        advance(sims)
        cids = [s.result() for s in sims]
        live = {"judge": cids, "probe": cids}
        passes = usecases.batch_passes(run, suite_path=suite_path, agent_path=agent_path,
                                       rubric_version=rubric_version, repeats=repeats,
                                       probes_path=probes_path, enabled=batch_judging)
        for spec in passes:
            with tags(*run_tags([run])):  # the batch-judge subflow carries the run's tags
                live[spec.kind] = batch_judge(spec).failed
            step(len(cids) - len(live[spec.kind]))
        judged = [judge_task.submit(run.id, cid, suite_path, agent_path, rubric_version, repeats)
                  for cid in live["judge"]]
        probed = [probe_task.submit(run.id, cid, suite_path, agent_path, probes_path) for cid in live["probe"]]
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
    # The matrix (and, with two or more agents, the comparison) as artifacts on this flow run.
    compare_runs_task([run.id for run in runs])
    return cards
