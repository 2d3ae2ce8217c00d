"""The change in an analysis from the previous prompt version."""

from __future__ import annotations

from ..models import DomainModel
from ._models import AXES, Axis, PromptAnalysis


class AxisChange(DomainModel):
    """One axis across two versions: scores, and which highlighted passages came and went.

    Passages are matched by their text (spans move when the prompt is edited).
    """

    before: float
    after: float
    delta: float
    new: list[str]
    resolved: list[str]


def _passages(analysis: PromptAnalysis, text: str, axis: Axis) -> list[str]:
    out: list[str] = []
    for h in analysis.axes[axis].highlights:
        passage = text[h.start:h.end]
        if passage not in out:
            out.append(passage)
    return out


def compare_analyses(previous: PromptAnalysis, previous_text: str, current: PromptAnalysis,
                     current_text: str) -> dict[Axis, AxisChange]:
    """Per axis: before, after, the change (after − before), new and resolved passages."""
    changes: dict[Axis, AxisChange] = {}
    for axis in AXES:
        old = _passages(previous, previous_text, axis)
        new = _passages(current, current_text, axis)
        before, after = previous.axes[axis].score, current.axes[axis].score
        changes[axis] = AxisChange(before=before, after=after, delta=round(after - before, 4),
                                   new=[p for p in new if p not in old],
                                   resolved=[p for p in old if p not in new])
    return changes
