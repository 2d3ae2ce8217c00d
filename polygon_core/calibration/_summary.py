"""The one line a scorecard shows about its judge's calibration (CLI, compare, HTML, web, Prefect).

Which record a scorecard shows is decided over the stores (`polygon.usecases.shown_calibration`);
this module only says it: a record about the card's own calls with its rho and the data's name, a
record about other calls by its data's name alone, or "not calibrated" (docs/calibration.md).
"""

from __future__ import annotations

from typing import Any, Literal

from ._calibrate import Calibration
from ._types import OVERALL

__all__ = ["EARLIER_PROMPT", "MATCHES", "ON_THESE_CALLS", "Match", "calibration_line", "calibration_status", "format_estimate"]

EARLIER_PROMPT = "calibrated for an earlier prompt"

Match = Literal["same_run", "same_calls", "same_source", "other_calls", "none"]
"""How the shown record relates to the card's calls: measured on its run, on some of its calls (an
imported call graded in several runs), on calls of the same import source, on other calls only (the
line names the data, never its rho), or no record at all."""

MATCHES: tuple[Match, ...] = ("same_run", "same_calls", "same_source", "other_calls", "none")
ON_THESE_CALLS: frozenset[str] = frozenset({"same_run", "same_calls", "same_source"})


def _num(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def format_estimate(value: float | None, low: float | None, high: float | None) -> str:
    """`0.52 [0.44, 0.60]`; `—` when undefined; the interval left off when it is."""
    if value is None:
        return "—"
    if low is None or high is None:
        return _num(value)
    return f"{_num(value)} [{_num(low)}, {_num(high)}]"


def calibration_status(calibration: Calibration | None, match: Match, *, judge_model: str, rubric_version: str,
                       current_prompt_hash: str | None) -> dict[str, Any]:
    """The calibration a scorecard shows, as plain data (for JSON and for `calibration_line`).

    `calibrated` is True only for a record about the card's calls (`match` one of same_run,
    same_calls, same_source); the rho is given only then. A record about other calls is named by
    its data (`dataset`, `n`) with `calibrated` False. `current` is False when the record was made
    for another judge prompt than today's.
    """
    line = calibration_line(calibration, match, judge_model=judge_model, rubric_version=rubric_version,
                            current_prompt_hash=current_prompt_hash)
    on = calibration is not None and match in ON_THESE_CALLS
    base: dict[str, Any] = {"judge_model": judge_model, "rubric_version": rubric_version, "calibrated": on,
                            "match": match if calibration is not None else "none", "line": line}
    if calibration is None:
        return base
    base.update(dataset=calibration.dataset, sample=calibration.sample,
                labels_recorded=calibration.labels is not None, n=calibration.n, run_id=calibration.run_id,
                labels_hash=calibration.labels_hash, judge_prompt_hash=calibration.judge_prompt_hash,
                current=current_prompt_hash is None or current_prompt_hash == calibration.judge_prompt_hash,
                created_at=calibration.created_at)
    if on:
        row = calibration.row(OVERALL)
        rho = row.rho if row is not None else None
        base.update(rho=rho.value if rho else None, rho_low=rho.low if rho else None,
                    rho_high=rho.high if rho else None)
    return base


def calibration_line(calibration: Calibration | None, match: Match, *, judge_model: str, rubric_version: str,
                     current_prompt_hash: str | None) -> str:
    """What a scorecard says about its judge's agreement with people.

    - about these calls: `judge X, rubric v2: rho 0.52 [0.44, 0.60] over 300 rated calls of DATA`
      (the overall row's rho), with "(calibrated for an earlier prompt)" when the record's
      judge-prompt hash differs from `current_prompt_hash`;
    - about other calls: `judge X, rubric v2: calibrated on DATA (300), not on these calls`;
    - no record: `judge X, rubric v2: not calibrated`.
    """
    head = f"judge {judge_model}, rubric {rubric_version}"
    if calibration is None or match == "none":
        return f"{head}: not calibrated"
    if match not in ON_THESE_CALLS:
        return f"{head}: calibrated on {calibration.dataset} ({calibration.n}), not on these calls"
    row = calibration.row(OVERALL)
    if row is None:
        text = f"{head}: calibrated on {calibration.dataset} without an overall rating (see `polygon calibrate`)"
    else:
        text = (f"{head}: rho {format_estimate(row.rho.value, row.rho.low, row.rho.high)} "
                f"over {row.n} rated call{'s' if row.n != 1 else ''} of {calibration.dataset}")
    if current_prompt_hash is not None and current_prompt_hash != calibration.judge_prompt_hash:
        text += f" ({EARLIER_PROMPT})"
    return text
