"""Where the receiver remembers delivery ids, so a replayed delivery is refused (409).

The default is Polygon's database (`DatabaseDeliveryStore`, a use case; table ``polygon_webhook_delivery``):
the ids survive a restart, and receivers sharing the database refuse each other's replays.
`MemoryDeliveryStore` keeps them in this process only (tests, or a deliberately single receiver).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Protocol

# The database store is a use case (it opens the storage adapter); the receiver only uses it.
from polygon.usecases import DatabaseDeliveryStore, DeliveryStoreUnavailableError

__all__ = ["DatabaseDeliveryStore", "DeliveryStore", "DeliveryStoreUnavailableError", "MemoryDeliveryStore"]


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
