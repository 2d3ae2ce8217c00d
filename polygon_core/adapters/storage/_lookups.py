"""Reads of one conversation's stored results: what a retried or resumed step checks before it works."""

from __future__ import annotations

from sqlalchemy import Engine
from sqlmodel import Session, col, select

from polygon_core.models import Judgment, ProbeAnswer

from ._convert import judgment_from_row, probe_from_row
from ._tables import JudgmentRow, ProbeAnswerRow

__all__ = ["ConversationLookups"]


class ConversationLookups:
    """Keyed reads of one conversation's judgment and probe answers (a mixin of `Repository`)."""

    engine: Engine

    def judgment_of(self, run_id: str, conversation_id: str, rubric_version: str,
                    judge_model: str) -> Judgment | None:
        """The stored judgment of one conversation under one rubric version by one judge, if any."""
        query = select(JudgmentRow).where(
            col(JudgmentRow.run_id) == run_id, col(JudgmentRow.conversation_id) == conversation_id,
            col(JudgmentRow.rubric_version) == rubric_version, col(JudgmentRow.judge_model) == judge_model)
        with Session(self.engine) as session:
            row = session.exec(query.limit(1)).first()
            return judgment_from_row(row) if row is not None else None

    def probe_answers_of(self, run_id: str, conversation_id: str) -> list[ProbeAnswer]:
        """One conversation's stored probe answers, in the order they were first saved."""
        query = (select(ProbeAnswerRow)
                 .where(col(ProbeAnswerRow.run_id) == run_id,
                        col(ProbeAnswerRow.conversation_id) == conversation_id)
                 .order_by(col(ProbeAnswerRow.id)))
        with Session(self.engine) as session:
            return [probe_from_row(row) for row in session.exec(query)]
