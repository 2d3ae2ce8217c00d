"""Databases for the repository tests (tests/adapters/test_storage_*.py): SQLite and PostgreSQL.

The Postgres database is created once per test module and dropped at its end; each test gets
a fresh schema in it (via ``search_path`` in the URL), so every test starts from nothing.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from polygon_core.adapters.storage import Repository

PG_HOST, PG_PORT, PG_USER = "127.0.0.1", 5432, "postgres"


# -- databases --------------------------------------------------------------------------------


def _pg_connect(dbname: str) -> Any:
    """An autocommit psycopg connection to ``dbname`` (CREATE/DROP DATABASE need autocommit)."""
    import psycopg

    return psycopg.connect(
        host=PG_HOST, port=PG_PORT, user=PG_USER, dbname=dbname, autocommit=True, connect_timeout=5
    )


@pytest.fixture(scope="module")
def pg_database() -> Iterator[str]:
    """A uniquely named Postgres database for this module, dropped (forcibly) at the end."""
    import psycopg

    try:
        admin = _pg_connect("postgres")
    except psycopg.OperationalError as exc:
        pytest.skip(f"PostgreSQL is not reachable on {PG_HOST}:{PG_PORT}: {exc}")
    name = f"polygon_test_{uuid.uuid4().hex[:12]}"
    with admin:
        admin.execute(f'CREATE DATABASE "{name}"')
        try:
            yield name
        finally:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """URL of an empty database: a SQLite file in a folder that does not exist yet, or a fresh
    schema in the module's Postgres database."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'not-yet' / 'polygon.db'}"
        return
    database: str = request.getfixturevalue("pg_database")
    schema = f"t_{uuid.uuid4().hex[:12]}"
    with _pg_connect(database) as connection:
        connection.execute(f'CREATE SCHEMA "{schema}"')
    # psycopg passes `options` to the server: every connection works inside this schema.
    yield (
        f"postgresql+psycopg://{PG_USER}@{PG_HOST}:{PG_PORT}/{database}"
        f"?options=-csearch_path%3D{schema}"
    )
    with _pg_connect(database) as connection:
        connection.execute(f'DROP SCHEMA "{schema}" CASCADE')


@pytest.fixture()
def repo(db_url: str) -> Iterator[Repository]:
    """A migrated, empty repository."""
    repository = Repository(db_url)
    repository.upgrade()
    yield repository
    repository.close()


@pytest.fixture()
def fail_on_insert(repo: Repository) -> Iterator[Callable[[str, int], None]]:
    """Make the n-th INSERT into a table raise inside the repository's transaction."""
    listeners: list[Callable[..., None]] = []

    def arm(table: str, nth: int) -> None:
        seen = {"count": 0}

        def before(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
            if statement.lstrip().upper().startswith(f"INSERT INTO {table.upper()} "):
                seen["count"] += 1
                if seen["count"] == nth:
                    raise RuntimeError("forced failure mid-transaction")

        sa.event.listen(repo.engine, "before_cursor_execute", before)
        listeners.append(before)

    yield arm
    for listener in listeners:
        sa.event.remove(repo.engine, "before_cursor_execute", listener)
