"""Files of production calls that arrived (revision 0006), so each is imported exactly once.

An S3 object is remembered by (source, key, ETag): a pull that lists it again skips it, one whose
ETag changed (the object was rewritten) imports it again, and the import ledger still refuses the
calls in it that are already imported. A call received by webhook is an arrival of its own (its
redacted record, keyed by its external id). Recording is one INSERT … ON CONFLICT DO NOTHING, so
two pulls racing on a prefix cannot both claim an object.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, func, select, update
from sqlalchemy.dialects import postgresql, sqlite

from ._convert import from_ledger_row
from ._engine import WRITE_OPTION
from ._tables import CallObjectRow

__all__ = ["CallObject", "CallObjectLedger"]

_T = CallObjectRow.__table__  # type: ignore[attr-defined]


@dataclass(frozen=True)
class CallObject:
    """One arrival: which source, which object (key and ETag), how it came, where it is read."""

    source: str
    key: str
    etag: str
    via: str
    location: str
    fmt: str
    imported_at: str | None = None
    imported: int = 0
    duplicates: int = 0
    rejected: int = 0


class CallObjectLedger:
    """Records arrivals and their imports through an existing engine (the repository's)."""

    def __init__(self, engine: Engine) -> None:
        """Use `engine` (its schema must be at head: see ``ensure_database``)."""
        self.engine = engine

    def record(self, arrivals: Sequence[CallObject]) -> list[CallObject]:
        """Remember arrivals; returns those not seen before (same source, key and ETag)."""
        if not arrivals:
            return []
        now = datetime.now(UTC).isoformat(timespec="microseconds")
        values = [{"source": a.source, "key": a.key, "etag": a.etag, "via": a.via, "location": a.location,
                   "fmt": a.fmt, "seen_at": now, "imported": 0, "duplicates": 0, "rejected": 0}
                  for a in arrivals]
        with self.engine.connect() as connection:
            connection.execution_options(**{WRITE_OPTION: True})
            with connection.begin():
                dialect = connection.dialect.name
                insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
                statement = insert(_T).on_conflict_do_nothing(index_elements=["source", "key", "etag"])
                rows = connection.execute(statement.returning(_T.c.source, _T.c.key, _T.c.etag), values)
                fresh = {(r.source, r.key, r.etag) for r in rows}
        return [a for a in arrivals if (a.source, a.key, a.etag) in fresh]

    def pending(self, source: str | None = None) -> list[CallObject]:
        """Arrivals not imported yet (of one source, or of all), oldest first."""
        query = select(_T).where(_T.c.imported_at.is_(None))
        if source is not None:
            query = query.where(_T.c.source == source)
        with self.engine.connect() as connection:
            return [_object(r) for r in connection.execute(query.order_by(_T.c.seen_at, _T.c.key))]

    def mark_imported(self, arrival: CallObject, *, batch: str, imported: int, duplicates: int,
                      rejected: int) -> None:
        """Record an arrival's import (its summary's counts); it is no longer pending."""
        now = datetime.now(UTC).isoformat(timespec="microseconds")
        with self.engine.connect() as connection:
            connection.execution_options(**{WRITE_OPTION: True})
            with connection.begin():
                connection.execute(update(_T).where(
                    _T.c.source == arrival.source, _T.c.key == arrival.key, _T.c.etag == arrival.etag,
                ).values(imported_at=now, batch=batch, imported=imported, duplicates=duplicates,
                         rejected=rejected))

    def count(self, source: str | None = None, *, pending: bool | None = None) -> int:
        """How many arrivals are recorded (for one source; only pending or only imported ones)."""
        query = select(func.count()).select_from(_T)
        if source is not None:
            query = query.where(_T.c.source == source)
        if pending is not None:
            query = query.where(_T.c.imported_at.is_(None) if pending else _T.c.imported_at.is_not(None))
        with self.engine.connect() as connection:
            return int(connection.execute(query).scalar_one())


def _object(row: Any) -> CallObject:
    return from_ledger_row(CallObject, row)
