"""Opening the database: SQLite migrated on the spot, Postgres checked (its migrations are explicit)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlalchemy.engine import URL

from ._migrate import DatabaseNotReadyError
from ._repository import Repository, not_ready_message

if TYPE_CHECKING:
    from polygon_core.adapters.settings import PolygonSettings

__all__ = ["ensure_database", "repository_from_settings"]


def ensure_database(url: str | URL) -> Repository:
    """Open the database at ``url``, ready to use.

    SQLite (the local default) is created or migrated to the newest schema on the spot.
    Postgres is shared, so its migrations stay an explicit step: when its schema is missing or
    older, this raises DatabaseNotReadyError telling to run ``polygon db upgrade``.
    """
    repository = Repository(url)
    try:
        if repository.needs_upgrade():
            if repository.dialect != "sqlite":
                raise DatabaseNotReadyError(not_ready_message(repository.url))
            repository.upgrade()
    except BaseException:
        repository.close()
        raise
    return repository


def repository_from_settings(settings: PolygonSettings) -> Repository:
    """The repository ``settings`` point at (see ``ensure_database``)."""
    return ensure_database(settings.resolved_database_url())
