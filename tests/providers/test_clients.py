"""SDK clients per event loop: one per endpoint on each loop, sending through the SDK's aiohttp
transport, and closing a loop's clients closes them all even when one fails to close."""

from __future__ import annotations

import asyncio
import functools

import pytest

from polygon_core.adapters.providers._clients import loop_client, shared_loop_clients


class Client:
    """A stand-in for an SDK client: records its closing; `broken` fails to close."""

    def __init__(self, closed: list[str], name: str, broken: bool = False) -> None:
        self.closed, self.name, self.broken = closed, name, broken

    async def close(self) -> None:
        if self.broken:
            raise OSError(f"{self.name} failed to close")
        self.closed.append(self.name)


def test_a_client_that_fails_to_close_leaves_the_others_closed() -> None:
    closed: list[str] = []

    async def run() -> None:
        async with shared_loop_clients():
            for name, broken in (("a", False), ("b", True), ("c", False)):
                client = Client(closed, name, broken)
                assert loop_client((name,), functools.partial(lambda made: made, client)) is client

    with pytest.raises(OSError, match=r"^b failed to close$"):
        asyncio.run(run())
    assert closed == ["a", "c"]
