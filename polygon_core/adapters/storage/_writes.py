"""The result writes (a conversation row, a judgment, probe answers), each as a function of a session.

`Repository` runs one of them in its own transaction; `BatchWriter` runs many in one. The values
are built (and checked) when the write is made, in the caller's thread, so bad input raises there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, col, select

from polygon_core.models import AssertionResult, Conversation, Judgment, ProbeAnswer

from ._convert import row_values
from ._records import ConversationRecord
from ._tables import ConversationRow, JudgmentRow, ProbeAnswerRow, RunRow
from ._upsert import upsert

__all__ = ["RunNotFoundError", "require_run", "write_conversation", "write_judgment", "write_probe_answers"]

Write = Callable[[Session], None]

# Postgres' bigint is signed 64-bit; a larger seed would overflow inside the database.
_SEED_MIN, _SEED_MAX = -(2**63), 2**63 - 1

# The record's fields a conversation has under the same name; the others (its keys, turn count,
# artifact URI, assertions and metrics) are given by the write.
_FROM_CONVERSATION = tuple(name for name in ConversationRecord.model_fields if name in Conversation.model_fields)


class RunNotFoundError(LookupError):
    """No run with the given id."""


def require_run(session: Session, run_id: str, *, lock: bool = False) -> None:
    """Raise RunNotFoundError unless the run is stored (`lock`: hold its row until the commit)."""
    query = select(col(RunRow.id)).where(col(RunRow.id) == run_id)
    if lock:
        query = query.with_for_update()  # ignored by SQLite, whose writes are serial anyway
    if session.exec(query).first() is None:
        raise RunNotFoundError(f"no run {run_id!r}; save the run before its results")


def write_conversation(run_id: str, conversation: Conversation, *, artifact_uri: str,
                       assertions: Sequence[AssertionResult], metrics: dict[str, Any] | None = None) -> Write:
    """The write of a finished conversation's row (keyed on run and conversation id)."""
    if not _SEED_MIN <= conversation.seed <= _SEED_MAX:
        raise ValueError(
            f"conversation {conversation.id!r}: seed {conversation.seed} does not fit a "
            "signed 64-bit integer"
        )
    record = ConversationRecord(
        run_id=run_id, conversation_id=conversation.id, turn_count=len(conversation.turns),
        artifact_uri=artifact_uri, assertions=list(assertions), metrics=metrics,
        **{name: getattr(conversation, name) for name in _FROM_CONVERSATION},
    )
    values = row_values(record)

    def write(session: Session) -> None:
        require_run(session, run_id)
        upsert(session, ConversationRow, values, key=("run_id", "conversation_id"))

    return write


def write_judgment(run_id: str, judgment: Judgment) -> Write:
    """The write of a judgment, replacing one of the same rubric version and judge model."""
    values = row_values(judgment, run_id=run_id)

    def write(session: Session) -> None:
        # Locking the run row serialises judgment writes of one run, so `seq` stays a strict
        # insertion order even with many workers (SQLite serialises writes anyway).
        require_run(session, run_id, lock=True)
        last = session.exec(select(func.max(JudgmentRow.seq)).where(col(JudgmentRow.run_id) == run_id)).one()
        upsert(session, JudgmentRow, {**values, "seq": (last or 0) + 1},
               key=("run_id", "conversation_id", "rubric_version", "judge_model"))

    return write


def write_probe_answers(run_id: str, answers: Iterable[ProbeAnswer]) -> Write | None:
    """The write of probe answers, all or none (None when there are none)."""
    rows = [row_values(a, run_id=run_id) for a in answers]
    if not rows:
        return None
    key = ("run_id", "conversation_id", "probe_id", "wording_hash", "answered_by")

    def write(session: Session) -> None:
        require_run(session, run_id)
        for values in rows:
            upsert(session, ProbeAnswerRow, values, key=key)

    return write
