"""Result rows and scorecards read in SQL and streamed: what `show`, `compare` and every scorecard use.

A result row needs a conversation's headline facts and one judge's composite, verdict, gates and
criterion scores; it never needs the judge's evidence or raw replies. So rows are built from the
columns `storage.scorecard_reads` selects (one joined query, streamed), probe conformance from
GROUP BY counts of one answerer's answers, and the judge (and probe answerer) a scorecard shows from
`max(seq)` per judge (`max(id)` per answerer): a 100,000-conversation
run is summarised without validating a single stored judgment into a domain model.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from polygon_core.adapters.storage import scorecard_reads as reads
from polygon_core.compare import ResultRow, Scorecard, build_scorecard
from polygon_core.judging import HEURISTIC_JUDGE
from polygon_core.models import UNSCORED_END_REASONS, InteractionMetric, ProbeAnswer, Run

from ._common import Stores, load_conversation

__all__ = ["RunView", "answerer_for", "answerers_of", "failed_text", "judge_for", "judges_of", "probe_answer_tally",
           "row_from_facts", "rows_of", "run_view", "scorecard_of"]


def judges_of(stores: Stores, run_id: str, rubric_version: str) -> list[str]:
    """The judges that judged the run under `rubric_version`, the latest last."""
    return reads.judges_by_recency(stores.repo.engine, run_id, rubric_version)


def _shown(own: str, by_recency: list[str]) -> str:
    # One rule for whose results a scorecard shows (none given), judgments and probe answers alike.
    return own if own in by_recency or not by_recency else by_recency[-1]


def judge_for(stores: Stores, run: Run, version: str, judge: str | None) -> str:
    """The judge a scorecard shows: `judge` when given; else the run's own judge when it judged
    under this rubric; else the judge that judged last (a later `polygon rescore`)."""
    if judge is not None:
        return judge
    return _shown(run.models.get("judge") or HEURISTIC_JUDGE, judges_of(stores, run.id, version))


def answerers_of(stores: Stores, run_id: str) -> list[str]:
    """The probe answerers with answers of the run, the latest last."""
    return reads.probe_answerers_by_recency(stores.repo.engine, run_id)


def answerer_for(stores: Stores, run: Run, answerer: str | None) -> str:
    """The probe answerer whose answers a scorecard counts, by `judge_for`'s rule: `answerer` when
    given; else the run's own when it answered; else the one that answered last (a later
    `polygon probe --model M`). One scorecard never adds two answerers' answers up."""
    if answerer is not None:
        return answerer
    return _shown(run.models.get("probe") or HEURISTIC_JUDGE, answerers_of(stores, run.id))


def _tokens(usage: Mapping[str, Any]) -> tuple[int, bool]:
    # The stored usage dicts carry Usage's fields (missing ones at their defaults).
    total = sum(int(u.get("input_tokens", 0)) + int(u.get("output_tokens", 0)) for u in usage.values())
    return total, any(bool(u.get("estimated", False)) for u in usage.values()) or not usage


def _num(value: Any) -> float | None:
    return None if value is None else float(value)


# Every row sets every field, so they share one fields-set: a set per row is ~1 KB at 100,000 rows.
_ALL_FIELDS = set(ResultRow.model_fields)  # never grows: every name is in it (copies get their own)


def row_from_facts(f: Mapping[str, Any], latency_ms: float | None = None) -> ResultRow:
    """One ResultRow from `scorecard_reads.result_facts`' columns (see `result_rows` for the rules).

    Built without a second validation (the stored values were validated when saved), with the
    numbers coerced as validation would (a stored score 4 reads as 4.0).
    """
    assertions = f["assertions"] or []
    statuses = [a["status"] for a in assertions if a["status"] in ("pass", "fail", "error")]
    policy = [a["status"] for a in assertions if "_before(" in a["expression"] and a["status"] in ("pass", "fail")]
    tokens, estimated = _tokens(f["usage"] or {})
    judged = f["status"] is not None
    values: dict[str, Any] = dict(
        conversation_id=f["conversation_id"], scenario_id=sys.intern(f["scenario_id"]), seed=int(f["seed"]),
        caller_type=sys.intern(f["caller_type"]), difficulty=int(f["difficulty"]),
        end_reason=sys.intern(f["end_reason"]),
        composite=_num(f["composite"]) if judged else None, verdict=f["verdict"] if judged else None,
        # A judge error (nothing readable) has no composite to be partial about: counted as an error only.
        partial=bool(f["partial"]) and f["status"] == "judged",
        gates=[g["gate"] for g in f["gates"] or ()] if judged else [],
        criteria={sys.intern(c["criterion"]): _num(c.get("score")) for c in f["criteria"] or ()} if judged else {},
        assertions_passed=(all(s == "pass" for s in statuses) if statuses and "error" not in statuses else None),
        policy_safe=(all(s == "pass" for s in policy) if policy else None),
        tokens=tokens, tokens_estimated=estimated, latency_ms=latency_ms, cost_usd=None,
        assertions={a["name"]: a["status"] for a in assertions},
        assertion_turns={a["name"]: int(a["turn"]) for a in assertions if a.get("turn") is not None},
        assertion_errors={a["name"]: a.get("message") or "no reason recorded" for a in assertions
                          if a["status"] == "error"},
        status=f["status"], reason=f["reason"] if judged else None,
        voice=_voice(f.get("voice")),
        voice_stack=_stack(f.get("voice_stack")),
    )
    return _constructed(values)


def _voice(stored: Mapping[str, Any] | None) -> dict[str, InteractionMetric]:
    # A call's metrics as the checks stored them (validated when saved): name → {value, count}.
    return {sys.intern(name): InteractionMetric.model_construct(value=_num(m.get("value")), count=int(m.get("count", 0)))
            for name, m in (stored or {}).items()}


def _stack(stored: Mapping[str, Any] | None) -> dict[str, str]:
    # What a call was made with (validated when saved). A run's calls mostly share one: they share one
    # dict (read only, as every row is) rather than hold 100,000 equal ones.
    return _shared_stack(tuple(stored.items())) if stored else {}


@functools.lru_cache(maxsize=256)
def _shared_stack(items: tuple[tuple[str, str], ...]) -> dict[str, str]:
    return {sys.intern(str(key)): sys.intern(str(value)) for key, value in items}


def _constructed(values: dict[str, Any]) -> ResultRow:
    # What `ResultRow.model_construct(_fields_set=…, **values)` does when every field is given, without
    # its per-field Python loop (a third of `polygon show`'s time at 100,000 rows).
    row = object.__new__(ResultRow)
    object.__setattr__(row, "__dict__", values)
    object.__setattr__(row, "__pydantic_fields_set__", _ALL_FIELDS)
    object.__setattr__(row, "__pydantic_extra__", None)
    object.__setattr__(row, "__pydantic_private__", None)
    return row


def rows_of(stores: Stores, run_id: str, version: str, judge: str, *,
            latencies: Mapping[str, float | None] | None = None,
            offset: int = 0, limit: int | None = None) -> Iterator[ResultRow]:
    """The run's result rows by conversation id, one judge's judgments under `version`, streamed.

    `latencies` (conversation id → mean agent-turn latency) come from transcripts a caller already
    read; without them latency is unknown rather than read from the artifact store file by file.
    """
    known = latencies or {}
    for facts in reads.result_facts(stores.repo.engine, run_id, version, judge, offset=offset, limit=limit):
        yield row_from_facts(facts, known.get(facts["conversation_id"]))


def probe_answer_tally(stores: Stores, run_id: str, answered_by: str | None = None) -> list[ProbeAnswer]:
    """The run's probe answers by one answerer (`answered_by`, by default `answerer_for`'s) as a
    scorecard counts them, from GROUP BY counts.

    Each (probe, wording, polarity, answer) group is one shared answer repeated `count` times (a
    list of references, not of rows); failed answers ("error") come one by one, in the order saved,
    because the scorecard counts them per conversation and quotes the first one's reason.
    """
    engine = stores.repo.engine
    if answered_by is None:
        run = stores.repo.get_run(run_id)
        if run is None:
            raise ValueError(f"no run {run_id!r} is stored (see `polygon runs`)")
        answered_by = answerer_for(stores, run, None)
    out = [_answer(conversation_id, probe_id, wording, polarity, "error", evidence, answered_by)
           for conversation_id, probe_id, wording, polarity, evidence
           in reads.probe_errors(engine, run_id, answered_by)]
    for probe_id, wording, polarity, answer, count in reads.probe_answer_counts(engine, run_id, answered_by):
        if answer != "error":
            out.extend([_answer("", probe_id, wording, polarity, answer, None, answered_by)] * count)
    return out


def _answer(conversation_id: str, probe_id: str, wording: str, polarity: str, answer: str,
            evidence: str | None, answered_by: str) -> ProbeAnswer:
    # Stored answers were validated when saved; reading them back needs no second validation.
    fields: dict[str, Any] = dict(conversation_id=conversation_id, probe_id=probe_id, wording_hash=wording,
                                  polarity=polarity, answer=answer, evidence=evidence, answered_by=answered_by)
    return ProbeAnswer.model_construct(**fields)


def scorecard_of(stores: Stores, run: Run, *, label: str | None = None, rubric_version: str | None = None,
                 judge: str | None = None, latencies: Mapping[str, float | None] | None = None,
                 rows: list[ResultRow] | None = None, probe_model: str | None = None) -> Scorecard:
    """One run's scorecard under one rubric version, one judge (see `judge_for`) and one probe
    answerer (see `answerer_for`), from SQL reads.

    `rows` when the caller already holds them (for the same version and judge), else they are read.
    The card's `models` are the run's with `judge` and `probe` set to the two it shows, so its
    provenance names whose numbers they are (a `--judge M` card says judge=M, not the run's own).
    """
    version = rubric_version or run.rubric_version
    chosen = judge_for(stores, run, version, judge)
    answerer = answerer_for(stores, run, probe_model)
    if rows is None:
        rows = list(rows_of(stores, run.id, version, chosen, latencies=latencies))
    models = {**run.models, "judge": chosen, "probe": answerer}
    return build_scorecard(label or f"{run.agent_name}@{run.agent_version}", run.id, run.agent_version,
                           version, chosen, rows, probe_answer_tally(stores, run.id, answerer), models=models,
                           source=run.source)


@dataclass(frozen=True)
class RunView:
    """What `polygon show` prints for one run: its scorecard and a page of its result rows.

    `rows` is streamed (one SQL cursor): iterate it once. `total` counts every conversation, so a
    front end can say how many the page left out.
    """

    run: Run
    card: Scorecard
    judges: list[str]
    total: int
    answerers: list[str]
    offset: int
    rows: Iterator[ResultRow]


def run_view(stores: Stores, run_id: str, *, rubric_version: str | None = None, judge: str | None = None,
             offset: int = 0, limit: int | None = 50, probe_model: str | None = None) -> RunView:
    """One run's scorecard (computed once, from SQL reads) and the rows `offset`..`offset + limit`
    by conversation id (`limit=None`: every row, streamed).

    Raises ValueError for an unknown run, a `judge` that has no judgments under the version, or a
    `probe_model` that answered no probe of the run.
    """
    run = stores.repo.get_run(run_id)
    if run is None:
        raise ValueError(f"no run {run_id!r} is stored (see `polygon runs`)")
    version = rubric_version or run.rubric_version
    judges = judges_of(stores, run.id, version)
    if judge is not None and judge not in judges:
        raise ValueError(f"run {run.id} has no judgments by {judge!r} under rubric {version}; "
                         f"judged by: {', '.join(sorted(judges)) or 'nobody yet'}")
    answerers = answerers_of(stores, run.id)
    if probe_model is not None and probe_model not in answerers:
        raise ValueError(f"run {run.id} has no probe answers by {probe_model!r}; "
                         f"answered by: {', '.join(sorted(answerers)) or 'nobody yet'}")
    card = scorecard_of(stores, run, rubric_version=version, judge=judge, probe_model=probe_model)
    card = _with_stored_latency(stores, run.id, card)
    rows = _with_end_details(stores, run.id, rows_of(stores, run.id, version, card.judge_model,
                                                     offset=offset, limit=limit))
    return RunView(run=run, card=card, judges=judges, total=card.conversations, offset=offset, rows=rows,
                   answerers=answerers)


def _with_stored_latency(stores: Stores, run_id: str, card: Scorecard) -> Scorecard:
    """The card with the mean agent latency its finished run stored (`finish_run` reads it from the
    transcripts, which SQL does not hold): the same figure the run's artifact and comparison give.
    Latency is the transcripts' alone, so it holds under any rubric version, judge or answerer."""
    if card.latency_ms is not None:
        return card
    stored = (stores.repo.get_run_summary(run_id) or {}).get("latency_ms")
    return card if stored is None else card.model_copy(update={"latency_ms": float(stored)})


_UNSCORED = {str(r.value) for r in UNSCORED_END_REASONS}


def _with_end_details(stores: Stores, run_id: str, rows: Iterator[ResultRow]) -> Iterator[ResultRow]:
    # An unscored conversation has no judgment to give a reason; its end_detail (what broke: a
    # stub's template, a provider) is in its transcript artifact, read for those rows only.
    for row in rows:
        if row.end_reason in _UNSCORED and row.reason is None:
            detail = load_conversation(stores, run_id, row.conversation_id).end_detail
            yield row.model_copy(update={"reason": detail or "no detail recorded"})
        else:
            yield row


def failed_text(row: ResultRow) -> str:
    """A row's failed assertions (with the turn that broke each), after a broken call's or judge's reason.

    An assertion that could not be evaluated shows as `name: error (why)`: it did not count, which a
    plain name (read as a fail) would hide.
    """
    failed = ", ".join(
        f"{name}: error ({row.assertion_errors.get(name) or 'no reason recorded'})" if status == "error"
        else name + (f" (turn {row.assertion_turns[name]})" if name in row.assertion_turns else "")
        for name, status in row.assertions.items() if status in ("fail", "error"))
    if row.status in ("agent_failure", "judge_error"):
        failed = f"{row.status}: {row.reason}" + (f"; {failed}" if failed else "")
    elif row.end_reason in _UNSCORED and row.reason:
        failed = f"{row.end_reason}: {row.reason}" + (f"; {failed}" if failed else "")
    return failed
