"""Typed inputs shared by calibration and judge fitting (the contract with `polygon calibrate --fit`)."""

from __future__ import annotations

from dataclasses import dataclass

from ..checks import Checks
from ..models import Conversation, Persona

OVERALL = "overall"
"""The label key for a rater's overall rating of a conversation (beside rubric criterion names)."""


@dataclass(frozen=True)
class LabelledConversation:
    """One conversation people rated, with what the pipeline knows about it.

    `checks` are computed as the pipeline computes them for grading (`scorable` in
    polygon/usecases/_grade.py); `persona` is None for an imported production call.
    `labels` maps "overall" or a criterion name to the mean of the raters' scores (1-5);
    `raters` maps each rater to their own integer scores by criterion / "overall".
    """

    conversation: Conversation
    checks: Checks
    persona: Persona | None
    labels: dict[str, float]
    raters: dict[str, dict[str, int]]
