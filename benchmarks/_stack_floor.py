"""The floor of the stack a `polygon run` stands on, measured as two child processes of `throughput.py --floor`.

    python benchmarks/_stack_floor.py sdk N C CALLS URL   # prints {"loop_s": ...}
    python benchmarks/_stack_floor.py flow                # one empty Prefect flow run
    python benchmarks/_stack_floor.py tasks N C CALLS URL # the SDK calls, a Prefect task each conversation

`sdk`: N conversations of CALLS sequential model calls, at most C at once, on one asyncio loop,
through the `openai` SDK exactly as Polygon sends them (its low-level `post`, streamed with usage,
the body read whole; the SDK's aiohttp transport), and nothing else: no Prefect, no simulated
caller, no judge, no storage. `loop_s` runs from the first request to the last reply.

`flow`: a process that imports `openai` and `prefect` and runs one flow that does nothing
(its run created on the API, started, completed and ended), timed whole by the parent. Like every
flow here, without flow-run heartbeats, as `polygon run` runs its own.

`tasks`: one flow run whose conversations (the `sdk` calls) are each one Prefect async task on
one loop, as `polygon run` runs them (one Prefect client for the loop, no cache policy, no
persisted result, the collector tuned as in `usecases.run_bounded`), timed whole by the parent.

`sdk` + `flow` is a lower bound on any `polygon run` of the same conversations on this machine;
`tasks` is the stack as Polygon uses it with none of Polygon's own work (the conversation engine,
the simulated caller's persona, judging, probes, storage, the scorecard and the report).
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from typing import Any


async def _conversation(client: Any, sdk: Any, calls: int) -> None:
    messages = [{"role": "system", "content": "You are Northwind's billing agent."}]
    for turn in range(calls):
        resp = await client.post(
            "/chat/completions", cast_to=sdk.AsyncAPIResponse[bytes],
            body={"model": "bench-agent", "messages": messages, "stream": True,
                  "stream_options": {"include_usage": True}},
            options={"headers": {"X-Stainless-Raw-Response": "stream"}})
        try:
            body = b"".join([chunk async for chunk in resp.iter_bytes()])
        finally:
            await resp.close()
        if b"[DONE]" not in body:
            raise SystemExit(f"an unfinished stream at call {turn}")
        messages.append({"role": "assistant" if turn % 2 == 0 else "user", "content": f"line {turn}"})


async def _sdk_loop(n: int, concurrency: int, calls: int, url: str, *, as_tasks: bool = False) -> float:
    import openai

    client = openai.AsyncOpenAI(api_key="no-key", base_url=url, max_retries=0, timeout=60,
                                http_client=openai.DefaultAioHttpClient(timeout=60))
    gate = asyncio.Semaphore(concurrency)
    work = _task_of(client, openai, calls) if as_tasks else None

    async def one(i: int) -> None:
        async with gate:
            await (work(i) if work is not None else _conversation(client, openai, calls))

    start = time.perf_counter()
    try:
        await asyncio.gather(*(one(i) for i in range(n)))
    finally:
        await client.close()
    return time.perf_counter() - start


def _task_of(client: Any, sdk: Any, calls: int) -> Any:
    from prefect import task
    from prefect.cache_policies import NO_CACHE

    @task(name="stack-floor-conversation", task_run_name="conversation {i}", cache_policy=NO_CACHE,
          persist_result=False)
    async def conversation(i: int) -> None:
        await _conversation(client, sdk, calls)

    return conversation


def _tasks_flow(n: int, concurrency: int, calls: int, url: str) -> None:
    import gc

    from prefect import flow
    from prefect.context import AsyncClientContext

    async def main() -> None:
        async with AsyncClientContext.get_or_create():
            await _sdk_loop(n, concurrency, calls, url, as_tasks=True)

    @flow(name="stack-floor-tasks")
    def conversations() -> None:
        gc.freeze()
        gc.set_threshold(50_000, 20, 20)
        asyncio.run(main())

    with _no_heartbeats():
        conversations()


def _empty_flow() -> None:
    import openai  # noqa: F401  (a run imports it too)
    from prefect import flow

    @flow(name="stack-floor")
    def nothing() -> None:
        return None

    with _no_heartbeats():
        nothing()


def _no_heartbeats() -> Any:
    # As `polygon run` runs its flows (polygon.cli._base.foreground_flows): without it a sync flow
    # run waits about a second at exit for its heartbeat thread, which would overstate the floor.
    from prefect.settings import temporary_settings

    return temporary_settings(updates={"flows.heartbeat_frequency": None})


def main() -> None:
    if sys.argv[1:2] == ["sdk"]:
        n, concurrency, calls, url = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
        print(json.dumps({"loop_s": asyncio.run(_sdk_loop(n, concurrency, calls, url))}))
    elif sys.argv[1:2] == ["tasks"]:
        _tasks_flow(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
    elif sys.argv[1:2] == ["flow"]:
        _empty_flow()
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
