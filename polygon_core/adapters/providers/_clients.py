"""SDK clients shared within an event loop, and one TLS context for the whole process.

Building an SDK client loads the system's CA bundle (tens of milliseconds each); a run that made a
client per conversation spent most of its time there. Clients are cached per (event loop, SDK,
base URL, key, timeout) because an httpx client's connections belong to the loop that opened them,
and every client shares one TLS context.
"""

from __future__ import annotations

import asyncio
import ssl
import threading
import weakref
from collections.abc import Callable
from typing import Any

_LOCK = threading.RLock()  # re-entrant: making a client takes the TLS context under it
_SSL: ssl.SSLContext | None = None
_BY_LOOP: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[Any, ...], Any]] = (
    weakref.WeakKeyDictionary())


def shared_ssl_context() -> ssl.SSLContext:
    """The process's one default TLS context (created on first use)."""
    global _SSL
    with _LOCK:
        if _SSL is None:
            _SSL = ssl.create_default_context()
        return _SSL


def loop_client(key: tuple[Any, ...], make: Callable[[], Any]) -> Any:
    """The client for `key` on the running event loop, made once per loop."""
    loop = asyncio.get_running_loop()
    with _LOCK:
        clients = _BY_LOOP.setdefault(loop, {})
        if key not in clients:
            clients[key] = make()
        return clients[key]


def forget_loop_clients() -> list[Any]:
    """Drop (and return, for closing) the running loop's clients."""
    loop = asyncio.get_running_loop()
    with _LOCK:
        return list(_BY_LOOP.pop(loop, {}).values())
