"""The one line a scorecard shows about its judge's calibration (CLI, compare, HTML, web)."""

from __future__ import annotations

from typing import Any

from ._calibrate import Calibration
from ._types import OVERALL

__all__ = ["EARLIER_PROMPT", "calibration_line", "calibration_status", "format_estimate"]

EARLIER_PROMPT = "calibrated for an earlier prompt"


def _num(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def format_estimate(value: float | None, low: float | None, high: float | None) -> str:
    """`0.52 [0.44, 0.60]`; `—` when undefined; the interval left off when it is."""
    if value is None:
        return "—"
    if low is None or high is None:
        return _num(value)
    return f"{_num(value)} [{_num(low)}, {_num(high)}]"


def calibration_status(calibration: Calibration | None, *, judge_model: str, rubric_version: str,
                       current_prompt_hash: str | None) -> dict[str, Any]:
    """The judge's latest calibration as plain data (for JSON and for `calibration_line`).

    `calibration` is the latest record with this judge model and rubric version (None: not
    calibrated). `current` is False when it was made for another judge prompt than today's.
    """
    base: dict[str, Any] = {"judge_model": judge_model, "rubric_version": rubric_version,
                            "calibrated": calibration is not None}
    if calibration is None:
        return {**base, "line": calibration_line(None, judge_model=judge_model,
                                                 rubric_version=rubric_version,
                                                 current_prompt_hash=current_prompt_hash)}
    row = calibration.row(OVERALL)
    rho = row.rho if row is not None else None
    current = current_prompt_hash is None or current_prompt_hash == calibration.judge_prompt_hash
    return {**base, "current": current, "judge_prompt_hash": calibration.judge_prompt_hash,
            "rho": rho.value if rho else None, "rho_low": rho.low if rho else None,
            "rho_high": rho.high if rho else None, "n": calibration.n, "run_id": calibration.run_id,
            "created_at": calibration.created_at,
            "line": calibration_line(calibration, judge_model=judge_model, rubric_version=rubric_version,
                                     current_prompt_hash=current_prompt_hash)}


def calibration_line(calibration: Calibration | None, *, judge_model: str, rubric_version: str,
                     current_prompt_hash: str | None) -> str:
    """`judge X, rubric v2: rho 0.52 [0.44, 0.60] over 300 rated calls`, or `...: not calibrated`.

    The rho is the overall row's (judge composite against the people's overall rating). When the
    record's judge-prompt hash differs from `current_prompt_hash`, the line says so.
    """
    head = f"judge {judge_model}, rubric {rubric_version}"
    if calibration is None:
        return f"{head}: not calibrated"
    row = calibration.row(OVERALL)
    if row is None:
        text = f"{head}: calibrated without an overall rating (see `polygon calibrate`)"
    else:
        text = (f"{head}: rho {format_estimate(row.rho.value, row.rho.low, row.rho.high)} "
                f"over {row.n} rated call{'s' if row.n != 1 else ''}")
    if current_prompt_hash is not None and current_prompt_hash != calibration.judge_prompt_hash:
        text += f" ({EARLIER_PROMPT})"
    return text
