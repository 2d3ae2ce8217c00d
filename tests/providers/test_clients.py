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


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_an_sdk_client_sends_through_the_sdks_aiohttp_transport(provider: str) -> None:
    from polygon_core.adapters.providers import adapter_class
    from polygon_core.adapters.providers._clients import aclose_all

    adapter = adapter_class(provider)("m", api_key="k", base_url="http://127.0.0.1:9/v1", timeout=5.0)

    async def transport() -> str:
        try:
            client = adapter._client()
            assert adapter._client() is client  # one client per endpoint on a loop
            return type(client._client._transport).__name__
        finally:
            await aclose_all(adapter)

    assert asyncio.run(transport()) == "AiohttpTransport"
