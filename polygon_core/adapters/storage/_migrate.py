"""Alembic, configured in code: the migrations ship inside this package (no alembic.ini)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, inspect

from ._engine import WRITE_OPTION
from ._tables import TABLE_NAMES

__all__ = [
    "MIGRATIONS_DIR",
    "VERSION_TABLE",
    "DatabaseNotReadyError",
    "alembic_config",
    "current_revision",
    "head_revision",
    "polygon_tables",
    "upgrade",
]

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"

# Polygon's own version table: the same database may hold other Alembic-managed schemas
# (Prefect's server keeps `alembic_version`), and sharing one table would confuse both.
VERSION_TABLE = "polygon_alembic_version"

# Arbitrary constant identifying Polygon's migration lock among Postgres advisory locks.
_UPGRADE_LOCK_KEY = 0x706F6C79676F6E  # "polygon" in ASCII


class DatabaseNotReadyError(RuntimeError):
    """The database lacks Polygon's tables or is at an older (or unknown) schema revision."""


def alembic_config(url: str | None = None) -> Config:
    """An Alembic Config pointing at the packaged migrations (and at ``url`` if given)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    if url is not None:
        # ConfigParser interpolation: a literal % (e.g. in a password) must be doubled.
        config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def head_revision() -> str:
    """The newest revision the packaged migrations define."""
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    if head is None:  # pragma: no cover - the package always ships revisions
        raise RuntimeError(f"no migrations found in {MIGRATIONS_DIR}")
    return head


def current_revision(engine: Engine) -> str | None:
    """The revision the database is at, or None when Polygon's schema was never installed."""
    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"version_table": VERSION_TABLE})
        return context.get_current_revision()


def polygon_tables(engine: Engine) -> set[str]:
    """Which of Polygon's tables exist in the database."""
    return set(inspect(engine).get_table_names()) & set(TABLE_NAMES)


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Migrate the database to ``revision``; a database already there is left untouched."""
    # Hand Alembic our connection (and its dialect settings) rather than a URL to reconnect
    # with: it works for in-memory SQLite and never re-parses passwords.
    with engine.connect() as connection:
        connection.execution_options(**{WRITE_OPTION: True})
        with connection.begin():
            if connection.dialect.name == "postgresql":
                # Two workers starting at once would both try to create the tables; the
                # transaction-scoped lock makes the second wait and then find them there.
                connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({_UPGRADE_LOCK_KEY})")
            config = alembic_config()
            config.attributes["connection"] = connection
            command.upgrade(config, revision)
