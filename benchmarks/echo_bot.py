"""A local echo bot for the real-time voice benchmark (benchmarks/voice.py `realtime`, issue 30).

A WebSocket server on loopback speaking Twilio Media Streams as a bot: it reads `connected` and
`start`, sends each caller `media` payload back as one bot `media` message of the stream (after
`--delay-ms`, kept in order), answers nothing else, and closes the socket on `stop`. Run it in its
own process, so that its CPU is not the event loop's being measured:

    .venv/bin/python benchmarks/echo_bot.py [--delay-ms 0] [--port 0]

It prints its URL (`ws://127.0.0.1:PORT`) as the first line of stdout, serves until stdin closes,
then prints one JSON line of its counts (connections, media messages received and echoed, other
messages) and its own CPU seconds and peak RSS, and exits.

Plain `json` and `base64`-free echo (the payload is sent back as received): the bot costs as little
as a bot can, so the benchmark measures Polygon's side.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any


@dataclass
class Counts:
    """What the bot saw, over every connection."""

    connections: int = 0
    media_in: int = 0
    media_out: int = 0
    other_in: int = 0  # connected, start, stop, mark
    stops: int = 0


async def _writer(ws: Any, queue: asyncio.Queue[tuple[float, str] | None], counts: Counts) -> None:
    """Sends the queued echoes in order, each no earlier than its due time."""
    loop = asyncio.get_running_loop()
    while (item := await queue.get()) is not None:
        due, text = item
        if (wait := due - loop.time()) > 0:
            await asyncio.sleep(wait)
        await ws.send(text)
        counts.media_out += 1


def handler(counts: Counts, delay_s: float) -> Any:
    """The connection handler: echo every caller frame of the stream until `stop`."""
    from websockets.exceptions import ConnectionClosed

    async def handle(ws: Any) -> None:
        counts.connections += 1
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[tuple[float, str] | None] = asyncio.Queue()
        writer = asyncio.create_task(_writer(ws, queue, counts))
        sid = ""
        try:
            async for message in ws:
                data = json.loads(message)
                event = data.get("event")
                if event == "media":
                    counts.media_in += 1
                    payload = data["media"]["payload"]  # base64 as it came: echoed without decoding
                    text = json.dumps({"event": "media", "streamSid": sid, "media": {"payload": payload}},
                                      separators=(",", ":"))
                    queue.put_nowait((loop.time() + delay_s, text))
                    continue
                counts.other_in += 1
                if event == "start":
                    sid = data["start"]["streamSid"]
                elif event == "stop":
                    counts.stops += 1
                    break
            queue.put_nowait(None)
            await writer  # every echo of a frame received before `stop` leaves before the close
            await ws.close(1000, "stream stopped")
        except ConnectionClosed:
            pass
        finally:
            writer.cancel()

    return handle


async def serve(port: int, delay_s: float) -> Counts:
    """Serve until stdin closes; the counts then."""
    from websockets.asyncio.server import serve as ws_serve

    counts = Counts()
    loop = asyncio.get_running_loop()
    async with ws_serve(handler(counts, delay_s), "127.0.0.1", port, compression=None, ping_interval=None) as server:
        bound = next(iter(server.sockets)).getsockname()[1]
        print(f"ws://127.0.0.1:{bound}", flush=True)
        await loop.run_in_executor(None, sys.stdin.read)  # the benchmark closes our stdin when it is done
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one)")
    parser.add_argument("--delay-ms", type=float, default=0.0, help="echo each frame this much later (default 0)")
    args = parser.parse_args()
    counts = asyncio.run(serve(args.port, args.delay_ms / 1000))
    print(json.dumps({**asdict(counts), "cpu_s": time.process_time(), "peak_rss_mib": _peak_rss_mib()}), flush=True)


def _peak_rss_mib() -> float:
    """This process's peak RSS: VmHWM, which starts afresh at exec (`ru_maxrss` keeps the parent's
    peak when the parent was larger, as the benchmark is)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


if __name__ == "__main__":
    main()
