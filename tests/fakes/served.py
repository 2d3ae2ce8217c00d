"""A uvicorn server on a loopback port, run in a thread for the length of a `with` block."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from typing import Any


@contextlib.contextmanager
def serving(server: Any) -> Iterator[None]:
    """Run `server` (a `uvicorn.Server`) in a daemon thread until the block ends.

    It waits for the server to have started, or for its thread to end (a port it could not bind, an
    app that failed at start-up: the test fails saying so); no wall-clock limit, which a loaded
    machine would break."""
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        assert thread.is_alive(), "the server stopped before it started (see its log above)"
        time.sleep(0.05)
    try:
        yield
    finally:
        server.should_exit = True
        thread.join(timeout=10)
