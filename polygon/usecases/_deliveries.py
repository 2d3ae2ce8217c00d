"""Remembering webhook delivery ids in Polygon's database, so a replayed delivery is refused.

The receiver (polygon/web) asks `reserve` per delivery; the ids live in the table
``polygon_webhook_delivery``, so they survive a restart and receivers sharing the database refuse
each other's replays.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TypeVar

from sqlalchemy import Engine
from sqlalchemy import exc as sa_exc

from polygon_core.adapters.settings import PolygonSettings
from polygon_core.adapters.storage import DatabaseNotReadyError, DeliveryLedger, repository_from_settings

__all__ = ["DatabaseDeliveryStore", "DeliveryStoreUnavailableError"]

log = logging.getLogger("polygon.web.webhooks")
_T = TypeVar("_T")


class DeliveryStoreUnavailableError(RuntimeError):
    """The store cannot be reached (the message is safe to answer with: no URL, no password)."""


class DatabaseDeliveryStore:
    """Delivery ids in Polygon's database (opened on the first webhook, not at start-up)."""

    def __init__(self, open_engine: Callable[[], Engine], ttl_seconds: float) -> None:
        """`open_engine` gives an engine whose schema is at head; called once, on first use."""
        self._open_engine = open_engine
        self._ttl = ttl_seconds
        self._ledger: DeliveryLedger | None = None
        self._lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings: PolygonSettings, ttl_seconds: float) -> DatabaseDeliveryStore:
        """The store in the database `settings` point at (SQLite is created and migrated as needed)."""
        return cls(lambda: repository_from_settings(settings).engine, ttl_seconds)

    def reserve(self, delivery_id: str, kind: str = "") -> bool:
        """Claim the id in the database; False when it is already there (a replay)."""
        return self._call(lambda ledger: ledger.claim(delivery_id, kind, ttl_seconds=self._ttl))

    def release(self, delivery_id: str) -> None:
        """Delete the id's row."""
        self._call(lambda ledger: ledger.release(delivery_id))

    def _call(self, action: Callable[[DeliveryLedger], _T]) -> _T:
        try:
            return action(self._get())
        except (DatabaseNotReadyError, sa_exc.SQLAlchemyError) as exc:
            # The cause goes to the server log; the caller only learns that the ledger is down.
            log.error("webhook delivery ledger unavailable: %s", str(exc).splitlines()[0][:300])
            raise DeliveryStoreUnavailableError(
                "the webhook delivery ledger (Polygon's database) is unavailable; see the server log") from None

    def _get(self) -> DeliveryLedger:
        with self._lock:
            if self._ledger is None:
                self._ledger = DeliveryLedger(self._open_engine())
            return self._ledger
