"""Progress of long work: a bar on a terminal, plain lines in a CI log, always on stderr (so
`--json` on stdout stays one clean object).

A bar redraws itself in place, which a log file keeps as noise (or not at all), so when stderr is
not a terminal the watcher prints one line every tenth of the work instead, with the rate so far
and the time left at that rate, and always a last line with the finished count:

    simulated 12/120 conversations (10%), 3.1/s, about 35 s left
    compare: 2000/2000 pairs (100%), 125.0/s, about 0 s left

`watch` follows a run (polling how many conversations are stored); `follow` follows a `Tally`
that a use case advances through a callback (`compare`'s pairs, `sweep`'s conversations,
`calibrate`'s judging and bootstrap).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

#: Lines in a log: about one per tenth of the run, never more often than every conversation.
LINES_PER_RUN = 10
POLL_SECONDS = 0.25


def every_for(total: int) -> int:
    """How many conversations one progress line in a log stands for."""
    return max(1, -(-total // LINES_PER_RUN))


def progress_line(done: int, total: int, elapsed_s: float, label: str = "simulated",
                  noun: str = "conversations") -> str:
    """One log line: count, share, rate so far and the time left at that rate."""
    share = f"{100 * done // max(total, 1)}%"
    if done <= 0 or elapsed_s <= 0:
        return f"{label} {done}/{total} {noun} ({share})"
    rate = done / elapsed_s
    left = max(total - done, 0) / rate
    return f"{label} {done}/{total} {noun} ({share}), {rate:.1f}/s, about {_duration(left)} left"


def _bar(err: Console, label: str) -> Progress:
    """A terminal bar: what, how far, count, time taken and time left (estimated from the rate)."""
    return Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    TimeRemainingColumn(), console=err, transient=True)


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


@contextmanager
def watch(err: Console, total: int, count: Callable[[], int], *, enabled: bool, label: str = "simulated",
          noun: str = "conversations") -> Iterator[None]:
    """While the body runs, show how many of `total` conversations `count()` finds stored (`label`
    and `noun` name them in a log's lines)."""
    if not enabled:
        yield
        return
    done = threading.Event()
    if err.is_terminal:
        with _bar(err, "[bold]simulating" if label == "simulated" else f"[bold]{label}") as bar:
            task_id = bar.add_task("conversations", total=total)
            with _polling(done, lambda: bar.update(task_id, completed=count())):
                yield
        return
    started, every, shown = time.monotonic(), every_for(total), [0]

    def log() -> None:
        n = min(count(), total)
        if n // every > shown[0] // every or (n == total and shown[0] < total):
            shown[0] = n
            err.print(progress_line(n, total, time.monotonic() - started, label, noun), highlight=False,
                      soft_wrap=True)

    with _polling(done, log):
        yield


class Tally:
    """How far a long use case is: its step (`label`, e.g. "compare:"), what it counts (`noun`) and
    `done` of `total`, since `started`. The use case calls it (`tally(done, total)`, a new step's
    first call with its label); the watcher reads it from another thread. A step left behind is
    kept in `closed` with its last count and time taken, so its finished line is printed however
    fast it went."""

    def __init__(self, label: str, noun: str) -> None:
        self.label, self.noun, self.done, self.total = label, noun, 0, 0
        self.started = time.monotonic()
        self.closed: list[tuple[str, str, int, int, float]] = []

    def __call__(self, done: int, total: int, label: str | None = None, noun: str | None = None) -> None:
        now = time.monotonic()
        if (label is not None and label != self.label) or (noun is not None and noun != self.noun):
            if self.total:
                self.closed.append((self.label, self.noun, self.done, self.total, now - self.started))
            self.label, self.noun, self.total, self.started = label or self.label, noun or self.noun, 0, now
        if not self.total:  # the step's count starts now: its rate is over its own time
            self.started = now
        self.total, self.done = total, done


class _Lines:
    """The plain lines of a `Tally` in a log: a step's first count, one a tenth, its last count."""

    def __init__(self, err: Console, tally: Tally) -> None:
        self.err, self.tally, self.closed = err, tally, 0
        self.step: tuple[str, str] | None = None
        self.shown = -1

    def tick(self) -> None:
        while self.closed < len(self.tally.closed):  # steps finished since the last tick
            label, noun, n, total, took = self.tally.closed[self.closed]
            self.closed += 1
            self._show(label, noun, min(n, total), total, took, last=True)
            self.step = None
        t = self.tally
        label, noun, total, started = t.label, t.noun, t.total, t.started
        if total:
            self._show(label, noun, min(t.done, total), total, time.monotonic() - started, last=False)

    def _show(self, label: str, noun: str, n: int, total: int, took: float, *, last: bool) -> None:
        if (label, noun) != self.step:  # a new step: its own tenths
            self.step, self.shown = (label, noun), -1
        every = every_for(total)
        due = self.shown < 0 or n // every > self.shown // every or (n >= total > self.shown)
        if due or (last and n > self.shown):
            self.shown = n
            self.err.print(progress_line(n, total, took, label, noun), highlight=False, soft_wrap=True)


@contextmanager
def follow(err: Console, tally: Tally, *, enabled: bool = True) -> Iterator[None]:
    """While the body runs, show `tally` on `err`: a bar on a terminal, else a line every tenth of
    each step and its finished count. Nothing before the use case says how much there is."""
    if not enabled:
        yield
        return
    done = threading.Event()
    if err.is_terminal:
        with _bar(err, "[bold]{task.description}") as bar:
            task_id = bar.add_task("", total=None)

            def draw() -> None:
                if tally.total:
                    bar.update(task_id, description=tally.label, completed=tally.done, total=tally.total)

            with _polling(done, draw):
                yield
        return
    with _polling(done, _Lines(err, tally).tick):
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
