"""One-statement insert-or-update, so concurrent saves of the same key cannot both insert."""

from __future__ import annotations

from typing import Any

from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, select

from ._tables import PolygonTable

__all__ = ["upsert"]


def upsert(
    session: Session,
    table: type[PolygonTable],
    values: dict[str, Any],
    *,
    key: tuple[str, ...],
    keep: tuple[str, ...] = (),
) -> None:
    """Insert ``values``, or update the row with the same ``key`` (columns in ``keep`` aside).

    One statement (``INSERT ... ON CONFLICT DO UPDATE``) on SQLite and Postgres, so two
    workers saving the same result at once cannot both insert.
    """
    target = table.__table__  # type: ignore[attr-defined]
    changing = [name for name in values if name not in key and name not in keep]
    dialect = session.get_bind().dialect.name
    if dialect in ("postgresql", "sqlite"):
        insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
        statement = insert(target).values(**values)
        excluded = statement.excluded  # a new alias object on every access: read it once
        statement = statement.on_conflict_do_update(
            index_elements=list(key),
            set_={name: excluded[name] for name in changing},
        )
        session.exec(statement)
        return
    # Other backends: read then write inside the caller's transaction.
    where = [target.c[name] == values[name] for name in key]
    found = session.exec(select(target.c[key[0]]).where(*where)).first()
    if found is None:
        session.exec(target.insert().values(**values))
    elif changing:
        session.exec(target.update().where(*where).values({n: values[n] for n in changing}))
