"""The import-calls and pull-calls flows: calls that arrived, imported (and graded) together.

`import-calls` runs on `polygon.calls.arrived` (a webhook's call, or S3 objects an event
notification named): it waits `settle_seconds` (the deployment's trigger fires at most once a
minute, whichever source the calls come from, so what arrives meanwhile joins this run), then
imports every waiting arrival, of every source, as one batch. `pull-calls` runs on a schedule: it lists each source's S3 prefix, records the new
objects and imports them the same way. Both grade a source's new calls at once when the source
says `grade_on_arrival`, emit one `polygon.calls.imported` event per source and batch, and show per
source how many files arrived and calls were imported, rejected and graded (a table artifact).
"""

from __future__ import annotations

import time
import uuid
from typing import Any

from polygon.flows._production import grade_planned_runs  # absolute: Prefect loads this file by path
from polygon.tasks import (
    configured_sources_task,
    import_arrivals_task,
    plan_arrival_runs_task,
    pull_source_task,
)
from prefect import flow, get_run_logger
from prefect.artifacts import create_markdown_artifact
from prefect.events import emit_event
from prefect.runtime import flow_run
from prefect.task_runners import ThreadPoolTaskRunner

from polygon import usecases
from polygon_core.events import CALLS_IMPORTED

__all__ = ["CALLS_IMPORTED", "NO_SOURCES", "import_and_grade", "import_arrived_calls", "pull_calls"]

#: What pull-calls says (and returns) when no sources are configured: nothing to pull, no failure.
NO_SOURCES = "no sources are configured (POLYGON_SOURCES): nothing to pull"


def _batch() -> str:
    # The flow run's id: a retried flow run imports (and grades) under the same batch.
    return str(flow_run.id or uuid.uuid4())


def import_and_grade(how: str, sources_file: str | None = None, only: str | None = None, *,
                     grade: bool = True) -> dict[str, Any]:
    """Import every waiting arrival as one batch, grade where configured (and `grade`), report and
    announce."""
    logger = get_run_logger()
    batch = _batch()
    sources = configured_sources_task(sources_file)
    reports = [usecases.ArrivalReport(**r) for r in import_arrivals_task(batch, sources_file, only)]
    for report in reports:
        source = sources[report.source]
        if grade and source["grade_on_arrival"] and report.external_ids:
            report.graded = _grade(report, batch, source)
        logger.info("source %s: %d file(s) arrived, %d call(s) imported, %d duplicate(s), %d rejected, "
                    "%d graded", report.source, report.arrived, report.imported, report.duplicates,
                    report.rejected, report.graded)
        if report.imported:
            emit_event(event=CALLS_IMPORTED, resource={"prefect.resource.id": f"polygon.calls.{report.source}"},
                       payload={"source": report.source, "batch": batch, "via": how, "imported": report.imported,
                                "rejected": report.rejected, "graded": report.graded})
    create_markdown_artifact(usecases.arrivals_markdown(reports, how=how), key="calls-imported",
                             description=f"calls imported per source ({how})")
    return {"batch": batch, "sources": [{k: v for k, v in vars(r).items() if k != "external_ids"}
                                        for r in reports]}


def _grade(report: usecases.ArrivalReport, batch: str, source: dict[str, Any]) -> int:
    planned = plan_arrival_runs_task(report.source, report.external_ids, batch, source["agent"],
                                     source.get("judge_model"))
    # The loop grade-production-calls grades with (run tags included); a source sets no batch judging.
    grade_planned_runs(planned, calls_of=f"{report.source} arrived in batch {batch}", agent_path=source["agent"])
    return sum(len(cids) for _, cids in planned)


def _run_name() -> str:
    # The run imports every source's calls, so its name says so; `source` only says which arrival
    # started it (a name of one source made a run look like that source's import).
    first = str(flow_run.parameters.get("source") or "")
    return "import arrived calls of every source" + (f" (first: {first})" if first else "")


@flow(name="import-calls", flow_run_name=_run_name,
      task_runner=ThreadPoolTaskRunner(max_workers=8))  # type: ignore[arg-type]
def import_arrived_calls(source: str = "", settle_seconds: float = 0.0,
                         sources_file: str | None = None) -> dict[str, Any]:
    """Import (and grade on arrival) every call waiting since the last import, of every source;
    `source` is the one whose event started this run (it is in the run's name, first)."""
    if settle_seconds > 0:
        time.sleep(settle_seconds)  # arrivals of the trigger's quiet window join this batch
    return import_and_grade("webhook", sources_file)


@flow(name="pull-calls", flow_run_name="pull calls from S3",
      task_runner=ThreadPoolTaskRunner(max_workers=8))  # type: ignore[arg-type]
def pull_calls(sources_file: str | None = None, source: str | None = None) -> dict[str, Any]:
    """List the S3 prefix of every source that has one (or of `source`), import every object not
    seen before (by key and ETag), and whatever else was waiting, as one batch. With no sources
    configured (no `sources_file`, no POLYGON_SOURCES) it completes at once with a note: the
    deployment is declared on every `polygon deploy`, and a schedule failing every 15 minutes on a
    machine without sources was 96 red runs a day."""
    sources = configured_sources_task(sources_file, required=False)
    if not sources:
        get_run_logger().info(NO_SOURCES)
        return {"new_objects": {}, "batch": None, "sources": [], "note": NO_SOURCES}
    names = [n for n, s in sources.items() if s["s3_prefix"] and (source is None or n == source)]
    new = {name: pull_source_task(name, sources_file) for name in names}
    get_run_logger().info("new objects per source: %s", new or "no source has an s3_prefix")
    return {"new_objects": new, **import_and_grade("s3-pull", sources_file)}
