"""Comparing stored runs: load each run's results from the stores, then compare them in core."""

from __future__ import annotations

from collections.abc import Sequence

from polygon_core.compare import (
    Comparison,
    ComparisonRefused,
    ConfigurationResults,
    compare_configurations,
)
from polygon_core.models import Run

from ._common import Stores, load_conversation
from ._results import result_rows, scorecard

__all__ = ["Comparison", "ComparisonError", "compare_runs", "run_labels"]


class ComparisonError(ComparisonRefused):
    """Runs that cannot be compared (mixed rubric versions, unknown runs)."""


def compare_runs(stores: Stores, run_ids: Sequence[str], baseline: str | None = None,
                 *, seed: int = 0) -> Comparison:
    """Compare stored runs under their shared rubric version; mixing versions is an error.

    `baseline` is a run id (or unique prefix) among `run_ids`; by default the first run.
    """
    runs: list[Run] = []
    for rid in run_ids:
        run = stores.repo.get_run(rid)
        if run is None:
            raise ComparisonError(f"no run {rid!r} is stored (see `polygon runs`)")
        if all(r.id != run.id for r in runs):  # the same run named twice is compared once
            runs.append(run)
    versions = sorted({r.rubric_version for r in runs})
    if len(versions) > 1:
        # Refuse before loading anything: the message names both versions and every run.
        detail = ", ".join(f"{r.id}: {r.rubric_version}" for r in runs)
        raise ComparisonError(f"cannot compare runs judged under different rubric versions "
                              f"({' and '.join(versions)}): {detail}; re-score them under one version first")
    labels = run_labels(runs)
    base_label = None
    if baseline is not None:
        base_run = stores.repo.get_run(baseline)
        if base_run is None or base_run.id not in labels:
            raise ComparisonError(f"baseline {baseline!r} is not one of the compared runs: {', '.join(run_ids)}")
        base_label = labels[base_run.id]
    configs = []
    for run in runs:
        convs = [load_conversation(stores, run.id, rec.conversation_id)
                 for rec in stores.repo.list_conversations(run.id)]
        configs.append(ConfigurationResults(
            label=labels[run.id], run=run,
            card=scorecard(stores, run.id, label=labels[run.id], conversations=convs),
            rows=result_rows(stores, run.id, conversations=convs),
            answers=stores.repo.probe_answers(run.id), conversations=convs,
            judgments=stores.repo.judgments(run.id, run.rubric_version)))
    try:
        return compare_configurations(configs, base_label, seed=seed)
    except ComparisonRefused as exc:
        raise ComparisonError(str(exc)) from None


def run_labels(runs: Sequence[Run]) -> dict[str, str]:
    """A short, unique label per run: agent name @ version prefix (plus the run id's tail on repeats)."""
    labels: dict[str, str] = {}
    for run in runs:
        label = f"{run.agent_name}@{run.agent_version[:6]}"
        if label in labels.values():
            label = f"{label} ({run.id[-6:]})"
        labels[run.id] = label
    return labels
