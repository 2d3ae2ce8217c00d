"""One-statement insert-or-update, so concurrent saves of the same key cannot both insert."""

from __future__ import annotations

import functools
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
    dialect = session.get_bind().dialect.name
    if dialect in ("postgresql", "sqlite"):
        # The statement depends only on the table, the columns given and the key, so it is built
        # once (building `excluded` and its column proxies cost more than the write itself) and
        # the values go in as parameters.
        session.exec(_statement(dialect, table, tuple(values), key, keep), params=values)
        return
    changing = [name for name in values if name not in key and name not in keep]
    # Other backends: read then write inside the caller's transaction.
    where = [target.c[name] == values[name] for name in key]
    found = session.exec(select(target.c[key[0]]).where(*where)).first()
    if found is None:
        session.exec(target.insert().values(**values))
    elif changing:
        session.exec(target.update().where(*where).values({n: values[n] for n in changing}))


@functools.lru_cache(maxsize=256)
def _statement(dialect: str, table: type[PolygonTable], columns: tuple[str, ...], key: tuple[str, ...],
               keep: tuple[str, ...]) -> Any:
    """``INSERT ... ON CONFLICT (key) DO UPDATE`` of `columns` (key and `keep` aside), values bound."""
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    statement = insert(table.__table__)  # type: ignore[attr-defined]
    excluded = statement.excluded  # a new alias object on every access: read it once
    return statement.on_conflict_do_update(
        index_elements=list(key),
        set_={name: excluded[name] for name in columns if name not in key and name not in keep},
    )
