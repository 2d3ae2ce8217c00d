"""Engine creation: URL normalisation and the SQLite settings Polygon relies on."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.pool import StaticPool

__all__ = ["WRITE_OPTION", "make_engine", "normalise_url"]

# Execution option a write transaction sets; on SQLite it turns BEGIN into BEGIN IMMEDIATE.
WRITE_OPTION = "polygon_write"

# Seconds a SQLite writer waits for another writer's lock before giving up.
_SQLITE_BUSY_TIMEOUT = 30
# Tries at switching a new SQLite file to WAL while another connection holds it (about 3 s in all).
_WAL_ATTEMPTS = 16


def normalise_url(url: str | URL) -> URL:
    """Parse ``url``; plain ``postgresql://`` / ``postgres://`` mean psycopg 3, the driver we ship.

    SQLAlchemy's default Postgres driver is psycopg2, which Polygon does not install.
    """
    parsed = make_url(url) if isinstance(url, str) else url
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed


def make_engine(url: str | URL) -> Engine:
    """Create an engine for ``url``; for a SQLite file, create its folder first."""
    parsed = normalise_url(url)
    if parsed.get_backend_name() != "sqlite":
        # pre_ping: a pooled connection the server closed (restart, idle timeout) is replaced
        # instead of failing the next task.
        return create_engine(parsed, pool_pre_ping=True)

    database = parsed.database or ""
    memory = database in ("", ":memory:")
    if not memory and not database.startswith("file:"):
        Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
    extra: dict[str, Any] = {"poolclass": StaticPool} if memory else {}  # one shared memory db
    engine = create_engine(
        parsed,
        # Prefect runs tasks in threads; each uses its own pooled connection, so sharing the
        # driver across threads is safe here.
        connect_args={"check_same_thread": False, "timeout": _SQLITE_BUSY_TIMEOUT},
        **extra,
    )
    _configure_sqlite(engine)
    return engine


def _use_wal(cursor: Any) -> None:
    """Put the file in WAL mode: readers never block the writer nor the writer the readers.

    WAL is stored in the file, so only its first connection switches it. The switch needs the
    file to itself and SQLite answers "database is locked" at once, without waiting out the busy
    timeout, when another connection is mid-transaction (two receivers opening one new file).
    So: read the mode first, and retry the switch briefly while someone else holds the file.
    """
    for attempt in range(_WAL_ATTEMPTS):
        if str(cursor.execute("PRAGMA journal_mode").fetchone()[0]).lower() == "wal":
            return
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or attempt == _WAL_ATTEMPTS - 1:
                raise
            time.sleep(0.02 * (attempt + 1))


def _configure_sqlite(engine: Engine) -> None:
    memory = (engine.url.database or ":memory:") == ":memory:"

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy (below) emit BEGIN itself; pysqlite's own implicit BEGIN would defer
        # the write lock and make DDL non-transactional.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute("PRAGMA foreign_keys=ON")  # off by default in SQLite
            cursor.execute(f"PRAGMA busy_timeout={_SQLITE_BUSY_TIMEOUT * 1000}")
            if not memory:
                _use_wal(cursor)
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        # A write transaction takes the write lock up front. A deferred one that reads first
        # and writes later can fail at once with "database is locked" when another thread
        # wrote in between, instead of waiting for the busy timeout.
        write = connection.get_execution_options().get(WRITE_OPTION, False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")
