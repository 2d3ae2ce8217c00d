"""Where the receiver remembers delivery ids, so a replayed delivery is refused (409).

The default is Polygon's database (`DatabaseDeliveryStore`, table ``polygon_webhook_delivery``):
the ids survive a restart, and receivers sharing the database refuse each other's replays.
`MemoryDeliveryStore` keeps them in this process only (tests, or a deliberately single receiver).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Protocol, TypeVar

from sqlalchemy import Engine
from sqlalchemy import exc as sa_exc

from polygon_core.adapters.settings import PolygonSettings
from polygon_core.adapters.storage import DatabaseNotReadyError, DeliveryLedger, repository_from_settings

__all__ = ["DatabaseDeliveryStore", "DeliveryStore", "DeliveryStoreUnavailableError", "MemoryDeliveryStore"]

log = logging.getLogger("polygon.web.webhooks")
_T = TypeVar("_T")


class DeliveryStoreUnavailableError(RuntimeError):
    """The store cannot be reached (the message is safe to answer with: no URL, no password)."""


class DeliveryStore(Protocol):
    """Remembers delivery ids so a replayed request is refused."""

    def reserve(self, delivery_id: str, kind: str = "") -> bool:
        """Record the id; False when it was already seen (a replay)."""
        ...

    def release(self, delivery_id: str) -> None:
        """Forget a reserved id whose request was refused later, so a corrected resend is accepted."""
        ...


class MemoryDeliveryStore:
    """A bounded, expiring, thread-safe set of delivery ids, in this process's memory.

    Ids expire after `ttl_seconds`, and the oldest go first beyond `capacity`. They are lost on a
    restart and not shared between processes: the default store is the database one.
    """

    def __init__(self, capacity: int = 100_000, ttl_seconds: float = 7 * 24 * 3600,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._seen: OrderedDict[str, float] = OrderedDict()
        self._capacity = capacity
        self._ttl = ttl_seconds
        self._clock = clock
        self._lock = threading.Lock()

    def reserve(self, delivery_id: str, kind: str = "") -> bool:
        """Record the id; False when it was already seen and has not expired."""
        with self._lock:
            now = self._clock()
            while self._seen and next(iter(self._seen.values())) <= now - self._ttl:
                self._seen.popitem(last=False)
            if delivery_id in self._seen:
                return False
            self._seen[delivery_id] = now
            while len(self._seen) > self._capacity:
                self._seen.popitem(last=False)
            return True

    def release(self, delivery_id: str) -> None:
        """Forget the id."""
        with self._lock:
            self._seen.pop(delivery_id, None)

    def __len__(self) -> int:
        return len(self._seen)


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
