"""`usecases.run_bounded` tunes Python's cyclic collector while conversations are in flight and
puts it back afterwards, once, however many runs overlap in threads; the CLI tunes it for a
command's life, from its entry point (importing `polygon.cli` tunes nothing)."""

from __future__ import annotations

import asyncio
import gc
import subprocess
import sys
import threading
from collections.abc import Iterator

import pytest

from polygon import usecases
from tests.conftest import REPO

TUNED = (50_000, 20, 20)


@pytest.fixture(autouse=True)
def thresholds() -> Iterator[None]:
    """The tests set the collector's thresholds: the process's own are put back after each."""
    before = gc.get_threshold()
    yield
    gc.set_threshold(*before)


def test_the_collector_is_tuned_during_the_loop_and_restored_after() -> None:
    gc.set_threshold(700, 10, 10)
    seen: list[tuple[int, int, int]] = []

    async def work(item: int) -> int:
        seen.append(gc.get_threshold())
        return item

    results, _flight = asyncio.run(usecases.run_bounded([1, 2, 3], work, limit=2))
    assert results == [1, 2, 3]
    assert seen == [TUNED, TUNED, TUNED]
    assert gc.get_threshold() == (700, 10, 10) and gc.get_freeze_count() == 0


def test_overlapping_runs_restore_the_collector_when_the_last_one_ends() -> None:
    gc.set_threshold(700, 10, 10)
    first_inside, second_inside, first_done = threading.Event(), threading.Event(), threading.Event()
    seen: dict[str, tuple[int, int, int]] = {}

    async def first(_item: int) -> None:
        first_inside.set()
        second_inside.wait(10)

    def first_run() -> None:
        asyncio.run(usecases.run_bounded([0], first, limit=1))
        first_done.set()

    async def second(_item: int) -> None:
        second_inside.set()
        first_done.wait(10)  # the first run ends while this one is in flight
        seen["second, after the first ended"] = gc.get_threshold()

    thread = threading.Thread(target=first_run)
    thread.start()
    first_inside.wait(10)
    asyncio.run(usecases.run_bounded([0], second, limit=1))
    thread.join(10)
    assert seen == {"second, after the first ended": TUNED}
    assert gc.get_threshold() == (700, 10, 10) and gc.get_freeze_count() == 0


def test_the_cli_tunes_the_collector_for_a_command_not_on_import() -> None:
    code = ("import gc, sys\n"
            "gc.set_threshold(700, 10, 10)\n"
            "import polygon.cli\n"
            "print('imported', gc.get_threshold())\n"
            "sys.argv = ['polygon', '--help']\n"
            "import polygon.cli._app as app\n"
            "app.main = lambda: print('command', gc.get_threshold())  # what the command would see\n"
            "polygon.cli.main()\n"
            "print('after', gc.get_threshold())\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.splitlines() == ["imported (700, 10, 10)", "command (50000, 20, 20)", "after (700, 10, 10)"]
