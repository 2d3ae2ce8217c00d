"""The import ledger: which production conversations are stored, and what production runs graded.

Kept apart from ``Repository`` (runs and their results) because imports have their own key,
(source, external id), and are written in batches for throughput.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, col

from ._convert import from_ledger_row
from ._engine import WRITE_OPTION
from ._tables import ImportedConversationRow, ProductionRunRow
from ._upsert import upsert

__all__ = ["ImportLedger", "ImportedRecord", "ProductionRunInfo"]


@dataclass(frozen=True)
class ImportedRecord:
    """One imported conversation as the ledger knows it."""

    source: str
    external_id: str
    conversation_id: str
    started_at: str | None
    scenario_id: str
    agent_name: str
    agent_version: str
    turn_count: int
    artifact_uri: str
    batch: str
    file: str
    line: int


@dataclass(frozen=True)
class ProductionRunInfo:
    """A production run's source, requested window and the dates of the calls it graded."""

    run_id: str
    source: str
    since: str | None
    until: str | None
    first_call: str | None
    last_call: str | None
    conversations: int


_T = ImportedConversationRow.__table__  # type: ignore[attr-defined]


class ImportLedger:
    """Reads and writes the import tables through an existing engine (the repository's)."""

    def __init__(self, engine: Engine) -> None:
        """Use `engine` (its schema must be at head: see ``ensure_database``)."""
        self.engine = engine

    def known(self, source: str, external_ids: Sequence[str]) -> dict[str, ImportedRecord]:
        """The records of the given external ids already imported for `source`."""
        if not external_ids:
            return {}
        query = select(_T).where(_T.c.source == source, _T.c.external_id.in_(list(external_ids)))
        with self.engine.connect() as connection:
            return {row.external_id: _record(row) for row in connection.execute(query)}

    def origins(self, conversation_ids: Sequence[str]) -> dict[str, tuple[str, str]]:
        """Conversation id → (source, external id) of the imported ones among `conversation_ids`:
        one query per 500 ids, reading ledger rows only (never a transcript). The ledger has no
        index on conversation id, so each query scans its rows."""
        ids = list(dict.fromkeys(conversation_ids))
        found: dict[str, tuple[str, str]] = {}
        with self.engine.connect() as connection:
            for start in range(0, len(ids), 500):  # well under any database's bound-parameter limit
                query = select(_T.c.conversation_id, _T.c.source, _T.c.external_id).where(
                    _T.c.conversation_id.in_(ids[start:start + 500]))
                found.update({row.conversation_id: (row.source, row.external_id)
                              for row in connection.execute(query)})
        return found

    def add(self, records: Iterable[ImportedRecord], *, imported_at: str) -> int:
        """Insert records imported at `imported_at` (ISO text), in one transaction; a (source,
        external id) already there is skipped.

        Returns how many were inserted. Two imports racing on one conversation cannot both add it.
        """
        values = [{**dataclasses.asdict(record), "imported_at": imported_at} for record in records]
        if not values:
            return 0
        with self.engine.connect() as connection:
            connection.execution_options(**{WRITE_OPTION: True})
            with connection.begin():
                dialect = connection.dialect.name
                if dialect in ("postgresql", "sqlite"):
                    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
                    statement = insert(_T).on_conflict_do_nothing(
                        index_elements=["source", "external_id"])
                    result = connection.execute(statement.returning(_T.c.id), values)
                    return len(result.fetchall())
                known = self.known(values[0]["source"], [v["external_id"] for v in values])
                fresh = [v for v in values if v["external_id"] not in known]
                if fresh:
                    connection.execute(_T.insert(), fresh)
                return len(fresh)

    def select(self, source: str, since: str | None = None,
               until: str | None = None) -> list[ImportedRecord]:
        """A source's calls with ``since <= started_at < until`` (ISO text), oldest first.

        With a window, calls without a date are left out; without one, every call is selected.
        """
        query = select(_T).where(_T.c.source == source)
        if since is not None:
            query = query.where(_T.c.started_at >= since)
        if until is not None:
            query = query.where(_T.c.started_at < until)
        query = query.order_by(_T.c.started_at, _T.c.external_id)
        with self.engine.connect() as connection:
            return [_record(row) for row in connection.execute(query)]

    def in_batch(self, source: str, batch: str) -> list[ImportedRecord]:
        """The calls one import (`batch`) stored for `source`, oldest first."""
        query = select(_T).where(_T.c.source == source, _T.c.batch == batch)
        with self.engine.connect() as connection:
            rows = connection.execute(query.order_by(_T.c.started_at, _T.c.external_id))
            return [_record(row) for row in rows]

    def count(self, source: str | None = None) -> int:
        """How many conversations are imported (for one source, or in all)."""
        query = select(func.count()).select_from(_T)
        if source is not None:
            query = query.where(_T.c.source == source)
        with self.engine.connect() as connection:
            return int(connection.execute(query).scalar_one())

    def sources(self) -> list[str]:
        """Every source name calls were imported under, sorted."""
        query = select(_T.c.source).distinct().order_by(_T.c.source)
        with self.engine.connect() as connection:
            return [str(name) for name in connection.execute(query).scalars()]

    def save_production_run(self, info: ProductionRunInfo) -> None:
        """Record (or replace) what a production run graded; its run must be saved first."""
        values = dataclasses.asdict(info)
        with Session(self.engine) as session, session.begin():
            session.connection(execution_options={WRITE_OPTION: True})
            upsert(session, ProductionRunRow, values, key=("run_id",))

    def production_sources(self, run_ids: Sequence[str]) -> dict[str, str]:
        """Run id → import source of the production runs among `run_ids` (synthetic ones are absent),
        one query per 500 runs."""
        ids = list(dict.fromkeys(run_ids))
        p = ProductionRunRow.__table__  # type: ignore[attr-defined]
        found: dict[str, str] = {}
        with self.engine.connect() as connection:
            for start in range(0, len(ids), 500):
                query = select(p.c.run_id, p.c.source).where(p.c.run_id.in_(ids[start:start + 500]))
                found.update({row.run_id: row.source for row in connection.execute(query)})
        return found

    def production_run(self, run_id: str) -> ProductionRunInfo | None:
        """What a production run graded; None for a synthetic run."""
        with Session(self.engine) as session:
            row = session.exec(  # type: ignore[call-overload]
                select(ProductionRunRow).where(col(ProductionRunRow.run_id) == run_id)
            ).scalars().first()
            return from_ledger_row(ProductionRunInfo, row) if row is not None else None


def _record(row: Any) -> ImportedRecord:
    return from_ledger_row(ImportedRecord, row)
