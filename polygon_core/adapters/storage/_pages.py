"""Paginated reads for the web app and API: one page of a large run, never the whole run.

`Repository.list_conversations` and `judgments` return a whole run, which is right for a flow but
slow for a page over thousands of conversations; these functions filter, sort and cut in SQL, and
look one conversation up by its key.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import sqlalchemy as sa
from sqlmodel import Session, col, select

from polygon_core.models import Judgment, ProbeAnswer

from ._convert import judgment_from_row, probe_from_row, record_from_row
from ._records import ConversationRecord
from ._tables import ConversationRow, JudgmentRow, ProbeAnswerRow, RunRow

__all__ = [
    "CONVERSATION_SORTS",
    "ConversationSort",
    "conversation_judgments",
    "conversation_page",
    "conversation_probe_answers",
    "conversation_record",
    "judgment_page",
    "run_summaries",
]

ConversationSort = Literal["conversation_id", "scenario_id", "composite", "-composite", "turn_count",
                           "-turn_count"]
CONVERSATION_SORTS: tuple[str, ...] = ("conversation_id", "scenario_id", "composite", "-composite",
                                       "turn_count", "-turn_count")


def conversation_page(engine: sa.Engine, run_id: str, *, rubric_version: str, offset: int = 0,
                      limit: int = 50, sort: str = "conversation_id", scenario: str | None = None,
                      verdict: str | None = None, end_reason: str | None = None,
                      caller_type: str | None = None) -> tuple[int, list[dict[str, Any]]]:
    """(total matching, one page of rows): each conversation's headline facts and its judgment.

    The judgment is the latest one under `rubric_version`; `verdict="unjudged"` selects
    conversations without one. Ties in any sort are broken by conversation id, so pages are stable.
    """
    if sort not in CONVERSATION_SORTS:
        raise ValueError(f"sort must be one of {', '.join(CONVERSATION_SORTS)}, not {sort!r}")
    c = ConversationRow.__table__  # type: ignore[attr-defined]
    j = JudgmentRow.__table__  # type: ignore[attr-defined]
    # The latest judgment under the version (several judges may have judged it): a correlated
    # max(seq) that the (run, conversation, rubric, judge) unique index answers per row.
    later = JudgmentRow.__table__.alias("later")  # type: ignore[attr-defined]
    newest = (sa.select(sa.func.max(later.c.seq))
              .where(later.c.run_id == j.c.run_id, later.c.conversation_id == j.c.conversation_id,
                     later.c.rubric_version == j.c.rubric_version)
              .scalar_subquery())
    joined = c.outerjoin(j, sa.and_(j.c.run_id == c.c.run_id, j.c.conversation_id == c.c.conversation_id,
                                    j.c.rubric_version == rubric_version, j.c.seq == newest))
    where = [c.c.run_id == run_id]
    if scenario:
        where.append(c.c.scenario_id == scenario)
    if end_reason:
        where.append(c.c.end_reason == end_reason)
    if caller_type:
        where.append(c.c.caller_type == caller_type)
    if verdict == "unjudged":
        where.append(j.c.id.is_(None))
    elif verdict:
        where.append(j.c.verdict == verdict)
    order: list[Any] = {
        "conversation_id": [],
        "scenario_id": [c.c.scenario_id, c.c.seed],
        "composite": [j.c.composite.is_(None), j.c.composite],
        "-composite": [j.c.composite.is_(None), j.c.composite.desc()],
        "turn_count": [c.c.turn_count],
        "-turn_count": [c.c.turn_count.desc()],
    }[sort]
    query = (sa.select(c.c.conversation_id, c.c.scenario_id, c.c.seed, c.c.caller_type, c.c.difficulty,
                       c.c.end_reason, c.c.turn_count, c.c.assertions, j.c.composite, j.c.verdict,
                       j.c.partial, j.c.gates, j.c.judge_model, j.c.status, j.c.reason)
             .select_from(joined).where(*where).order_by(*order, c.c.conversation_id)
             .offset(max(offset, 0)).limit(max(limit, 0)))
    count = sa.select(sa.func.count()).select_from(joined).where(*where)
    with engine.connect() as conn:
        total = conn.execute(count).scalar_one()
        rows = conn.execute(query).mappings().all()
    items = []
    for r in rows:
        failed = [a["name"] for a in (r["assertions"] or []) if a.get("status") in ("fail", "error")]
        items.append({
            "conversation_id": r["conversation_id"], "scenario_id": r["scenario_id"], "seed": r["seed"],
            "caller_type": r["caller_type"], "difficulty": r["difficulty"], "end_reason": r["end_reason"],
            "turn_count": r["turn_count"], "composite": r["composite"], "verdict": r["verdict"],
            "partial": bool(r["partial"]) if r["partial"] is not None else False,
            "gates": [g["gate"] for g in (r["gates"] or [])], "judge_model": r["judge_model"],
            "assertions_failed": failed, "status": r["status"], "reason": r["reason"],
        })
    return total, items


def conversation_record(engine: sa.Engine, run_id: str, conversation_id: str) -> ConversationRecord | None:
    """One stored conversation's record, by its key; None when the run did not record it."""
    query = select(ConversationRow).where(col(ConversationRow.run_id) == run_id,
                                          col(ConversationRow.conversation_id) == conversation_id)
    with Session(engine) as session:
        row = session.exec(query).first()
        return record_from_row(row) if row is not None else None


def conversation_judgments(engine: sa.Engine, run_id: str, conversation_id: str) -> list[Judgment]:
    """Every judgment of one conversation (all rubric versions and judges), in the order saved."""
    query = (select(JudgmentRow).where(col(JudgmentRow.run_id) == run_id,
                                       col(JudgmentRow.conversation_id) == conversation_id)
             .order_by(col(JudgmentRow.seq), col(JudgmentRow.id)))
    with Session(engine) as session:
        return [judgment_from_row(r) for r in session.exec(query)]


def conversation_probe_answers(engine: sa.Engine, run_id: str, conversation_id: str) -> list[ProbeAnswer]:
    """One conversation's probe answers, in the order first saved."""
    query = (select(ProbeAnswerRow).where(col(ProbeAnswerRow.run_id) == run_id,
                                          col(ProbeAnswerRow.conversation_id) == conversation_id)
             .order_by(col(ProbeAnswerRow.id)))
    with Session(engine) as session:
        return [probe_from_row(r) for r in session.exec(query)]


def judgment_page(engine: sa.Engine, run_id: str, *, rubric_version: str | None = None, offset: int = 0,
                  limit: int = 50) -> tuple[int, list[Judgment]]:
    """(total, one page) of a run's judgments in the order saved, optionally of one rubric version."""
    where = [col(JudgmentRow.run_id) == run_id]
    if rubric_version is not None:
        where.append(col(JudgmentRow.rubric_version) == rubric_version)
    query = (select(JudgmentRow).where(*where).order_by(col(JudgmentRow.seq), col(JudgmentRow.id))
             .offset(max(offset, 0)).limit(max(limit, 0)))
    with Session(engine) as session:
        total = session.exec(select(sa.func.count()).select_from(JudgmentRow).where(*where)).one()
        return int(total), [judgment_from_row(r) for r in session.exec(query)]


def run_summaries(engine: sa.Engine, run_ids: Sequence[str]) -> dict[str, dict[str, Any] | None]:
    """The stored summaries (scorecards) of several runs in one query."""
    if not run_ids:
        return {}
    query = select(col(RunRow.id), col(RunRow.summary)).where(col(RunRow.id).in_(list(run_ids)))
    with Session(engine) as session:
        return {rid: summary for rid, summary in session.exec(query)}
