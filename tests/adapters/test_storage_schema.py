"""Repository schema and setup: migrations, ensure_database, WAL, URLs, over SQLite and PostgreSQL."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from polygon_core.adapters.settings import PolygonSettings
from polygon_core.adapters.storage import (
    DatabaseNotReadyError,
    Repository,
    ensure_database,
    head_revision,
    repository_from_settings,
)
from polygon_core.adapters.storage._engine import make_engine, normalise_url
from polygon_core.adapters.storage._migrate import VERSION_TABLE
from polygon_core.adapters.storage._tables import TABLE_NAMES, metadata

from ._storage_helpers import make_run, rows_as_text

# -- schema -----------------------------------------------------------------------------------


def test_upgrade_creates_every_table(db_url: str) -> None:
    with Repository(db_url) as repository:
        assert repository.is_empty()
        assert repository.needs_upgrade()
        assert repository.current_revision() is None
        repository.upgrade()
        inspector = sa.inspect(repository.engine)
        assert set(TABLE_NAMES) | {VERSION_TABLE} <= set(inspector.get_table_names())
        uniques = {
            table: {tuple(u["column_names"]) for u in inspector.get_unique_constraints(table)}
            for table in TABLE_NAMES
        }
        assert ("run_id", "conversation_id") in uniques["polygon_conversation"]
        assert ("run_id", "conversation_id", "rubric_version", "judge_model") in uniques[
            "polygon_judgment"
        ]
        assert ("run_id", "conversation_id", "probe_id", "wording_hash", "answered_by") in uniques[
            "polygon_probe_answer"
        ]
        for table in TABLE_NAMES[1:]:
            (fk,) = inspector.get_foreign_keys(table)
            assert fk["referred_table"] == "polygon_run"
            assert fk["options"].get("ondelete", "").upper() == "CASCADE"
        assert not repository.is_empty()
        assert not repository.needs_upgrade()
        assert repository.current_revision() == head_revision()


def test_upgrade_twice_is_a_no_op(repo: Repository) -> None:
    repo.save_run(make_run())
    before = {t: rows_as_text(repo, t) if t != "polygon_run" else None for t in TABLE_NAMES}
    run_before = repo.get_run(make_run().id)
    repo.upgrade()
    repo.upgrade()
    assert repo.current_revision() == head_revision()
    assert repo.get_run(make_run().id) == run_before
    assert {t: rows_as_text(repo, t) if t != "polygon_run" else None for t in TABLE_NAMES} == before
    with repo.engine.connect() as connection:
        assert connection.execute(sa.text(f"SELECT COUNT(*) FROM {VERSION_TABLE}")).scalar() == 1


def test_migrations_match_the_table_models(repo: Repository) -> None:
    with repo.engine.connect() as connection:
        context = MigrationContext.configure(
            connection, opts={"compare_type": True, "version_table": VERSION_TABLE}
        )
        assert compare_metadata(context, metadata) == []


def test_unmigrated_database_gives_a_clear_error(db_url: str) -> None:
    with Repository(db_url) as repository:
        with pytest.raises(DatabaseNotReadyError, match="polygon db upgrade"):
            repository.list_runs()
        with pytest.raises(DatabaseNotReadyError, match="polygon db upgrade"):
            repository.save_run(make_run())


def test_ensure_database(db_url: str) -> None:
    if db_url.startswith("sqlite"):
        with ensure_database(db_url) as repository:  # folder and file created, then migrated
            assert not repository.needs_upgrade()
            repository.save_run(make_run())
        with ensure_database(db_url) as repository:  # second open: nothing to do
            assert repository.get_run(make_run().id) == make_run()
        return
    with pytest.raises(DatabaseNotReadyError, match="polygon db upgrade"):
        ensure_database(db_url)
    with Repository(db_url) as repository:
        assert repository.is_empty()  # ensure_database never migrates Postgres by itself
        repository.upgrade()
    with ensure_database(db_url) as repository:
        assert repository.list_runs() == []


def test_a_new_sqlite_file_busy_in_another_connection_still_opens_in_wal(tmp_path: Path) -> None:
    # Switching a file to WAL needs it alone, and SQLite refuses that at once (no busy wait)
    # while another connection is mid-transaction: two webhook receivers opening one new file
    # together once got "database is locked". The switch now waits for the other to finish.
    import sqlite3

    path = tmp_path / "new.db"
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    other.execute("CREATE TABLE t (x INTEGER)")  # holds the write lock until the commit below
    timer = threading.Timer(0.3, other.execute, args=("COMMIT",))
    timer.start()
    engine = make_engine(f"sqlite:///{path}")
    try:
        with engine.connect() as connection:
            assert connection.exec_driver_sql("PRAGMA journal_mode").scalar_one() == "wal"
    finally:
        timer.join()
        engine.dispose()
        other.close()


def test_unknown_newer_revision_is_reported(repo: Repository) -> None:
    with repo.engine.begin() as connection:
        connection.execute(sa.text(f"UPDATE {VERSION_TABLE} SET version_num = '9999_future'"))
    with pytest.raises(DatabaseNotReadyError, match="9999_future"):
        repo.needs_upgrade()


def test_repository_from_settings(tmp_path: Path) -> None:
    settings = PolygonSettings(home=tmp_path / "home")
    with repository_from_settings(settings) as repository:
        assert repository.dialect == "sqlite"
        assert not repository.needs_upgrade()
    assert (tmp_path / "home" / "polygon.db").is_file()


def test_plain_postgres_urls_mean_psycopg() -> None:
    assert normalise_url("postgresql://u@h/db").drivername == "postgresql+psycopg"
    assert normalise_url("postgres://u@h/db").drivername == "postgresql+psycopg"
    assert normalise_url("sqlite:///x.db").drivername == "sqlite"


def test_repr_hides_the_password() -> None:
    repository = Repository("postgresql+psycopg://user:hunter2@127.0.0.1:1/db")
    assert "hunter2" not in repr(repository) and "hunter2" not in repository.url


def test_domain_never_imports_the_sdks() -> None:
    code = (
        "import sys, polygon_core, polygon_core.models; "
        "bad = [m for m in ('sqlalchemy', 'sqlmodel', 'alembic', 'boto3', 'psycopg') "
        "if m in sys.modules]; assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parents[2])
