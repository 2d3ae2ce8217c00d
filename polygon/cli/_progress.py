"""Progress of a run: a bar on a terminal, plain lines in a CI log.

A bar redraws itself in place, which a log file keeps as noise (or not at all), so when stderr is
not a terminal the watcher prints one line every `every` conversations instead, with the rate so
far and the time left at that rate:

    simulated 12/120 conversations (10%), 3.1/s, about 35 s left
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

#: Lines in a log: about one per tenth of the run, never more often than every conversation.
LINES_PER_RUN = 10
POLL_SECONDS = 0.25


def every_for(total: int) -> int:
    """How many conversations one progress line in a log stands for."""
    return max(1, -(-total // LINES_PER_RUN))


def progress_line(done: int, total: int, elapsed_s: float) -> str:
    """One log line: count, share, rate so far and the time left at that rate."""
    share = f"{100 * done // max(total, 1)}%"
    if done <= 0 or elapsed_s <= 0:
        return f"simulated {done}/{total} conversations ({share})"
    rate = done / elapsed_s
    left = max(total - done, 0) / rate
    return (f"simulated {done}/{total} conversations ({share}), {rate:.1f}/s, "
            f"about {_duration(left)} left")


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


@contextmanager
def watch(err: Console, total: int, count: Callable[[], int], *, enabled: bool) -> Iterator[None]:
    """While the body runs, show how many of `total` conversations `count()` finds stored."""
    if not enabled:
        yield
        return
    done = threading.Event()
    if err.is_terminal:
        with Progress(TextColumn("[bold]simulating"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      console=err, transient=True) as bar:
            task_id = bar.add_task("conversations", total=total)
            with _polling(done, lambda: bar.update(task_id, completed=count())):
                yield
        return
    started, every, shown = time.monotonic(), every_for(total), [0]

    def log() -> None:
        n = min(count(), total)
        if n // every > shown[0] // every or (n == total and shown[0] < total):
            shown[0] = n
            err.print(progress_line(n, total, time.monotonic() - started), highlight=False, soft_wrap=True)

    with _polling(done, log):
        yield


@contextmanager
def _polling(done: threading.Event, tick: Callable[[], Any]) -> Iterator[None]:
    def loop() -> None:
        while not done.wait(POLL_SECONDS):
            tick()

    watcher = threading.Thread(target=loop, daemon=True)
    watcher.start()
    try:
        yield
    finally:
        done.set()
        watcher.join()
        tick()  # the last count, so a log always ends on the finished total
