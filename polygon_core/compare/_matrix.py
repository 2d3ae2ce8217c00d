"""The scenario matrix: scenarios × configurations, ordered by spread, incomparable never zero."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence

import numpy as np
from pydantic import Field

from ..models import DomainModel
from ._scorecard import ResultRow


class MatrixCell(DomainModel):
    """One scenario under one configuration."""

    mean_composite: float | None = None
    verdicts: dict[str, int] = Field(default_factory=dict)
    conversations: int = 0


class MatrixRow(DomainModel):
    """One scenario across configurations."""

    scenario_id: str
    cells: dict[str, MatrixCell | None]
    spread: float | None = Field(None, description="best minus worst mean; None if incomparable")
    incomparable: bool = False


def scenario_matrix(results: Mapping[str, Sequence[ResultRow]]) -> list[MatrixRow]:
    """Rows ordered by spread (largest first), then incomparable rows, then by scenario id."""
    scenarios = sorted({r.scenario_id for rows in results.values() for r in rows})
    grouped: dict[str, dict[str, list[ResultRow]]] = {}
    for label, rows in results.items():  # grouped once: linear in the rows however many scenarios
        grouped[label] = defaultdict(list)
        for r in rows:
            grouped[label][r.scenario_id].append(r)
    out: list[MatrixRow] = []
    for sid in scenarios:
        cells: dict[str, MatrixCell | None] = {}
        for label in results:
            mine = grouped[label].get(sid, [])
            if not mine:
                cells[label] = None
                continue
            vals = [r.composite for r in mine if r.composite is not None]
            cells[label] = MatrixCell(
                mean_composite=round(float(np.mean(vals)), 4) if vals else None,
                verdicts=dict(Counter(r.verdict for r in mine if r.verdict)), conversations=len(mine))
        means = [c.mean_composite for c in cells.values() if c is not None and c.mean_composite is not None]
        incomparable = len(means) < len(results)
        spread = None if incomparable else round(max(means) - min(means), 4)
        out.append(MatrixRow(scenario_id=sid, cells=cells, spread=spread, incomparable=incomparable))
    out.sort(key=lambda r: (r.incomparable, -(r.spread or 0.0), r.scenario_id))
    return out
