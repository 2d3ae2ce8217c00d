"""The reevaluate_on_prompt_commit flow: a committed prompt → analysis, fresh personas, a run of the
suite, a comparison with the previous version, a published report.

The `reevaluate-on-prompt-commit` deployment runs it when the Prefect event `polygon.prompt.committed`
arrives (from `polygon prompt commit`, the git post-commit hook or the signed webhook). Its suite run
is an evaluate_suite subflow on the task runner `POLYGON_TASK_RUNNER` names on that worker
(`flows/_runner.py`).
"""

from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path
from typing import Any, cast
from uuid import UUID

from polygon.flows._evaluate import (
    evaluate_suite,  # absolute: Prefect loads this file by path
)
from polygon.flows._runner import task_runner
from polygon.flows._story import run_tags, tag_flow_run
from polygon.tasks import (
    compare_versions_task,
    new_version_run_task,
    previous_version_run_task,
    publish_report_task,
)
from prefect import flow, get_run_logger, tags
from prefect.artifacts import create_progress_artifact, update_progress_artifact
from prefect.runtime import flow_run

from polygon import usecases

__all__ = ["reevaluate_on_prompt_commit"]

STEPS = ("analyse prompt", "regenerate personas", "evaluate suite", "compare", "publish report")


def _optional(module: str, name: str) -> Any:
    """A flow or task another part of Polygon provides, or None while it does not exist yet."""
    if importlib.util.find_spec(module) is None:
        return None
    return getattr(importlib.import_module(module), name, None)


def _slug(text: str) -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in text.lower()).strip("-")


def _run_name() -> str:
    params = flow_run.parameters
    return f"reevaluate {Path(str(params['agent_path'])).stem} prompt={str(params['prompt_hash'])[:16]}"


@flow(name="reevaluate-on-prompt-commit", flow_run_name=_run_name)
def reevaluate_on_prompt_commit(agent_path: str, prompt_hash: str, suite_path: str,
                                previous_run_id: str | None = None, seeds: list[int] | None = None,
                                rubric_version: str | None = None) -> dict[str, Any]:
    """Re-evaluate an agent whose prompt was committed, and compare it with its previous version.

    Paths are resolved against the working directory (a worker's checkout of the repository).
    Re-running the same flow run (a crashed worker, a Prefect retry) keeps its run id, so the
    evaluation resumes: stored conversations are skipped, missing ones are run.
    """
    agent = str(Path(agent_path).resolve())
    suite = str(Path(suite_path).resolve())
    previous = previous_run_id or None  # an absent payload field arrives as ""
    # Read here, on the worker, as `polygon run` reads it (a subflow would otherwise keep
    # evaluate_suite's declared threads); a bad value fails before anything is recorded.
    runner = task_runner(usecases.shared_stores().settings.concurrency)  # POLYGON_TASK_RUNNER
    run_id = f"reeval-{_slug(prompt_hash)[-12:]}-{str(flow_run.id or 'local')[:8]}"
    progress = cast(UUID, create_progress_artifact(0.0, description=f"re-evaluation of {Path(agent_path).name}"))
    done: list[str] = []
    logger = get_run_logger()

    def step(name: str) -> None:
        done.append(name)
        logger.info("step %d of %d, %s: done", len(done), len(STEPS), name)
        update_progress_artifact(progress, 100.0 * len(done) / len(STEPS),
                                 description=f"{name}: done")

    run = new_version_run_task(run_id, suite, agent, seeds, rubric_version)
    run_labels = run_tags([run], prompt=prompt_hash[:16])
    tag_flow_run(run_labels)
    logger.info("re-evaluating %s at version %s (prompt %s) on %s as run %s", agent_path, run.agent_version[:12],
                prompt_hash[:16], suite_path, run.id)
    with tags(*run_labels):
        analysis = None
        analyse = _optional("polygon.tasks._analysis", "analyze_prompt_task")
        if analyse is not None:
            analysis = analyse(agent)
        step(STEPS[0])
        regenerate = _optional("polygon.flows._personas", "regenerate_personas")
        if regenerate is not None:
            regenerate(agent_path=agent)
        step(STEPS[1])
        evaluate_suite.with_options(task_runner=runner)(
            suite_path=suite, runs=[run], agent_paths=[agent])
        step(STEPS[2])
        baseline = previous_version_run_task(run, previous)
        body = compare_versions_task(baseline, run.id)
        step(STEPS[3])
        header = {"agent": f"{run.agent_name} ({agent_path})", "version": run.agent_version,
                  "prompt": prompt_hash, "run": run.id, "compared with": baseline or "nothing yet",
                  "prompt analysis": "stored under analyses/ in the artifact store"
                  if analysis is not None else None}
        uri = publish_report_task(run.id, header, body, analysis)
        step(STEPS[4])
    logger.info("re-evaluation of %s: run %s compared with %s; report at %s", agent_path, run.id,
                baseline or "nothing yet (no earlier version)", uri)
    return {"run_id": run.id, "agent_version": run.agent_version, "previous_run_id": baseline,
            "report_uri": uri}
