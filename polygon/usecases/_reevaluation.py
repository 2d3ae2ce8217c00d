"""Re-evaluation on a prompt commit: find the run to compare with, compare, store the report."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from polygon_core.compare import Scorecard
from polygon_core.models import Run
from polygon_core.reports import analysis_markdown, comparison_markdown, md_text, scorecard_markdown

from ._calibrations import shown_calibrations
from ._common import Stores
from ._compare import compare_runs
from ._results import scorecard

__all__ = ["previous_version_of", "previous_version_run", "reevaluation_key", "store_reevaluation_report",
           "version_comparison"]


def reevaluation_key(run_id: str) -> str:
    """Where a re-evaluation report lives in the artifact store."""
    return f"reports/{run_id}/reevaluation.md"


def previous_version_of(runs: Sequence[Run], new: Run) -> Run | None:
    """The latest complete run of the same agent on the same suite and rubric, at another version.

    `runs` come newest first (as `list_runs` returns them).
    """
    for run in runs:
        if (run.id != new.id and run.status == "complete" and run.source == "synthetic"
                and run.agent_name == new.agent_name and run.suite == new.suite
                and run.rubric_version == new.rubric_version and run.agent_version != new.agent_version):
            return run
    return None


def previous_version_run(stores: Stores, new: Run, previous_run_id: str | None = None) -> str | None:
    """The id of the run to compare with: `previous_run_id` (ValueError when it is not stored), else
    the previous version's latest complete run (None when there is none)."""
    if previous_run_id:
        found = stores.repo.get_run(previous_run_id)
        if found is None:
            raise ValueError(f"no run {previous_run_id!r} is stored")
        return found.id
    latest = previous_version_of(stores.repo.list_runs(limit=None), new)
    return latest.id if latest is not None else None


def version_comparison(stores: Stores, previous_run_id: str | None, run_id: str) -> str:
    """The comparison as Markdown, each scorecard with its judge's calibration line (only the new
    scorecard when there is nothing to compare with)."""
    if previous_run_id is None:
        new_card = scorecard(stores, run_id)
        (line,) = _calibration_lines(stores, [new_card])
        return ("No earlier version of this agent has a complete run on this suite: nothing to "
                "compare with yet.\n\n" + scorecard_markdown(new_card, line))
    comp = compare_runs(stores, [previous_run_id, run_id], baseline=previous_run_id)
    lines = _calibration_lines(stores, comp.cards)
    return "\n".join([*(scorecard_markdown(c, line) for c, line in zip(comp.cards, lines, strict=True)),
                      comparison_markdown(comp)])


def _calibration_lines(stores: Stores, cards: Sequence[Scorecard]) -> list[str]:
    """Each card's judge calibration line, by the rule every scorecard follows."""
    found = shown_calibrations(stores, [([c.run_id], c.judge_model, c.rubric_version) for c in cards])
    return [status["line"] for status in found]


def store_reevaluation_report(stores: Stores, run_id: str, header: dict[str, Any], body: str,
                              analysis: dict[str, Any] | None = None) -> tuple[str, str]:
    """Store the report next to the run's artifacts and link it from the run (marked complete);
    the prompt analysis (when it ran) is shown next to the results. Returns (its URI, its text)."""
    lines = ["# Re-evaluation on prompt commit", ""]
    # Header values come from the webhook payload or the agent file: literal text, never markup.
    lines += [f"- **{name}**: {md_text(value)}" for name, value in header.items() if value not in (None, "")]
    text = "\n".join([*lines, "", body, "", analysis_markdown(analysis) if analysis else ""])
    uri = stores.artifacts.put_text(reevaluation_key(run_id), text, content_type="text/markdown")
    stores.repo.set_run_status(run_id, "complete", report_uri=uri)
    return uri, text
