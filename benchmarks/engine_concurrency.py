"""Engine concurrency: N conversations against a local OpenAI-compatible server with a fixed latency.

Reports measured wall time over the ideal, where ideal = agent calls on a conversation's critical
path × latency × batches (batches = ceil(N / concurrency)). The agent is a model agent through the
real `openai` SDK and Polygon's provider layer; the caller is the offline caller; stubs answer on the
simulated clock. Target: at or below 1.15 at concurrency 50 with 200 conversations.

    .venv/bin/python benchmarks/engine_concurrency.py [--conversations 200] [--concurrency 50]
        [--latency 0.1] [--turns 5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import socket
import threading
import time

import uvicorn
from fastapi import FastAPI, Request

from polygon_core.adapters.agents import agent_factory
from polygon_core.adapters.settings import load_settings
from polygon_core.callers import OfflineCaller
from polygon_core.conversation import Limits, run_conversation
from polygon_core.demo import demo_dir
from polygon_core.files import load_suite
from polygon_core.models import AgentConfig


def _server(latency: float) -> tuple[uvicorn.Server, int]:
    app = FastAPI()
    calls = {"n": 0}

    @app.post("/v1/chat/completions")
    async def chat(request: Request) -> dict:
        body = await request.json()
        calls["n"] += 1
        await asyncio.sleep(latency)  # the fixed model latency under test
        step = len(body.get("messages", []))
        return {"id": f"cmpl-{calls['n']}", "object": "chat.completion", "created": 0, "model": body["model"],
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": f"Noted, step {step}. Anything else?"}}],
                "usage": {"prompt_tokens": 50, "completion_tokens": 8, "total_tokens": 58}}

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error",
                                           limit_concurrency=1000, backlog=2048))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.01)
    return server, port


async def _run(n: int, concurrency: int, turns: int, model: str) -> tuple[float, list[str], int]:
    suite = load_suite(demo_dir() / "suite")
    scenario = suite.scenario("address-change").model_copy(update={"max_turns": turns})
    settings = load_settings(model_concurrency=concurrency, model_cache="off")
    make = agent_factory(AgentConfig(name="bench", model=model, prompt="You are a test agent."),
                         settings=settings)
    gate = asyncio.Semaphore(concurrency)

    async def one(seed: int) -> tuple[str, int]:
        async with gate:
            cid = f"bench-{seed}"
            conv = await run_conversation(scenario, make(), OfflineCaller(scenario.persona, conversation_id=cid,
                                                                           seed=seed),
                                          suite.tools, seed=seed, agent_name="bench", agent_version="b",
                                          limits=Limits(wall_seconds=None))
            return conv.end_reason.value, sum(1 for t in conv.turns if t.speaker == "agent")

    start = time.perf_counter()
    results = await asyncio.gather(*(one(s) for s in range(n)))
    wall = time.perf_counter() - start
    return wall, [r[0] for r in results], max(r[1] for r in results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=50)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--turns", type=int, default=5)
    args = parser.parse_args()
    server, port = _server(args.latency)
    try:
        wall, ends, calls_per_conv = asyncio.run(_run(args.conversations, args.concurrency, args.turns,
                                                      f"openai:bench@http://127.0.0.1:{port}/v1"))
    finally:
        server.should_exit = True
    batches = math.ceil(args.conversations / args.concurrency)
    ideal = calls_per_conv * args.latency * batches
    print(json.dumps({"conversations": args.conversations, "concurrency": args.concurrency,
                      "latency_s": args.latency, "agent_calls_on_critical_path": calls_per_conv,
                      "batches": batches, "ideal_s": round(ideal, 3), "wall_s": round(wall, 3),
                      "ratio": round(wall / ideal, 3),
                      "end_reasons": {e: ends.count(e) for e in sorted(set(ends))}}, indent=2))


if __name__ == "__main__":
    main()
