"""Repository: Polygon's results in a SQL database (SQLite by default, Postgres in production).

Methods take and return domain models; the table rows never leave this module. Every write
runs in one transaction, so a failure leaves nothing half-written, and every write is keyed so
that a retried task replaces its own row instead of adding a second one.
"""

from __future__ import annotations

import heapq
from collections.abc import Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any, get_args

from alembic.script import ScriptDirectory
from alembic.util import CommandError
from sqlalchemy import Engine, func, update
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import URL
from sqlmodel import Session, col, select

from polygon_core.models import (
    AssertionResult,
    Conversation,
    Judgment,
    ProbeAnswer,
    Run,
)

from ._convert import judgment_from_row, probe_from_row, record_from_row, row_values, run_from_row
from ._engine import WRITE_OPTION, make_engine
from ._lookups import ConversationLookups
from ._migrate import (
    DatabaseNotReadyError,
    alembic_config,
    current_revision,
    head_revision,
    polygon_tables,
)
from ._migrate import upgrade as _upgrade
from ._records import ConversationRecord
from ._retry import retry_write
from ._tables import TABLE_NAMES, ConversationRow, JudgmentRow, ProbeAnswerRow, RunRow
from ._upsert import upsert
from ._writes import RunNotFoundError, write_conversation, write_judgment, write_probe_answers

__all__ = ["Repository", "RunNotFoundError", "not_ready_message"]

RUN_STATUSES: tuple[str, ...] = get_args(Run.model_fields["status"].annotation)

# How many candidates an ambiguous run-id prefix lists.
_AMBIGUOUS_SHOWN = 10
# Conversation ids per IN list: far below SQLite's ~32k bound variables (and PostgreSQL's 65,535).
_IN_CHUNK = 500


class Repository(ConversationLookups):
    """Runs, conversations, judgments and probe answers in one database.

    ``url`` is any SQLAlchemy URL: ``sqlite:///path/polygon.db`` (folder created as needed) or
    ``postgresql+psycopg://user@host/db`` (plain ``postgresql://`` also means psycopg 3).
    The schema is managed by Alembic: call ``upgrade()`` (or use ``ensure_database``).
    """

    def __init__(self, url: str | URL) -> None:
        """Connect lazily to ``url``; nothing is created until the first statement."""
        self.engine: Engine = make_engine(url)

    # -- lifecycle -----------------------------------------------------------------------------

    @property
    def url(self) -> str:
        """The database URL with any password masked."""
        return self.engine.url.render_as_string(hide_password=True)

    @property
    def dialect(self) -> str:
        """``sqlite`` or ``postgresql`` (or another SQLAlchemy backend name)."""
        return self.engine.dialect.name

    def __repr__(self) -> str:
        return f"Repository({self.url!r})"

    def close(self) -> None:
        """Close every pooled connection."""
        self.engine.dispose()

    def __enter__(self) -> Repository:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # -- schema --------------------------------------------------------------------------------

    def upgrade(self) -> None:
        """Migrate the schema to the newest revision (a no-op when it is already there)."""
        _upgrade(self.engine)

    def current_revision(self) -> str | None:
        """The schema revision the database is at; None before the first upgrade."""
        return current_revision(self.engine)

    def is_empty(self) -> bool:
        """True when none of Polygon's tables (nor its migration record) exist yet."""
        return self.current_revision() is None and not polygon_tables(self.engine)

    def needs_upgrade(self) -> bool:
        """True when the schema is missing or older than this Polygon's migrations.

        Raises DatabaseNotReadyError when the database is at a revision these migrations do
        not know (it was migrated by a newer Polygon).
        """
        current = self.current_revision()
        if current is None:
            return True
        head = head_revision()
        if current == head:
            return False
        try:
            ScriptDirectory.from_config(alembic_config()).get_revision(current)
        except CommandError as exc:
            raise DatabaseNotReadyError(
                f"database {self.url} is at schema revision {current!r}, which this version of "
                f"Polygon does not know (newest here: {head!r}); upgrade Polygon"
            ) from exc
        return True

    # -- runs ----------------------------------------------------------------------------------

    @retry_write
    def save_run(self, run: Run) -> Run:
        """Insert or update a run; returns it as stored (``created_at`` set if it was None).

        Re-saving keeps the run's summary, report URI and (when ``created_at`` or ``provenance`` is
        None) its original creation time and provenance.
        """
        values = row_values(run, created_at=run.created_at or _now_iso())
        # A run re-saved without its provenance (or creation time) keeps the stored one.
        keep = (*(() if run.created_at else ("created_at",)), *(() if run.provenance else ("provenance",)))
        with self._write() as session:
            upsert(session, RunRow, values, key=("id",), keep=keep)
            row = session.get(RunRow, run.id, populate_existing=True)
            assert row is not None  # just written in this transaction
            return run_from_row(row)

    @retry_write
    def set_run_status(
        self,
        run_id: str,
        status: str,
        summary: dict[str, Any] | None = None,
        report_uri: str | None = None,
    ) -> None:
        """Set a run's status; also its summary and report URI when given (None keeps them)."""
        if status not in RUN_STATUSES:
            raise ValueError(f"invalid run status {status!r}; expected one of {RUN_STATUSES}")
        changes: dict[str, Any] = {"status": status}
        if summary is not None:
            changes["summary"] = summary
        if report_uri is not None:
            changes["report_uri"] = report_uri
        with self._write() as session:
            result = session.exec(update(RunRow).where(col(RunRow.id) == run_id).values(**changes))
            if result.rowcount == 0:
                raise RunNotFoundError(f"no run {run_id!r}")

    def get_run(self, run_id: str, *, exact: bool = False) -> Run | None:
        """The run with this id, or with this unique id prefix; None when nothing matches.

        Raises ValueError naming the candidates when a prefix matches several runs. Pass
        ``exact=True`` to check whether a given id exists: a prefix match would otherwise
        return another run (``r1`` finds ``r10``).
        """
        with self._read() as session:
            row = session.get(RunRow, run_id) if exact else self._find_run(session, run_id)
            return run_from_row(row) if row is not None else None

    def get_run_summary(self, run_id: str) -> dict[str, Any] | None:
        """The summary stored by ``set_run_status`` (id or unique prefix); None if none."""
        with self._read() as session:
            row = self._find_run(session, run_id)
            return row.summary if row is not None else None

    def get_run_report_uri(self, run_id: str) -> str | None:
        """The report URI stored by ``set_run_status`` (id or unique prefix); None if none."""
        with self._read() as session:
            row = self._find_run(session, run_id)
            return row.report_uri if row is not None else None

    def list_runs(self, limit: int | None = 50) -> list[Run]:
        """Runs, newest first (by ``created_at``, then id); ``limit=None`` returns all."""
        query = select(RunRow).order_by(col(RunRow.created_at).desc(), col(RunRow.id).desc())
        if limit is not None:
            query = query.limit(max(limit, 0))
        with self._read() as session:
            return [run_from_row(row) for row in session.exec(query)]

    # -- conversations -------------------------------------------------------------------------

    @retry_write
    def save_conversation(
        self,
        run_id: str,
        conversation: Conversation,
        *,
        artifact_uri: str,
        assertions: Sequence[AssertionResult],
        metrics: dict[str, Any] | None = None,
    ) -> None:
        """Record a finished conversation of a run (its transcript is at ``artifact_uri``).

        Idempotent on ``(run_id, conversation.id)``: saving again replaces the row.
        """
        write = write_conversation(run_id, conversation, artifact_uri=artifact_uri, assertions=assertions,
                                   metrics=metrics)
        with self._write() as session:
            write(session)

    def has_conversation(self, run_id: str, conversation_id: str) -> bool:
        """Whether this run already recorded this conversation (the resume check)."""
        query = select(col(ConversationRow.id)).where(
            col(ConversationRow.run_id) == run_id,
            col(ConversationRow.conversation_id) == conversation_id,
        )
        with self._read() as session:
            return session.exec(query.limit(1)).first() is not None

    def conversation_ids(self, run_id: str) -> set[str]:
        """Ids of every conversation the run recorded."""
        query = select(col(ConversationRow.conversation_id)).where(
            col(ConversationRow.run_id) == run_id
        )
        with self._read() as session:
            return set(session.exec(query))

    def list_conversations(self, run_id: str) -> list[ConversationRecord]:
        """The run's conversation records, ordered by conversation id."""
        query = (
            select(ConversationRow)
            .where(col(ConversationRow.run_id) == run_id)
            .order_by(col(ConversationRow.conversation_id))
        )
        with self._read() as session:
            return [record_from_row(row) for row in session.exec(query)]

    # -- judgments -----------------------------------------------------------------------------

    @retry_write
    def save_judgment(self, run_id: str, judgment: Judgment) -> None:
        """Add a judgment; one of the same rubric version and judge model is replaced.

        Judgments under other rubric versions (or by other judges) are never touched.
        """
        write = write_judgment(run_id, judgment)
        with self._write() as session:
            write(session)

    def judgments(self, run_id: str, rubric_version: str | None = None, *,
                  conversation_ids: Collection[str] | None = None) -> list[Judgment]:
        """The run's judgments in the order they were saved, optionally of one rubric version and
        of some conversations only (a report that shows a few of 100,000)."""
        query = select(JudgmentRow).where(col(JudgmentRow.run_id) == run_id)
        if rubric_version is not None:
            query = query.where(col(JudgmentRow.rubric_version) == rubric_version)
        query = query.order_by(col(JudgmentRow.seq), col(JudgmentRow.id))
        with self._read() as session:
            if conversation_ids is None:
                return [judgment_from_row(row) for row in session.exec(query)]
            # An IN list of at most _IN_CHUNK ids a query (SQLite allows ~32k variables), each
            # chunk already in save order; merged back into it.
            ids = sorted(conversation_ids)
            chunks = [list(session.exec(query.where(col(JudgmentRow.conversation_id).in_(ids[i:i + _IN_CHUNK]))))
                      for i in range(0, len(ids), _IN_CHUNK)]
            return [judgment_from_row(row) for row in heapq.merge(*chunks, key=lambda r: (r.seq, r.id))]

    def rubric_versions(self, run_id: str) -> set[str]:
        """Rubric versions the run has judgments under."""
        query = (
            select(col(JudgmentRow.rubric_version))
            .where(col(JudgmentRow.run_id) == run_id)
            .distinct()
        )
        with self._read() as session:
            return set(session.exec(query))

    # -- probes --------------------------------------------------------------------------------

    @retry_write
    def save_probe_answers(self, run_id: str, answers: Iterable[ProbeAnswer]) -> None:
        """Record probe answers, all or none; re-saving an answer replaces it.

        The key is (conversation, probe, wording hash, answered_by): a reworded probe or another
        answerer adds a row.
        """
        write = write_probe_answers(run_id, answers)
        if write is None:
            return
        with self._write() as session:
            write(session)

    def probe_answers(self, run_id: str) -> list[ProbeAnswer]:
        """The run's probe answers in the order they were first saved."""
        query = (
            select(ProbeAnswerRow)
            .where(col(ProbeAnswerRow.run_id) == run_id)
            .order_by(col(ProbeAnswerRow.id))
        )
        with self._read() as session:
            return [probe_from_row(row) for row in session.exec(query)]

    # -- internals -----------------------------------------------------------------------------

    @contextmanager
    def _read(self) -> Iterator[Session]:
        with self._translate_missing_schema(), Session(self.engine) as session:
            yield session

    @contextmanager
    def _write(self) -> Iterator[Session]:
        # One transaction per call: commit at the end, roll back on any exception.
        # expire_on_commit=False: rows read inside stay readable after the commit.
        with (
            self._translate_missing_schema(),
            Session(self.engine, expire_on_commit=False) as session,
            session.begin(),
        ):
            session.connection(execution_options={WRITE_OPTION: True})
            yield session

    @contextmanager
    def _translate_missing_schema(self) -> Iterator[None]:
        try:
            yield
        except (sa_exc.OperationalError, sa_exc.ProgrammingError) as exc:
            # Only pay for the check on failure: a missing table is a setup problem with a
            # known fix, not a bug, so say what to do.
            try:
                missing = set(TABLE_NAMES) - polygon_tables(self.engine)
            except sa_exc.SQLAlchemyError:
                raise exc from None
            if missing:
                raise DatabaseNotReadyError(not_ready_message(self.url)) from exc
            raise

    @staticmethod
    def _find_run(session: Session, run_id: str) -> RunRow | None:
        row = session.get(RunRow, run_id)
        if row is not None or not run_id:
            return row
        # substr rather than LIKE: SQLite's LIKE ignores case, Postgres' does not, and ids may
        # contain LIKE's wildcards.
        query = (
            select(RunRow)
            .where(func.substr(col(RunRow.id), 1, len(run_id)) == run_id)
            .order_by(col(RunRow.id))
            .limit(_AMBIGUOUS_SHOWN + 1)
        )
        matches = list(session.exec(query))
        if len(matches) > 1:
            shown = ", ".join(m.id for m in matches[:_AMBIGUOUS_SHOWN])
            more = ", ..." if len(matches) > _AMBIGUOUS_SHOWN else ""
            raise ValueError(f"run id prefix {run_id!r} is ambiguous: {shown}{more}")
        return matches[0] if matches else None


# -- helpers -----------------------------------------------------------------------------------


def not_ready_message(url: str) -> str:
    """What to do about a database without Polygon's current tables."""
    return (
        f"database {url} does not have Polygon's current tables; "
        "run `polygon db upgrade` to create or migrate them"
    )


def _now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")
