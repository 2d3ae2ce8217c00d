"""The progress artifact's updates leave the caller's thread (the conversations' event loop) at once:
sent from one background thread, the newest count only, the final one always, failures swallowed."""

from __future__ import annotations

import contextvars
import threading
from uuid import UUID, uuid4

from flows._progress import Progress

WHERE: contextvars.ContextVar[str] = contextvars.ContextVar("where", default="unset")


def test_updates_are_sent_from_another_thread_in_the_callers_context_and_the_last_one_at_close() -> None:
    sent: list[tuple[UUID, float, str, str, bool]] = []
    caller = threading.get_ident()

    def send(artifact: UUID, percent: float, description: str) -> None:
        sent.append((artifact, percent, description, WHERE.get(), threading.get_ident() == caller))

    WHERE.set("the flow's settings")
    artifact = uuid4()
    progress = Progress(artifact, 40, send, every=10)
    for _ in range(40):
        progress.advance()
    progress.close()
    assert sent, "no update was sent"
    assert sent[-1] == (artifact, 100.0, "40 of 40 steps", "the flow's settings", False)
    assert all(not on_caller and where == "the flow's settings" for _, _, _, where, on_caller in sent)
    # Only counts at a multiple of `every` (or the end) are asked for, in order, never one twice.
    counts = [int(d.split()[0]) for _, _, d, _, _ in sent]
    assert counts == sorted(set(counts)) and set(counts) <= {10, 20, 30, 40}


def test_a_slow_api_never_holds_up_the_caller_and_queued_updates_fold_into_the_newest() -> None:
    release, started = threading.Event(), threading.Event()
    sent: list[str] = []

    def send(_artifact: UUID, _percent: float, description: str) -> None:
        started.set()
        release.wait(10)  # the API is stuck while the caller goes on
        sent.append(description)

    progress = Progress(uuid4(), 30, send, every=10)
    progress.advance(10)
    assert started.wait(10)
    progress.advance(10)  # asked for while the first is still being sent...
    progress.advance(10)  # ...and overtaken by this one before the thread is free
    assert sent == []  # the caller got here without waiting for the API
    release.set()
    progress.close()
    assert sent == ["10 of 30 steps", "30 of 30 steps"]


def test_a_failing_update_is_dropped_and_the_final_count_is_still_sent() -> None:
    calls: list[str] = []
    first = threading.Event()

    def send(_artifact: UUID, _percent: float, description: str) -> None:
        calls.append(description)
        if len(calls) == 1:
            first.set()
            raise OSError("503 from the Prefect API")

    progress = Progress(uuid4(), 20, send, every=10)
    progress.advance(10)
    assert first.wait(10)
    progress.advance(10)
    progress.close()  # raises nothing
    assert calls == ["10 of 20 steps", "20 of 20 steps"]


def test_close_with_nothing_counted_sends_the_zero_and_stops() -> None:
    sent: list[str] = []
    progress = Progress(uuid4(), 5, lambda _a, _p, d: sent.append(d), every=10)
    progress.close()
    assert sent == ["0 of 5 steps"]
    assert not progress._thread.is_alive()


def test_close_does_not_wait_longer_than_its_timeout_for_a_stuck_api() -> None:
    release = threading.Event()
    progress = Progress(uuid4(), 10, lambda _a, _p, _d: release.wait(30), every=10)
    progress.advance(10)
    progress.close(timeout=0.2)  # returns while the update is still stuck in the API
    assert progress._thread.is_alive() and progress._thread.daemon
    release.set()
    progress._thread.join(10)
    assert not progress._thread.is_alive()
