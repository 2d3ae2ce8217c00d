"""Reads for scorecards, `polygon show` and `polygon compare`: the columns they need, in SQL, streamed.

`Repository.list_conversations` and `judgments` validate every stored row into a domain model
(every criterion's evidence, every raw judge reply), which at 100,000 conversations costs seconds
and gigabytes. These functions select only the columns a result row needs, join each
conversation to one judge's judgment in SQL, count one answerer's probe answers with GROUP BY, and yield rows as
the cursor gives them, so a caller holds one row (or one page) at a time.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import sqlalchemy as sa
from pydantic_core import from_json

from ._tables import ConversationRow, JudgmentRow, ProbeAnswerRow

__all__ = ["conversation_count", "judges_by_recency", "pairing_keys", "probe_answer_counts",
           "probe_answerers_by_recency", "probe_errors", "result_facts"]

_C = ConversationRow.__table__  # type: ignore[attr-defined]
_J = JudgmentRow.__table__  # type: ignore[attr-defined]
_P = ProbeAnswerRow.__table__  # type: ignore[attr-defined]
_STREAM = 2_000  # rows fetched per round trip while streaming
_JSON_KEYS = ("assertions", "usage", "gates", "criteria", "voice", "voice_stack")


def _text(*columns: Any) -> list[Any]:
    # JSON columns read as text and parsed by pydantic-core (2.5× json.loads, which SQLAlchemy's JSON
    # type would call per cell); CAST so Postgres' driver hands back text too, not parsed values.
    return [sa.cast(c, sa.Text).label(c.name) for c in columns]


def judges_by_recency(engine: sa.Engine, run_id: str, rubric_version: str) -> list[str]:
    """The judges with judgments of the run under `rubric_version`, the one that judged last last."""
    query = (sa.select(_J.c.judge_model, sa.func.max(_J.c.seq).label("last"))
             .where(_J.c.run_id == run_id, _J.c.rubric_version == rubric_version)
             .group_by(_J.c.judge_model).order_by(sa.literal_column("last"), _J.c.judge_model))
    with engine.connect() as conn:
        return [str(r[0]) for r in conn.execute(query)]


def conversation_count(engine: sa.Engine, run_id: str) -> int:
    """How many conversations the run recorded."""
    query = sa.select(sa.func.count()).select_from(_C).where(_C.c.run_id == run_id)
    with engine.connect() as conn:
        return int(conn.execute(query).scalar_one())


def result_facts(engine: sa.Engine, run_id: str, rubric_version: str, judge_model: str, *,
                 offset: int = 0, limit: int | None = None) -> Iterator[dict[str, Any]]:
    """Each stored conversation of the run (by conversation id) with `judge_model`'s judgment under
    `rubric_version` (its columns None when it has none), as plain values, streamed.

    Keys: conversation_id, scenario_id, seed, caller_type, difficulty, end_reason, assertions (list
    of dicts), usage (role → dict), composite, verdict, partial, gates, criteria (lists of dicts),
    status, reason, voice (a call's metrics, name → {value, count}, from the stored checks'
    metrics; None on a text conversation), voice_stack (what a call was made with, key → text,
    `Metrics.voice_stack`; None on a text conversation and on a call stored before it was kept).
    """
    joined = _C.outerjoin(_J, sa.and_(_J.c.run_id == _C.c.run_id, _J.c.conversation_id == _C.c.conversation_id,
                                      _J.c.rubric_version == rubric_version, _J.c.judge_model == judge_model))
    query = (sa.select(_C.c.conversation_id, _C.c.scenario_id, _C.c.seed, _C.c.caller_type, _C.c.difficulty,
                       _C.c.end_reason, *_text(_C.c.assertions, _C.c.usage), _J.c.composite, _J.c.verdict,
                       _J.c.partial, *_text(_J.c.gates, _J.c.criteria), _J.c.status, _J.c.reason,
                       # Only the metrics' `voice` parts (JSON_EXTRACT / ->): a text row reads NULL or 'null'.
                       sa.cast(_C.c.metrics["voice"], sa.Text).label("voice"),
                       sa.cast(_C.c.metrics["voice_stack"], sa.Text).label("voice_stack"))
             .select_from(joined).where(_C.c.run_id == run_id).order_by(_C.c.conversation_id))
    if offset:
        query = query.offset(offset)
    if limit is not None:
        query = query.limit(max(limit, 0))
    with engine.connect() as conn:
        result = conn.execution_options(stream_results=True, yield_per=_STREAM).execute(query)
        for row in result.mappings():
            facts = dict(row)
            for key in _JSON_KEYS:
                facts[key] = None if facts[key] is None else from_json(facts[key])
            yield facts


def pairing_keys(engine: sa.Engine, run_id: str) -> Iterator[tuple[str, int, str]]:
    """(scenario id, seed, conversation id) of each stored conversation, by scenario, seed and id."""
    query = (sa.select(_C.c.scenario_id, _C.c.seed, _C.c.conversation_id).where(_C.c.run_id == run_id)
             .order_by(_C.c.scenario_id, _C.c.seed, _C.c.conversation_id))
    with engine.connect() as conn:
        result = conn.execution_options(stream_results=True, yield_per=_STREAM).execute(query)
        for scenario_id, seed, conversation_id in result:
            yield str(scenario_id), int(seed), str(conversation_id)


def probe_answerers_by_recency(engine: sa.Engine, run_id: str) -> list[str]:
    """The answerers with probe answers of the run, the one whose newest answer was first saved last
    last (the probe side of `judges_by_recency`)."""
    query = (sa.select(_P.c.answered_by, sa.func.max(_P.c.id).label("last"))
             .where(_P.c.run_id == run_id)
             .group_by(_P.c.answered_by).order_by(sa.literal_column("last"), _P.c.answered_by))
    with engine.connect() as conn:
        return [str(r[0]) for r in conn.execute(query)]


def probe_answer_counts(engine: sa.Engine, run_id: str, answered_by: str) -> list[tuple[str, str, str, str, int]]:
    """(probe id, wording hash, polarity, answer, how many) over the run's probe answers by
    `answered_by` (one answerer: two answerers' answers on one conversation are not two conversations)."""
    query = (sa.select(_P.c.probe_id, _P.c.wording_hash, _P.c.polarity, _P.c.answer, sa.func.count())
             .where(_P.c.run_id == run_id, _P.c.answered_by == answered_by)
             .group_by(_P.c.probe_id, _P.c.wording_hash, _P.c.polarity, _P.c.answer)
             .order_by(_P.c.probe_id, _P.c.wording_hash, _P.c.polarity, _P.c.answer))
    with engine.connect() as conn:
        return [(str(p), str(w), str(pol), str(a), int(n)) for p, w, pol, a, n in conn.execute(query)]


def probe_errors(engine: sa.Engine, run_id: str, answered_by: str) -> list[tuple[str, str, str, str, str | None]]:
    """(conversation id, probe id, wording hash, polarity, evidence) of each failed probe answer
    ("error") by `answered_by`, in the order first saved."""
    query = (sa.select(_P.c.conversation_id, _P.c.probe_id, _P.c.wording_hash, _P.c.polarity, _P.c.evidence)
             .where(_P.c.run_id == run_id, _P.c.answered_by == answered_by, _P.c.answer == "error")
             .order_by(_P.c.id))
    with engine.connect() as conn:
        return [(str(c), str(p), str(w), str(pol), e) for c, p, w, pol, e in conn.execute(query)]
