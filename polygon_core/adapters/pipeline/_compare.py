"""Comparing stored runs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...compare import Scorecard
from ...models import (
    Run,
)
from ._common import Stores, load_conversation
from ._results import result_rows, scorecard


class ComparisonError(ValueError):
    """Runs that cannot be compared (mixed rubric versions, unknown runs)."""


@dataclass
class Comparison:
    """Scorecards, the scenario matrix and first divergent turns of two or more runs."""

    runs: list[Run]
    cards: list[Scorecard]
    matrix: list[Any]
    divergences: dict[tuple[str, str], list[Any]]


def compare_runs(stores: Stores, run_ids: Sequence[str]) -> Comparison:
    """Compare stored runs under their shared rubric version; mixing versions is an error."""
    from ...compare import pair_divergences, scenario_matrix

    runs = []
    for rid in run_ids:
        run = stores.repo.get_run(rid)
        if run is None:
            raise ComparisonError(f"no run {rid!r} is stored")
        runs.append(run)
    versions = sorted({r.rubric_version for r in runs})
    if len(versions) > 1:
        detail = ", ".join(f"{r.id}: {r.rubric_version}" for r in runs)
        raise ComparisonError(f"cannot compare runs judged under different rubric versions "
                              f"({' and '.join(versions)}): {detail}; re-score them under one version first")
    labels = _labels(runs)
    cards = [scorecard(stores, r.id, label=labels[r.id]) for r in runs]
    matrix = scenario_matrix({labels[r.id]: result_rows(stores, r.id) for r in runs})
    convs = {r.id: [load_conversation(stores, r.id, c.conversation_id)
                    for c in stores.repo.list_conversations(r.id)] for r in runs}
    divs = {}
    for i, a in enumerate(runs):
        for b in runs[i + 1:]:
            divs[(labels[a.id], labels[b.id])] = pair_divergences(convs[a.id], convs[b.id])
    return Comparison(runs=runs, cards=cards, matrix=matrix, divergences=divs)


def _labels(runs: Sequence[Run]) -> dict[str, str]:
    labels: dict[str, str] = {}
    for run in runs:
        label = f"{run.agent_name}@{run.agent_version[:6]}"
        if label in labels.values():
            label = f"{label} ({run.id[-6:]})"
        labels[run.id] = label
    return labels
