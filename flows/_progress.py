"""A flow run's progress artifact, updated without ever blocking the conversations' event loop.

`evaluate_suite` counts steps (simulate, judge, probe per conversation) as conversations finish on
their shared event loop. Updating the progress artifact is a synchronous call to the Prefect API;
made on that loop it stalled every conversation in flight for the length of a round trip (a busy
server takes tens of milliseconds), about a hundred times a run. Here the loop only records the
count; one background thread sends the newest count when it is free (updates that queue up while
it sends are folded into one), and `close` sends the final count and waits for it (for a bounded
time).
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable
from uuid import UUID

__all__ = ["CLOSE_SECONDS", "Progress"]

CLOSE_SECONDS = 10.0
"""Longest `Progress.close` waits for the last update to be sent."""


class Progress:
    """Steps done out of `total`, sent to a progress artifact at most every `every` steps and at the end.

    `send(artifact_id, percent, description)` is the API call (Prefect's `update_progress_artifact`);
    it runs on this object's own thread, in the context `Progress` was made in (Prefect's settings
    and client live in context variables). A failed update is not retried: the next one carries the
    newer count, and progress is never a reason to fail a flow run.
    """

    def __init__(self, artifact_id: UUID, total: int, send: Callable[[UUID, float, str], object],
                 every: int) -> None:
        self.artifact_id, self.total, self.every = artifact_id, max(total, 0), max(every, 1)
        self.finished = 0
        self._send = send
        self._context = contextvars.copy_context()
        self._wanted: int | None = None  # the newest count not yet sent
        self._sent: int | None = None
        self._wake = threading.Condition()
        self._closing = False
        self._thread = threading.Thread(target=self._serve, name="polygon-progress", daemon=True)
        self._thread.start()

    def advance(self, n: int = 1) -> None:
        """`n` more steps done; asks for an update each `every` steps and at the last (never waits)."""
        self.finished += n
        if self.finished % self.every < n or self.finished >= self.total:
            with self._wake:
                self._wanted = self.finished
                self._wake.notify()

    def close(self, timeout: float = CLOSE_SECONDS) -> None:
        """Send the final count (if it was not sent) and stop the thread, waiting `timeout` seconds
        at most: a slow or unreachable API (Prefect's client retries for minutes) must not hold up
        the flow's end, or its real error. A thread still sending then is left to finish (a daemon)."""
        with self._wake:
            self._wanted = self.finished
            self._closing = True
            self._wake.notify()
        self._thread.join(timeout)

    def _serve(self) -> None:
        while True:
            with self._wake:
                while self._wanted is None and not self._closing:
                    self._wake.wait()
                wanted, closing = self._wanted, self._closing
                self._wanted = None
            if wanted is not None and wanted != self._sent:
                self._update(wanted)
            if closing and wanted is None:
                return

    def _update(self, finished: int) -> None:
        percent = 100.0 * finished / max(self.total, 1)
        try:
            self._context.run(self._send, self.artifact_id, percent, f"{finished} of {self.total} steps")
        except Exception:  # a lost update: the next one (or the final one) carries the count
            return
        self._sent = finished
