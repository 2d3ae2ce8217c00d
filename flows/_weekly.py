"""The weekly production-grading flow: grade the last N days of production calls.

A cron schedule's parameters are fixed when the deployment is declared, so the window is computed
here, from the run's scheduled start (a late or re-run still grades the week it was meant for).
Besides `source` (a folder or s3:// prefix of exports), every source of the sources file
(POLYGON_SOURCES or `sources_file`) is graded: what arrived by webhook, S3 event or pull, after the
arrivals still waiting are imported. Without a sources file only `source` is graded.

`source` is read in `fmt` (default: each file's name says) and graded against `agent_path` and
`suite_path`, as `polygon deploy --production-format/--production-agent/--production-suite` set
them. Its rejected lines are logged (the first 20, then a count) and published in the run's
artifact, and a window in which every call read from it was rejected fails the run, after the
configured sources are graded.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from polygon.flows._import_calls import import_and_grade  # absolute: loaded by path
from polygon.flows._production import grade_production_calls
from polygon.tasks import configured_sources_task
from prefect import flow, get_run_logger
from prefect.artifacts import create_markdown_artifact
from prefect.runtime import flow_run

from polygon import usecases

__all__ = ["grading_window", "weekly_production_grading"]


def grading_window(end: datetime, days: int) -> tuple[str, str]:
    """(since, until) ISO times of the `days` days before `end`."""
    end = end.astimezone(UTC)
    return (end - timedelta(days=days)).isoformat(), end.isoformat()


@flow(name="weekly-production-grading", flow_run_name="grade the {days} days of calls from {source}")
def weekly_production_grading(source: str | None = None, days: int = 7, agent_path: str | None = None,
                              suite_path: str | None = None, rubric_version: str | None = None,
                              judge_model: str | None = None, probe_model: str | None = None,
                              batch_judging: bool = False, sources_file: str | None = None,
                              fmt: str | None = None) -> dict[str, Any]:
    """Import and grade the production calls of the `days` days before this run's scheduled start
    (judge and probe models: these parameters, else the worker's POLYGON_JUDGE_MODEL / _PROBE_MODEL;
    `batch_judging` sends model passes through the provider's batch API at half price; `fmt`: the
    import format of `source`'s files). Fails, naming the first reason, when every call read from
    `source` was rejected."""
    scheduled = flow_run.scheduled_start_time
    end = scheduled if scheduled is not None else datetime.now(UTC)
    since, until = grading_window(end, days)
    get_run_logger().info("grading the production calls of %s from %s to %s (%d days before %s)", source, since,
                          until, days, "the scheduled start" if scheduled is not None else "now")
    models = {"rubric_version": rubric_version, "judge_model": judge_model, "probe_model": probe_model,
              "batch_judging": batch_judging}
    graded = {} if source is None else grade_production_calls(
        source=source, since=since, until=until, fmt=fmt, agent_path=agent_path, suite_path=suite_path,
        **models)
    failed = None if source is None else _report_import(source, since, until, graded["import"], fmt)
    sources = configured_sources_task(sources_file, required=source is None)
    result = graded
    if sources:
        # Nothing still waiting is left out; it is graded once, by the window's run below, not also on arrival.
        arrivals = import_and_grade("weekly", sources_file, grade=False)
        per_source = {name: grade_production_calls(source=name, source_name=name, since=since, until=until,
                                                   agent_path=s["agent"], suite_path=s["suite"], **models)
                      for name, s in sources.items()}
        result = {**({"source": graded} if source is not None else {}), "arrivals": arrivals, "sources": per_source}
    if failed is not None:
        raise failed  # red in the UI: the export was not graded at all
    return result


def _report_import(source: str, since: str, until: str, imported: dict[str, Any],
                   fmt: str | None) -> usecases.AllCallsRejectedError | None:
    """Log the rejected lines' reasons (bounded) and publish the import's artifact; the error to
    fail the run with when every call read was rejected."""
    logger = get_run_logger()
    reasons = usecases.production_rejections(imported)
    if reasons:
        logger.warning("%d of %d calls read from %s were rejected:\n%s", imported["rejected"], imported["read"],
                       source, "\n".join(reasons))
    create_markdown_artifact(usecases.production_import_markdown(source, since, until, imported, fmt),
                             key="production-calls-imported", description=f"production calls imported from {source}")
    return usecases.all_production_rejected(source, imported, fmt)
