"""`usecases.run_bounded` tunes Python's cyclic collector while conversations are in flight and
puts it back afterwards, once, however many runs overlap in threads."""

from __future__ import annotations

import asyncio
import gc
import threading

from polygon import usecases

TUNED = (50_000, 20, 20)


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
