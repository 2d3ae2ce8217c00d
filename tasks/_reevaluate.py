"""Tasks of the reevaluate_on_prompt_commit flow: identify the new version, find the previous one,
compare them and publish the report."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from prefect import task
from prefect.artifacts import create_markdown_artifact

from polygon import usecases
from polygon_core.compare import Scorecard
from polygon_core.models import Run
from polygon_core.reports import matrix_markdown, scorecard_markdown

from ._stores import task_stores

__all__ = [
    "compare_versions_task",
    "new_version_run_task",
    "previous_version_run",
    "previous_version_run_task",
    "publish_report_task",
    "report_key",
]



def report_key(run_id: str) -> str:
    """Where a re-evaluation report lives in the artifact store."""
    return f"reports/{run_id}/reevaluation.md"


@task(name="new-version-run", retries=2, retry_delay_seconds=1,
      task_run_name="new run {run_id}")
def new_version_run_task(run_id: str, suite_path: str, agent_path: str, seeds: list[int] | None,
                         rubric_version: str | None) -> Run:
    """The Run of the committed agent version (not stored yet: evaluate_suite records it).

    Role models come from the suite config and settings, as for `polygon run`."""
    return usecases.new_run(agent_path, suite_path, seeds=seeds, rubric=rubric_version, run_id=run_id)


def previous_version_run(runs: Sequence[Run], new: Run) -> Run | None:
    """The latest complete run of the same agent on the same suite and rubric, at another version.

    `runs` come newest first (as `Repository.list_runs` returns them).
    """
    for run in runs:
        if (run.id != new.id and run.status == "complete" and run.source == "synthetic"
                and run.agent_name == new.agent_name and run.suite == new.suite
                and run.rubric_version == new.rubric_version and run.agent_version != new.agent_version):
            return run
    return None


@task(name="previous-version-run", retries=2, retry_delay_seconds=1,
      task_run_name="previous version of {new.agent_name}")
def previous_version_run_task(new: Run, previous_run_id: str | None = None) -> str | None:
    """The run to compare with: the given one, or the previous version's latest complete run."""
    stores = task_stores()
    if previous_run_id:
        found = stores.repo.get_run(previous_run_id)
        if found is None:
            raise ValueError(f"no run {previous_run_id!r} is stored")
        return found.id
    found = previous_version_run(stores.repo.list_runs(limit=None), new)
    return found.id if found is not None else None


@task(name="compare-versions", retries=1, task_run_name="compare {previous_run_id} → {run_id}")
def compare_versions_task(previous_run_id: str | None, run_id: str) -> str:
    """The comparison as markdown (only the new scorecard when there is nothing to compare with)."""
    from polygon_core import reports

    stores = task_stores()
    new_card = usecases.scorecard(stores, run_id)
    if previous_run_id is None:
        (line,) = _calibration_lines(stores, [new_card])
        return ("No earlier version of this agent has a complete run on this suite: nothing to "
                "compare with yet.\n\n" + scorecard_markdown(new_card, line))
    comp = usecases.compare_runs(stores, [previous_run_id, run_id], baseline=previous_run_id)
    full = getattr(reports, "comparison_markdown", None)  # the richer report, when exported
    body = full(comp) if full is not None else matrix_markdown(comp.matrix, [c.label for c in comp.cards])
    lines = _calibration_lines(stores, comp.cards)
    return "\n".join([*(scorecard_markdown(c, line) for c, line in zip(comp.cards, lines, strict=True)), body])


def _calibration_lines(stores: usecases.Stores, cards: Sequence[Scorecard]) -> list[str]:
    """Each card's judge calibration line, by the rule every scorecard follows."""
    found = usecases.shown_calibrations(stores, [([c.run_id], c.judge_model, c.rubric_version) for c in cards])
    return [status["line"] for status in found]


@task(name="publish-report", retries=2, retry_delay_seconds=1, task_run_name="publish report {run_id}")
def publish_report_task(run_id: str, header: dict[str, Any], body: str,
                        analysis: dict[str, Any] | None = None) -> str:
    """Store the report next to the run's artifacts, link it from the run, show it in Prefect.

    The prompt analysis (when it ran) is shown next to the results."""
    from polygon_core.reports import analysis_markdown, md_text

    stores = task_stores()
    lines = ["# Re-evaluation on prompt commit", ""]
    # Header values come from the webhook payload or the agent file: literal text, never markup.
    lines += [f"- **{name}**: {md_text(value)}" for name, value in header.items() if value not in (None, "")]
    text = "\n".join([*lines, "", body, "", analysis_markdown(analysis) if analysis else ""])
    uri = stores.artifacts.put_text(report_key(run_id), text, content_type="text/markdown")
    stores.repo.set_run_status(run_id, "complete", report_uri=uri)
    key = "reevaluation-" + "".join(ch if ch.isalnum() else "-" for ch in run_id.lower())
    create_markdown_artifact(key=key, markdown=text, description=f"Re-evaluation report of run {run_id}")
    return uri
