"""Comparing stored runs: read each run's results from the stores, then compare them in core.

Result rows and scorecards come from SQL (`_scorecards`); transcripts are read pair by pair, the
baseline's and a candidate's conversation of one (scenario, seed), for the divergence point and
the agent's latency, and dropped before the next pair: a comparison of two 100,000-conversation
runs holds rows and divergences, never every transcript. Reports that embed transcripts and
judgments (JUnit, HTML) ask for them with `transcripts=True`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from pydantic_core import from_json

from polygon_core.adapters.storage import scorecard_reads as reads
from polygon_core.compare import (
    Comparison,
    ComparisonRefused,
    ConfigurationResults,
    PairDivergence,
    compare_configurations,
    pair_divergence,
)
from polygon_core.models import Conversation, Run

from ._common import Stores, load_conversation, transcript_key
from ._results import _latency
from ._scorecards import judge_for, probe_answer_tally, rows_of, scorecard_of

__all__ = ["Comparison", "ComparisonError", "compare_runs", "run_labels"]


class ComparisonError(ComparisonRefused):
    """Runs that cannot be compared (mixed rubric versions, unknown runs)."""


def compare_runs(stores: Stores, run_ids: Sequence[str], baseline: str | None = None,
                 *, seed: int = 0, transcripts: bool = False) -> Comparison:
    """Compare stored runs under their shared rubric version; mixing versions is an error.

    `baseline` is a run id (or unique prefix) among `run_ids`; by default the first run.
    `transcripts=True` also keeps every transcript and judgment in the comparison (for reports
    that show them); otherwise they are streamed and only what the comparison needs is kept.
    """
    runs = _runs(stores, run_ids)
    labels = run_labels(runs)
    base_run = runs[0]
    if baseline is not None:
        found = stores.repo.get_run(baseline)
        if found is None or found.id not in labels:
            raise ComparisonError(f"baseline {baseline!r} is not one of the compared runs: {', '.join(run_ids)}")
        base_run = found
    if transcripts:
        configs = [_loaded(stores, run, labels[run.id]) for run in runs]
        divergences = None
    else:
        latency: dict[str, dict[str, float | None]] = {run.id: {} for run in runs}
        divergences = {labels[run.id]: list(_divergences(stores, base_run, run, latency))
                       for run in runs if run.id != base_run.id}
        for run in runs:  # conversations no pair covered (a single run, unpaired seeds)
            _fill_latencies(stores, run.id, latency[run.id])
        configs = [_streamed(stores, run, labels[run.id], latency[run.id]) for run in runs]
    try:
        return compare_configurations(configs, labels[base_run.id] if baseline is not None else None,
                                      seed=seed, divergences=divergences)
    except ComparisonRefused as exc:
        raise ComparisonError(str(exc)) from None


def _runs(stores: Stores, run_ids: Sequence[str]) -> list[Run]:
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
    return runs


def _streamed(stores: Stores, run: Run, label: str, latency: dict[str, float | None]) -> ConfigurationResults:
    version = run.rubric_version
    rows = list(rows_of(stores, run.id, version, judge_for(stores, run, version, None), latencies=latency))
    card = scorecard_of(stores, run, label=label, rows=rows)
    return ConfigurationResults(label=label, run=run, card=card, rows=rows, answers=probe_answer_tally(stores, run.id))


def _loaded(stores: Stores, run: Run, label: str) -> ConfigurationResults:
    convs = [load_conversation(stores, run.id, rec.conversation_id) for rec in stores.repo.list_conversations(run.id)]
    latency = {c.id: _latency(c) for c in convs}
    config = _streamed(stores, run, label, latency)
    return config.model_copy(update={"conversations": convs,
                                     "judgments": stores.repo.judgments(run.id, run.rubric_version)})


def _pairs(stores: Stores, base: Run, cand: Run) -> Iterator[tuple[str, str]]:
    """(baseline conversation id, candidate conversation id) per shared (scenario, seed), in that order."""
    other = {(s, seed): cid for s, seed, cid in reads.pairing_keys(stores.repo.engine, cand.id)}
    for scenario_id, seed, conversation_id in reads.pairing_keys(stores.repo.engine, base.id):
        match = other.get((scenario_id, seed))
        if match is not None:
            yield conversation_id, match


def _divergences(stores: Stores, base: Run, cand: Run,
                 latency: dict[str, dict[str, float | None]]) -> Iterator[PairDivergence]:
    for a_id, b_id in _pairs(stores, base, cand):
        a = from_json(stores.artifacts.get_text(transcript_key(base.id, a_id)))
        b = from_json(stores.artifacts.get_text(transcript_key(cand.id, b_id)))
        latency[base.id].setdefault(a_id, _agent_latency(a["turns"]))
        latency[cand.id].setdefault(b_id, _agent_latency(b["turns"]))
        if _acts(a["turns"]) == _acts(b["turns"]):
            # Same speakers, words, tool calls and endings turn by turn: no divergence point by its
            # rules, and no consequential one (which is never before it). Most pairs of two versions.
            yield PairDivergence(scenario_id=a["scenario_id"], seed=a["seed"], turn=None, reasons=[])
        else:
            yield pair_divergence(Conversation.model_validate(a), Conversation.model_validate(b))


def _acts(turns: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """What the divergence rules look at in each turn: speaker, words, tool calls (name, arguments), end."""
    return [(t.get("speaker"), t.get("text", ""), t.get("end"),
             [(c.get("name"), c.get("arguments")) for c in t.get("tool_calls") or ()]) for t in turns]


def _agent_latency(turns: list[dict[str, Any]]) -> float | None:
    """`_results._latency` over a parsed transcript's turns."""
    agent = [float(t.get("latency_ms", 0.0)) for t in turns if t.get("speaker") == "agent"]
    return round(sum(agent) / len(agent), 2) if agent else None


def _fill_latencies(stores: Stores, run_id: str, latency: dict[str, float | None]) -> None:
    for _scenario, _seed, conversation_id in reads.pairing_keys(stores.repo.engine, run_id):
        if conversation_id not in latency:
            text = stores.artifacts.get_text(transcript_key(run_id, conversation_id))
            latency[conversation_id] = _agent_latency(from_json(text)["turns"])


def run_labels(runs: Sequence[Run]) -> dict[str, str]:
    """A short, unique label per run: agent name @ version prefix (plus the run id's tail on repeats)."""
    labels: dict[str, str] = {}
    for run in runs:
        label = f"{run.agent_name}@{run.agent_version[:6]}"
        if label in labels.values():
            label = f"{label} ({run.id[-6:]})"
        labels[run.id] = label
    return labels
