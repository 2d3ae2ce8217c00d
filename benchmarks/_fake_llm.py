"""A small OpenAI-compatible Chat Completions server with a fixed latency, for throughput benchmarks.

Runs in its own process (`python benchmarks/_fake_llm.py --latency 0.25`), so its CPU is not
counted as Polygon's. One asyncio loop, keep-alive HTTP/1.1, a few hundred microseconds per
request. The simulated caller (a system prompt with `[END:`) and the agent both get short fixed
lines that never end the call, so a conversation lasts exactly its scenario's `max_turns`.

Prints `port <n>` on its first line; `GET /stats` answers what it counted: requests, agent and
caller requests, conversation starts (an agent request before it said anything: one per
simulation) and
the most requests in flight at once.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

STATS: dict[str, int] = {"connections": 0, "requests": 0, "agent": 0, "caller": 0, "starts": 0, "in_flight": 0,
                         "max_in_flight": 0}
# Distinct lines by turn (an agent that repeats itself ends the call as a loop).
AGENT_LINES = ["Thanks for calling Northwind billing, how can I help you today?",
               "I can look into that for you. Which bill do you mean?",
               "I see the charge on your account; it includes a one-off roaming fee.",
               "I can explain the roaming fee in more detail if you like.",
               "Is there anything else I can help you with today?",
               "Thank you for your patience while I check that."]
CALLER_LINES = ["Hi, my last bill looks higher than usual.", "The one from last month.",
                "Oh, I was abroad for a few days, that makes sense.", "No, that is clear now, thanks.",
                "Okay, I think that covers it.", "Alright."]


def _reply(body: dict[str, Any]) -> dict[str, Any]:
    messages = body.get("messages", [])
    system = " ".join(str(m.get("content")) for m in messages if m.get("role") == "system")
    caller = "[END:" in system
    STATS["caller" if caller else "agent"] += 1
    said = sum(1 for m in messages if m.get("role") == "assistant")
    if not caller and said == 0:
        STATS["starts"] += 1
    lines = CALLER_LINES if caller else AGENT_LINES
    text = lines[min(said, len(lines) - 1)]
    return {"id": "chatcmpl-bench", "object": "chat.completion", "created": 0, "model": body.get("model"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 40 + 12 * len(messages), "completion_tokens": 16, "total_tokens": 0}}


def _sse(reply: dict[str, Any]) -> bytes:
    # A streamed reply in one write: one content chunk, the usage chunk, then [DONE].
    chunk = {**reply, "object": "chat.completion.chunk",
             "choices": [{"index": 0, "delta": reply["choices"][0]["message"], "finish_reason": "stop"}]}
    usage = {**reply, "object": "chat.completion.chunk", "choices": []}
    return b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in (chunk, usage)) + b"data: [DONE]\n\n"


async def _handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, latency: float) -> None:
    STATS["connections"] += 1
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            method = lines[0].split(" ", 1)[0]
            headers = {k.strip().lower(): v.strip() for k, _, v in (x.partition(":") for x in lines[1:] if x)}
            raw = await reader.readexactly(int(headers.get("content-length", "0")))
            if method == "GET":
                payload, kind = json.dumps(STATS).encode(), b"application/json"
            else:
                STATS["requests"] += 1
                STATS["in_flight"] += 1
                STATS["max_in_flight"] = max(STATS["max_in_flight"], STATS["in_flight"])
                try:
                    body = json.loads(raw or b"{}")
                    reply = _reply(body)
                    await asyncio.sleep(latency)  # the fixed model latency under test
                finally:
                    STATS["in_flight"] -= 1
                if body.get("stream"):
                    payload, kind = _sse(reply), b"text/event-stream"
                else:
                    payload, kind = json.dumps(reply).encode(), b"application/json"
            writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: " + kind + b"\r\ncontent-length: "
                         + str(len(payload)).encode() + b"\r\n\r\n" + payload)
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError, ValueError):
        pass
    finally:
        writer.close()


async def _serve(latency: float, port: int) -> None:
    server = await asyncio.start_server(lambda r, w: _handle(r, w, latency), "127.0.0.1", port, backlog=4096)
    print(f"port {server.sockets[0].getsockname()[1]}", flush=True)
    async with server:
        await server.serve_forever()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.25, help="seconds every request takes")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    try:
        asyncio.run(_serve(args.latency, args.port))
    except KeyboardInterrupt:
        sys.exit(0)


if __name__ == "__main__":
    main()
