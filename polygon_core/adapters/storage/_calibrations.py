"""Calibration records: which judge agreed how well with people, on which labels (revision 0004).

Kept apart from ``Repository`` (runs and their results) like the import ledger: a calibration is
about a judge, keyed by judge model, rubric version and judge-prompt hash, not about one run.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, func, select
from sqlmodel import Session

from polygon_core.calibration import Calibration

from ._engine import WRITE_OPTION
from ._tables import CalibrationRow, ConversationRow
from ._upsert import upsert

__all__ = ["CalibrationStore"]

_T = CalibrationRow.__table__  # type: ignore[attr-defined]
_C = ConversationRow.__table__  # type: ignore[attr-defined]
# Ids per IN list: well under any database's bound-parameter limit.
_BATCH = 500
_KEY = ("judge_model", "rubric_version", "judge_prompt_hash", "run_id", "labels_hash", "seed", "resamples")


class CalibrationStore:
    """Reads and writes calibration records through an existing engine (the repository's)."""

    def __init__(self, engine: Engine) -> None:
        """Use `engine` (its schema must be at head: see ``ensure_database``)."""
        self.engine = engine

    def save(self, calibration: Calibration, *, created_at: str | None = None) -> Calibration:
        """Store a calibration (stamped now unless `created_at` is given) and return it as stored.

        The same judge, rubric, prompt, run, labels, seed and resamples again replaces the
        record (a retried task, or a calibration made again after more judgments were added).
        """
        stamped = calibration.model_copy(update={"created_at": created_at or _now_iso()})
        values = {name: getattr(stamped, name) for name in _KEY}
        values.update(n=stamped.n, results=stamped.model_dump(mode="json"), created_at=stamped.created_at)
        with Session(self.engine) as session, session.begin():
            session.connection(execution_options={WRITE_OPTION: True})
            upsert(session, CalibrationRow, values, key=_KEY)
        return stamped

    def latest(self, judge_model: str, rubric_version: str) -> Calibration | None:
        """The newest calibration of this judge under this rubric version, whatever its prompt."""
        query = (select(_T.c.results, _T.c.created_at)
                 .where(_T.c.judge_model == judge_model, _T.c.rubric_version == rubric_version)
                 .order_by(_T.c.created_at.desc(), _T.c.id.desc()).limit(1))
        with self.engine.connect() as connection:
            row = connection.execute(query).first()
        return _calibration(row) if row is not None else None

    def of_judge(self, judge_model: str, rubric_version: str) -> list[Calibration]:
        """Every calibration of this judge under this rubric version, newest first (what a
        scorecard chooses from: `polygon.usecases.shown_calibration`)."""
        query = (select(_T.c.results, _T.c.created_at)
                 .where(_T.c.judge_model == judge_model, _T.c.rubric_version == rubric_version)
                 .order_by(_T.c.created_at.desc(), _T.c.id.desc()))
        with self.engine.connect() as connection:
            return [_calibration(row) for row in connection.execute(query)]

    def holds_any(self, run_ids: Sequence[str], conversation_ids: Sequence[str]) -> bool:
        """Whether any of the runs recorded any of the conversations (an imported call's id is the
        same in every run that graded it), one query per 500 runs and 500 conversation ids."""
        runs, ids = list(dict.fromkeys(run_ids)), list(dict.fromkeys(conversation_ids))
        if not runs or not ids:
            return False
        chunks = [(runs[r:r + _BATCH], ids[i:i + _BATCH])
                  for r in range(0, len(runs), _BATCH) for i in range(0, len(ids), _BATCH)]
        with self.engine.connect() as connection:
            for some_runs, some_ids in chunks:
                query = (select(_C.c.id).where(_C.c.run_id.in_(some_runs), _C.c.conversation_id.in_(some_ids))
                         .limit(1))
                if connection.execute(query).first() is not None:
                    return True
        return False

    def page(self, *, offset: int = 0, limit: int = 50, judge_model: str | None = None,
             rubric_version: str | None = None) -> tuple[int, list[Calibration]]:
        """(total matching, one page): calibrations newest first, optionally of one judge / rubric."""
        where = []
        if judge_model is not None:
            where.append(_T.c.judge_model == judge_model)
        if rubric_version is not None:
            where.append(_T.c.rubric_version == rubric_version)
        count = select(func.count()).select_from(_T).where(*where)
        query = (select(_T.c.results, _T.c.created_at).where(*where)
                 .order_by(_T.c.created_at.desc(), _T.c.id.desc())
                 .offset(max(offset, 0)).limit(max(limit, 0)))
        with self.engine.connect() as connection:
            total = int(connection.execute(count).scalar_one())
            return total, [_calibration(row) for row in connection.execute(query)]


def _calibration(row: Any) -> Calibration:  # a (results, created_at) row
    results, created_at = row
    return Calibration.model_validate({**results, "created_at": created_at})


def _now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")
