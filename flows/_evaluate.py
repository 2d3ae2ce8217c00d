"""The evaluate_suite flow: simulate every (scenario, seed), then judge, probe and aggregate."""

from __future__ import annotations

from prefect import flow
from prefect.task_runners import ThreadPoolTaskRunner

from polygon.tasks import (
    create_run_task,
    finish_run_task,
    judge_task,
    probe_task,
    publish_artifacts_task,
    simulate_task,
)
from polygon_core.adapters import pipeline
from polygon_core.models import Run


@flow(name="evaluate-suite", flow_run_name="evaluate {suite_path}",
      task_runner=ThreadPoolTaskRunner(max_workers=8))  # type: ignore[arg-type]
def evaluate_suite(suite_path: str, runs: list[Run], agent_paths: list[str],
                   seeds: list[int] | None = None, rubric_version: str = "v1",
                   repeats: int = 1) -> list[dict]:
    """Evaluate one suite for each (run, agent) pair; returns each run's scorecard as a dict."""
    cards = []
    plan = pipeline.plan_conversations(suite_path, seeds)
    for run, agent_path in zip(runs, agent_paths, strict=True):
        create_run_task(run, suite_path, agent_path)
        sims = [simulate_task.submit(run.id, suite_path, agent_path, sid, seed) for sid, seed in plan]
        cids = [s.result() for s in sims]
        judged = [judge_task.submit(run.id, cid, suite_path, agent_path, rubric_version, repeats)
                  for cid in cids]
        probed = [probe_task.submit(run.id, cid, suite_path, agent_path) for cid in cids]
        for future in [*judged, *probed]:
            future.result()
        card = finish_run_task(run.id)
        publish_artifacts_task(card)
        cards.append(card.model_dump(mode="json"))
    return cards
