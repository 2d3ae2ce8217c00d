"""One conversation end to end: simulated (unless stored), judged and probed, the unit one task runs.

Each stage is idempotent on its own key, so a retried task or a resumed run does only what is
missing: a stored conversation row is never simulated again (its transcript is read back), a
stored judgment by the run's judge under the rubric is kept, and so are stored probe answers to the
probes asked. Only the turn loop runs on the event loop; loading, checks, scoring and writes go to
the loop's default executor, so hundreds of conversations share one loop and the CPU-heavy parts
never stall it.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import threading
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar

from polygon_core.models import Conversation

from ._common import Stores, load_conversation
from ._grade import judge_conversation, probe_conversation
from ._runs import RunSettings, cached_run_settings, run_settings
from ._simulate import simulate_async

__all__ = ["STAGES", "Evaluated", "InFlight", "evaluate_conversation", "run_bounded"]

STAGES = ("judge", "probe")  # after the simulation; a batched pass leaves its stage out
T = TypeVar("T")


@dataclass(frozen=True)
class Evaluated:
    """What one conversation's evaluation did."""

    conversation_id: str
    simulated: bool  # False: its row was already stored (resume, retry) and it was not run again
    composite: float | None = None
    probes: int = 0


async def evaluate_conversation(stores: Stores, run_id: str, scenario_id: str, seed: int,
                                stages: Sequence[str] = STAGES) -> Evaluated:
    """Simulate one conversation of a stored run, then judge and probe it (`stages`), all stored.

    Everything else is the run's (`run_settings`: its suite and agent files, rubric version, judge
    repeats and probe library, as `create_run` recorded them), never an argument: a retried task or
    a resumed run evaluates under the settings the run was created with (docs/design.md, "Run
    settings: one precedence"). Must run inside an event loop (see `run_bounded`); equivalent to
    `simulate`, then `judge` and `probe` on the stored conversation.
    """
    own = cached_run_settings(stores, run_id)
    if own is None:  # the first conversation of the run in this process reads them
        own = await asyncio.to_thread(run_settings, stores, run_id)
    if not own.suite_path or not own.agent_path:
        raise ValueError(f"run {run_id!r} has no manifest naming its suite and agent files")
    sim = await simulate_async(stores, run_id, own.suite_path, own.agent_path, scenario_id, seed, run=own.run)
    if not stages:
        return Evaluated(sim.conversation_id, sim.fresh)
    return await asyncio.to_thread(_grade, stores, own, sim.conversation_id, sim.conversation,
                                   not sim.fresh, stages=tuple(stages), simulated=sim.fresh)


def _grade(stores: Stores, own: RunSettings, cid: str, conv: Conversation | None, resumed: bool, *,
           stages: tuple[str, ...], simulated: bool) -> Evaluated:
    run, suite_path, agent_path = own.run, str(own.suite_path), str(own.agent_path)
    conv = conv or load_conversation(stores, run.id, cid)
    composite, answered = None, 0
    if "judge" in stages:
        composite = judge_conversation(stores, run, conv, suite_path=suite_path, agent_path=agent_path,
                                       rubric_version=own.rubric_version, repeats=own.repeats,
                                       reuse=resumed).composite
    if "probe" in stages:
        answered = len(probe_conversation(stores, run, conv, suite_path=suite_path, agent_path=agent_path,
                                          probes_path=own.probes_path, reuse=resumed))
    return Evaluated(cid, simulated, composite, answered)


@dataclass
class InFlight:
    """How many items `run_bounded` ran at once (`peak`) under its limit, and for how long."""

    limit: int
    peak: int = 0
    now: int = 0
    seconds: float = 0.0
    errors: list[BaseException] = field(default_factory=list)


async def run_bounded(items: Sequence[T], work: Callable[[T], Awaitable[Any]], *, limit: int,
                      done: Callable[[Any], None] | None = None) -> tuple[list[Any], InFlight]:
    """Run `work(item)` for every item on the running loop, at most `limit` at once.

    One loop, one semaphore: no thread per item. The loop's default executor (where each item's
    reads, scoring and writes go) is widened to `limit` threads for the duration, so off-loop work
    never queues behind a narrower pool. Results come back in the order of `items`; an item whose
    work raised gives its exception in its place (also in `InFlight.errors`). `done(result)` is
    called on the loop as each finishes.
    """
    from polygon_core.adapters.providers import shared_loop_clients

    loop = asyncio.get_running_loop()
    stats = InFlight(limit=max(1, limit))
    gate = asyncio.Semaphore(stats.limit)
    pool = ThreadPoolExecutor(max_workers=min(stats.limit, 256), thread_name_prefix="polygon-offload")
    loop.set_default_executor(pool)

    async def one(item: T) -> Any:
        async with gate:
            stats.now += 1
            stats.peak = max(stats.peak, stats.now)
            try:
                result: Any = await work(item)
            except Exception as exc:
                stats.errors.append(exc)
                result = exc
            finally:
                stats.now -= 1
            if done is not None:
                done(result)
            return result

    start = time.perf_counter()
    try:
        with _fewer_collections():
            async with shared_loop_clients():
                results = await asyncio.gather(*(one(item) for item in items))
    finally:
        stats.seconds = time.perf_counter() - start
        pool.shutdown(wait=False)
    return list(results), stats


# Loops inside `_fewer_collections` (runs in several threads at once tune the collector once).
_TUNED: list[tuple[int, ...]] = []  # the thresholds before the first, while any is inside
_TUNED_LOCK = threading.Lock()
_LOOPS = [0]


@contextlib.contextmanager
def _fewer_collections() -> Iterator[None]:
    """Python's cyclic garbage collector, tuned for many conversations in flight at once.

    With the defaults it took a fifth to a quarter of the CPU of a run of 1,000 conversations:
    every full collection walks every object alive, the start-up's modules, schemas and tables
    included, and hundreds of conversations in flight trigger one every few seconds. The objects
    alive before the loop are moved out of its reach (`gc.freeze`), and collections happen less
    often; both are undone when the last such loop of the process ends.
    """
    with _TUNED_LOCK:
        _LOOPS[0] += 1
        if _LOOPS[0] == 1:
            _TUNED[:] = [gc.get_threshold()]
            gc.freeze()
            gc.set_threshold(50_000, 20, 20)
    try:
        yield
    finally:
        with _TUNED_LOCK:
            _LOOPS[0] -= 1
            if _LOOPS[0] == 0:
                gc.set_threshold(*_TUNED.pop())
                gc.unfreeze()
