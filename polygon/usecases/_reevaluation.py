"""Re-evaluation on a prompt commit: find the run to compare with, compare, store the report; and
what the Prefect artifacts publish beside a scorecard or a comparison (the judge's calibration line
and a forced fitted judge's warning)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from polygon_core.compare import Scorecard
from polygon_core.models import Run
from polygon_core.reports import analysis_markdown, comparison_markdown, md_text, scorecard_markdown

from ._calibrations import shown_calibrations
from ._common import Stores
from ._compare import Comparison, compare_runs
from ._dispatch import fitted_judge_warning
from ._results import scorecard

__all__ = ["comparison_report", "previous_version_of", "previous_version_run", "reevaluation_key",
           "scorecard_notes", "store_reevaluation_report", "version_comparison"]


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
                "compare with yet.\n\n" + scorecard_markdown(new_card, line, _warning(stores, new_card)))
    comp = compare_runs(stores, [previous_run_id, run_id], baseline=previous_run_id)
    lines = _calibration_lines(stores, comp.cards)
    return "\n".join([*(scorecard_markdown(c, line, _warning(stores, c)) for c, line in zip(comp.cards, lines, strict=True)),
                      comparison_markdown(comp, _warnings(stores, comp))])


def scorecard_notes(stores: Stores, card: Scorecard) -> tuple[str, str | None]:
    """What a published scorecard shows beside its numbers: its judge's calibration line (the rule
    of `shown_calibration`) and the warning of a fitted judge stored with `--force` (else None)."""
    (line,) = _calibration_lines(stores, [card])
    return line, _warning(stores, card)


def comparison_report(stores: Stores, run_ids: Sequence[str]) -> tuple[Comparison, str]:
    """The runs compared (the first is the baseline) and the comparison as Markdown, with the warning
    of each forced fitted judge that judged one of them."""
    comp = compare_runs(stores, run_ids)
    return comp, comparison_markdown(comp, _warnings(stores, comp))


def _warning(stores: Stores, card: Scorecard) -> str | None:
    return fitted_judge_warning(stores, card.judge_model)


def _warnings(stores: Stores, comp: Comparison) -> dict[str, str | None]:
    """By run id, the warning of the fitted judge stored with --force that judged the run (else None)."""
    return {c.run_id: _warning(stores, c) for c in comp.cards}


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
