"""Comparing stored runs: read each run's results from the stores, then compare them in core.

Result rows and scorecards come from SQL (`_scorecards`); transcripts are read pair by pair, the
baseline's and a candidate's conversation of one (scenario, seed), for the divergence point, the
agent's latency and the few facts a JUnit case reads (reply time, a fault's detail), and dropped
before the next pair: a comparison of two 100,000-conversation runs holds rows, divergences and
those facts, never every transcript. A report that embeds transcripts and judgments (HTML) asks
for them with `transcripts=True` and gets at most `EMBEDDED_TRANSCRIPTS` per run, divergent and
failing conversations first (every one of a run no larger than that).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic_core import from_json

from polygon_core.adapters.storage import scorecard_reads as reads
from polygon_core.compare import (
    Comparison,
    ComparisonRefused,
    ConfigurationResults,
    ConversationFacts,
    PairDivergence,
    ResultRow,
    compare_configurations,
    pair_divergence,
)
from polygon_core.models import STORED, Conversation, GateHit, Run

from ._common import Stores, load_conversation, plan_conversations, transcript_key
from ._scorecards import judge_for, judges_of, probe_answer_tally, row_from_facts, scorecard_of

__all__ = ["EMBEDDED_TRANSCRIPTS", "Comparison", "ComparisonError", "compare_runs", "run_labels", "run_progress",
           "unfinished_runs"]

#: The most transcripts (with their judgments) per run a comparison keeps for a report that shows
#: them: a page of 200,000 transcripts helps no reader, and holding them takes gigabytes.
EMBEDDED_TRANSCRIPTS = 50


class ComparisonError(ComparisonRefused):
    """Runs that cannot be compared (mixed rubric versions, no judgments under the one asked for, unknown runs)."""


def compare_runs(stores: Stores, run_ids: Sequence[str], baseline: str | None = None,
                 *, seed: int = 0, transcripts: bool = False, rubric_version: str | None = None,
                 judge: str | None = None, progress: Callable[[int, int], None] | None = None) -> Comparison:
    """Compare stored runs under one rubric version: `rubric_version` (the judgments stored under
    it, e.g. by `polygon rescore`), else the runs' shared own version (mixing them is an error).

    Each run's judgments are one judge's: `judge` when given, else as `show` picks (`judge_for`).
    A run with no judgments under the version (or by `judge`) is refused, naming the rescore that
    makes them. `baseline` is a run id (or unique prefix) among `run_ids`; by default the first run.
    Transcripts are streamed and only what the comparison and its reports read is kept;
    `transcripts=True` also keeps the transcripts and judgments of up to `EMBEDDED_TRANSCRIPTS`
    conversations per run (for reports that show them): those of divergent pairs and failing
    conversations first, every one of a run no larger than that. `progress(done, total)` is told
    each (scenario, seed) pair read, over every candidate (a front end's progress line).
    """
    runs = _runs(stores, run_ids)
    version = _version(stores, runs, rubric_version, judge)
    labels = run_labels(runs)
    base_run = runs[0]
    if baseline is not None:
        found = stores.repo.get_run(baseline)
        if found is None or found.id not in labels:
            raise ComparisonError(f"baseline {baseline!r} is not one of the compared runs: {', '.join(run_ids)}")
        base_run = found
    gathered = {run.id: _Gathered() for run in runs}
    pairs = {run.id: list(_pairs(stores, base_run, run)) for run in runs if run.id != base_run.id}
    counted = _counted(pairs, progress)
    divergences = {labels[run.id]: [counted(d) for d in _divergences(stores, base_run, run, pairs[run.id], gathered)]
                   for run in runs if run.id != base_run.id}
    for run in runs:  # conversations no pair covered (a single run, unpaired seeds)
        _fill_facts(stores, run.id, gathered[run.id])
    configs = [_streamed(stores, run, labels[run.id], gathered.pop(run.id), version, judge) for run in runs]
    if transcripts:
        chosen = _embedded(configs, divergences, labels[base_run.id])
        configs = [_with_transcripts(stores, c, chosen[c.label]) for c in configs]
    try:
        return compare_configurations(configs, labels[base_run.id] if baseline is not None else None,
                                      seed=seed, divergences=divergences)
    except ComparisonRefused as exc:
        raise ComparisonError(str(exc)) from None


def run_progress(stores: Stores, run: Run) -> tuple[int, int | None]:
    """(conversations stored, conversations planned) of a run; planned is None when unknown.

    Planned is, in this order: a production run's graded calls (its window, as planned); the
    execution record's count (written once every planned conversation was simulated: exact, with
    `--scenario` too); else the run's seeds × its suite's scenarios (the manifest's suite file, as
    it is now), when that file still loads.
    """
    from ._production_runs import production_run_info
    from ._runs import run_execution, run_manifest

    stored = len(stores.repo.conversation_ids(run.id))
    if run.source == "production":
        info = production_run_info(stores, run.id)
        return stored, None if info is None else info.conversations
    record = run_execution(stores, run.id)
    if record is not None:
        return stored, int(record["conversations"])
    suite_path = run_manifest(stores, run.id).get("suite_path")
    try:
        return stored, len(plan_conversations(suite_path, run.seeds, caches=stores.caches)) if suite_path else None
    except (OSError, ValueError):  # the suite moved or no longer loads: the plan is unknown, not guessed
        return stored, None


def unfinished_runs(stores: Stores, run_ids: Sequence[str]) -> str | None:
    """One line naming each stored run among `run_ids` that is not `complete` (its status, how many
    of its planned conversations are stored, and how to finish it), or None when all are complete.

    A comparison of a run that stopped part-way pairs only what it stored and would read as a
    verdict on the whole run; unknown ids are left to `compare_runs` to refuse."""
    parts = []
    for run in _known(stores, run_ids):
        if run.status == "complete":
            continue
        stored, planned = run_progress(stores, run)
        status = ("running (still in progress, or stopped before it could be marked)" if run.status == "running"
                  else run.status)
        finish = ("grade its window again with `polygon grade-calls` to finish it" if run.source == "production"
                  else f"resume it with the same `polygon run` command and --run-id {run.id}")
        of = "an unknown number of" if planned is None else planned
        parts.append(f"run {run.id} is {status}: {stored} of {of} planned conversations stored; {finish}, "
                     "then compare")
    return "; ".join(parts) if parts else None


def _known(stores: Stores, run_ids: Sequence[str]) -> list[Run]:
    found = [stores.repo.get_run(rid) for rid in run_ids]
    return list({run.id: run for run in found if run is not None}.values())


def _runs(stores: Stores, run_ids: Sequence[str]) -> list[Run]:
    runs: list[Run] = []
    for rid in run_ids:
        run = stores.repo.get_run(rid)
        if run is None:
            raise ComparisonError(f"no run {rid!r} is stored (see `polygon runs`)")
        if all(r.id != run.id for r in runs):  # the same run named twice is compared once
            runs.append(run)
    return runs


def _version(stores: Stores, runs: Sequence[Run], asked: str | None, judge: str | None) -> str:
    """The one rubric version the runs are compared under, checked before anything is loaded:
    `asked`, which every run must have judgments under (by `judge`, when named), else the runs'
    own version, which must be shared. A refusal names the run and the command that fixes it."""
    if asked is None:
        versions = sorted({r.rubric_version for r in runs})
        if len(versions) > 1:
            detail = ", ".join(f"{r.id}: {r.rubric_version}" for r in runs)
            raise ComparisonError(f"cannot compare runs judged under different rubric versions "
                                  f"({' and '.join(versions)}): {detail}; --rubric {versions[-1]} compares "
                                  f"the judgments stored under {versions[-1]} (`polygon rescore RUN --rubric "
                                  f"{versions[-1]}` adds them to a run that has none)")
        if judge is None:  # each run's own judgments, as before: nothing more to check
            return versions[0]
        asked = versions[0]
    else:
        from polygon_core.scoring import get_rubric

        try:
            get_rubric(asked)
        except ValueError as exc:
            raise ComparisonError(f"--rubric: {exc}") from None
    for run in runs:
        judges = judges_of(stores, run.id, asked)
        if not judges:
            have = ", ".join(sorted(stores.repo.rubric_versions(run.id))) or "none yet"
            raise ComparisonError(f"run {run.id} has no judgments under rubric {asked} (it has: {have}); "
                                  f"`polygon rescore {run.id} --rubric {asked}` makes them")
        if judge is not None and judge not in judges:
            raise ComparisonError(f"run {run.id} has no judgments by {judge} under rubric {asked} (judged by: "
                                  f"{', '.join(sorted(judges))}); `polygon rescore {run.id} --rubric {asked} "
                                  f"--judge {judge}` makes them")
    return asked


@dataclass
class _Gathered:
    """What one run's streamed transcripts leave behind, by conversation id."""

    latency: dict[str, float | None] = field(default_factory=dict)  # mean agent-turn latency (ms)
    seconds: dict[str, float] = field(default_factory=dict)  # the agent's reply time over the conversation
    end_details: dict[str, str] = field(default_factory=dict)  # only where the transcript has one

    def add(self, conversation_id: str, transcript: dict[str, Any]) -> None:
        if conversation_id in self.latency:  # the baseline's side of a second candidate's pair
            return
        agent = [float(t.get("latency_ms", 0.0)) for t in transcript["turns"] if t.get("speaker") == "agent"]
        # As `_results._latency` and `compare.agent_seconds` compute them from a Conversation. No
        # agent turn with a latency (imported calls carry none) is unknown, not a mean of 0.0 ms.
        self.latency[conversation_id] = round(sum(agent) / len(agent), 2) if any(agent) else None
        self.seconds[conversation_id] = sum(agent) / 1000.0
        if transcript.get("end_detail"):
            self.end_details[conversation_id] = transcript["end_detail"]


def _streamed(stores: Stores, run: Run, label: str, gathered: _Gathered, version: str,
              asked_judge: str | None) -> ConfigurationResults:
    judge = judge_for(stores, run, version, asked_judge)
    rows: list[ResultRow] = []
    gates: dict[str, list[GateHit]] = {}
    for facts in reads.result_facts(stores.repo.engine, run.id, version, judge):  # as `rows_of`, plus gates
        row = row_from_facts(facts, gathered.latency.get(facts["conversation_id"]))
        rows.append(row)
        if row.gates:  # a fired gate's turn and detail, for the report's case: a few of the rows
            gates[row.conversation_id] = [GateHit.model_validate(g) for g in facts["gates"]]
    card = scorecard_of(stores, run, label=label, rubric_version=version, judge=judge, rows=rows)
    # Constructed, not validated: 100,000 floats validated again would be copied once more.
    kept = ConversationFacts.model_construct(seconds=gathered.seconds, end_details=gathered.end_details, gates=gates)
    return ConfigurationResults(label=label, run=run, card=card, rows=rows, answers=probe_answer_tally(stores, run.id),
                                facts=kept)


def _failing(row: ResultRow | None) -> bool:
    return row is not None and (row.verdict == "fail" or bool(row.gates) or row.status in ("judge_error",
                                                                                             "agent_failure"))


def _embedded(configs: Sequence[ConfigurationResults], divergences: dict[str, list[PairDivergence]],
              baseline: str, cap: int = EMBEDDED_TRANSCRIPTS) -> dict[str, list[str]]:
    """Label → the conversation ids whose transcripts a report shows, at most `cap` per run: both
    sides of divergent pairs (those where a side fails first), then failing conversations, then
    the rest, each by (scenario, seed). A run of at most `cap` conversations keeps every one.
    With several candidates the baseline's `cap` is shared: each candidate may add at most an even
    share of what is left of it (so the first cannot use it all), and a pair whose baseline side is
    already chosen costs the baseline nothing. With one candidate its share is the whole `cap`."""
    chosen: dict[str, dict[str, None]] = {c.label: {} for c in configs}  # insertion-ordered sets
    keyed = {c.label: {(r.scenario_id, r.seed): r for r in c.rows} for c in configs}
    for waiting, (cand, items) in zip(range(len(divergences), 0, -1), divergences.items(), strict=True):
        # What a candidate leaves of its share goes to those after it.
        share, added = max(1, (cap - len(chosen[baseline])) // waiting), 0
        pairs = [(keyed[baseline].get((d.scenario_id, d.seed)), keyed[cand].get((d.scenario_id, d.seed)))
                 for d in items if d.turn is not None]
        pairs.sort(key=lambda p: not (_failing(p[0]) or _failing(p[1])))  # stable: (scenario, seed) within
        for a, b in pairs:
            if a is None or b is None or len(chosen[cand]) >= cap:
                continue
            if a.conversation_id not in chosen[baseline]:
                if added >= share or len(chosen[baseline]) >= cap:
                    continue
                chosen[baseline][a.conversation_id] = None
                added += 1
            chosen[cand].setdefault(b.conversation_id)
    for c in configs:
        for row in sorted(c.rows, key=lambda r: (not _failing(r), r.scenario_id, r.seed)):
            if len(chosen[c.label]) >= cap:
                break
            chosen[c.label].setdefault(row.conversation_id)
    return {label: sorted(ids) for label, ids in chosen.items()}


def _with_transcripts(stores: Stores, config: ConfigurationResults, ids: list[str]) -> ConfigurationResults:
    run, card = config.run, config.card
    # The compared version's judgments by the card's judge: a report shows the judgment it scored.
    judgments = [j for j in stores.repo.judgments(run.id, card.rubric_version, conversation_ids=ids)
                 if j.judge_model == card.judge_model]
    return config.model_copy(update={
        "conversations": [load_conversation(stores, run.id, cid) for cid in ids], "judgments": judgments})


def _pairs(stores: Stores, base: Run, cand: Run) -> Iterator[tuple[str, str]]:
    """(baseline conversation id, candidate conversation id) per shared (scenario, seed), in that order."""
    other = {(s, seed): cid for s, seed, cid in reads.pairing_keys(stores.repo.engine, cand.id)}
    for scenario_id, seed, conversation_id in reads.pairing_keys(stores.repo.engine, base.id):
        match = other.get((scenario_id, seed))
        if match is not None:
            yield conversation_id, match


def _counted(pairs: Mapping[str, Sequence[tuple[str, str]]],
             progress: Callable[[int, int], None] | None) -> Callable[[PairDivergence], PairDivergence]:
    """A pass-through that tells `progress` how many of all the pairs have been read."""
    total, done = sum(len(p) for p in pairs.values()), [0]

    def count(d: PairDivergence) -> PairDivergence:
        done[0] += 1
        if progress is not None:
            progress(done[0], total)
        return d

    return count


def _divergences(stores: Stores, base: Run, cand: Run, pairs: Sequence[tuple[str, str]],
                 gathered: dict[str, _Gathered]) -> Iterator[PairDivergence]:
    for a_id, b_id in pairs:
        a = from_json(stores.artifacts.get_text(transcript_key(base.id, a_id)))
        b = from_json(stores.artifacts.get_text(transcript_key(cand.id, b_id)))
        gathered[base.id].add(a_id, a)
        gathered[cand.id].add(b_id, b)
        if _acts(a["turns"]) == _acts(b["turns"]):
            # Same speakers, words, tool calls and endings turn by turn: no divergence point by its
            # rules, and no consequential one (which is never before it). Most pairs of two versions.
            yield PairDivergence(scenario_id=a["scenario_id"], seed=a["seed"], turn=None, reasons=[])
        else:
            yield pair_divergence(Conversation.model_validate(a, context=STORED), Conversation.model_validate(b, context=STORED))


def _acts(turns: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """What the divergence rules look at in each turn: speaker, words, tool calls (name, arguments), end."""
    return [(t.get("speaker"), t.get("text", ""), t.get("end"),
             [(c.get("name"), c.get("arguments")) for c in t.get("tool_calls") or ()]) for t in turns]


def stored_latencies(stores: Stores, run_id: str) -> dict[str, float | None]:
    """Conversation id → mean agent-turn latency of every stored conversation of the run, read from
    its transcripts one at a time (as a comparison reads them), none held at once."""
    gathered = _Gathered()
    _fill_facts(stores, run_id, gathered)
    return gathered.latency


def _fill_facts(stores: Stores, run_id: str, gathered: _Gathered) -> None:
    for _scenario, _seed, conversation_id in reads.pairing_keys(stores.repo.engine, run_id):
        if conversation_id not in gathered.latency:
            gathered.add(conversation_id, from_json(stores.artifacts.get_text(transcript_key(run_id, conversation_id))))


def run_labels(runs: Sequence[Run]) -> dict[str, str]:
    """A short, unique label per run: agent name @ version prefix (plus the run id's tail on repeats)."""
    labels: dict[str, str] = {}
    for run in runs:
        label = f"{run.agent_name}@{run.agent_version[:6]}"
        if label in labels.values():
            label = f"{label} ({run.id[-6:]})"
        labels[run.id] = label
    return labels
