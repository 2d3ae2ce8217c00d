"""The grade_production_calls flow: import a folder or s3:// prefix, then grade a date window."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from polygon.flows._batch import batch_judge  # absolute: Prefect loads this file by path
from polygon.flows._story import run_tags, tag_flow_run
from polygon.tasks import (
    finish_run_task,
    import_file_task,
    judge_production_task,
    list_call_files_task,
    plan_production_runs_task,
    probe_production_task,
)
from prefect import flow, get_run_logger, tags
from prefect.task_runners import ThreadPoolTaskRunner

from polygon import usecases
from polygon_core.compare import Scorecard
from polygon_core.models import Run


@flow(name="grade-production-calls", flow_run_name="grade calls {source} {since}..{until}",
      task_runner=ThreadPoolTaskRunner(max_workers=8))  # type: ignore[arg-type]
def grade_production_calls(source: str, since: str | None = None, until: str | None = None,
                           fmt: str | None = None, agent_path: str | None = None,
                           suite_path: str | None = None, rubric_version: str | None = None,
                           source_name: str | None = None, judge_model: str | None = None,
                           probe_model: str | None = None, batch_judging: bool = False) -> dict:
    """Import every file at `source` (a folder or s3:// prefix; skipped when `source` is the
    name of an already imported source), then grade its calls in [since, until] as production
    runs, judged and probed by `judge_model` / `probe_model` (default: POLYGON_JUDGE_MODEL /
    POLYGON_PROBE_MODEL), through the provider's batch API with `batch_judging` (calls whose
    batch items failed are then graded live). Returns the import summary and each run's scorecard."""
    name = source_name or source
    logger = get_run_logger()
    tag_flow_run(["polygon", "source:production", f"calls:{name}"])
    errors: list[Any] = []
    imported: dict[str, Any] = {"read": 0, "imported": 0, "duplicates": 0, "rejected": 0, "errors": errors}
    if usecases.is_call_location(source):
        futures = [import_file_task.submit(f, fmt, name, agent_path, suite_path)
                   for f in list_call_files_task(source)]
        for future in futures:
            part = future.result()
            for key in ("read", "imported", "duplicates", "rejected"):
                imported[key] += part[key]
            errors.extend(part["errors"])
        logger.info("imported %s: %d read, %d new, %d duplicates, %d rejected", source, imported["read"],
                    imported["imported"], imported["duplicates"], imported["rejected"])
    planned = plan_production_runs_task(name, since, until, rubric_version, agent_path, judge_model, probe_model)
    cards = [card.model_dump(mode="json") for card in grade_planned_runs(
        planned, calls_of=f"{name} from {since} to {until}", agent_path=agent_path, batch_judging=batch_judging)]
    return {"import": imported, "runs": cards}


def grade_planned_runs(planned: Sequence[tuple[Run, list[str]]], *, calls_of: str, agent_path: str | None,
                       batch_judging: bool = False) -> list[Scorecard]:
    """Judge, probe and finish each planned production run (the flow run tagged with it), through
    the provider's batch API with `batch_judging` (calls whose batch items failed are then graded
    live). The one grading loop of production runs: a date window's here, arrivals' in import-calls.
    `calls_of` says whose calls they are in the log ("prod from … to …")."""
    logger = get_run_logger()
    cards = []
    for run, cids in planned:
        tag_flow_run(run_tags([run]))
        logger.info("grading %d calls of %s as run %s (rubric %s)", len(cids), calls_of, run.id, run.rubric_version)
        live = {"judge": cids, "probe": cids}
        for spec in usecases.batch_passes(run, suite_path=None, agent_path=agent_path,
                                          rubric_version=run.rubric_version, enabled=batch_judging):
            with tags(*run_tags([run])):  # the batch-judge subflow carries the run's tags
                live[spec.kind] = batch_judge(spec).failed
        futures = [judge_production_task.submit(run.id, cid, agent_path) for cid in live["judge"]]
        futures += [probe_production_task.submit(run.id, cid, agent_path) for cid in live["probe"]]
        for future in futures:
            future.result()
        card = finish_run_task(run.id)
        logger.info("run %s finished: %d calls, mean composite %s [95%% CI %s, %s] (rubric %s, judge %s), verdicts %s",
                    run.id, card.conversations, card.mean_composite, card.ci_low, card.ci_high, card.rubric_version,
                    card.judge_model, dict(card.verdicts))
        cards.append(card)
    return cards
