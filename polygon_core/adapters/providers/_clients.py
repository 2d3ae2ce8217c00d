"""SDK clients shared within an event loop, and one TLS context for the whole process.

Building an SDK client loads the system's CA bundle (tens of milliseconds each); a run that made a
client per conversation spent most of its time there. Clients are cached per (event loop, SDK,
base URL, key, timeout) because a client's connections belong to the loop that opened them, and
every client shares one TLS context.

Each SDK client sends through its SDK's aiohttp transport (`DefaultAioHttpClient`, the SDKs'
`aiohttp` extra) rather than its default httpx pool: httpx's pool walks every connection it holds,
probing each idle socket, whenever a request starts or ends, so at 200 requests in flight one pool
cost milliseconds of CPU per request (Polygon used to spread a loop's requests over 64 pools to
keep each walk short). aiohttp's connector keeps idle connections in a queue per host; the same
requests cost about 40% less CPU through one client (benchmarks/README.md, "Throughput").
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import ssl
import threading
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

T = TypeVar("T")

_LOCK = threading.RLock()  # re-entrant: a client is made while the lock is held
_BY_LOOP: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[Any, ...], Any]] = (
    weakref.WeakKeyDictionary())


@functools.cache
def shared_ssl_context() -> ssl.SSLContext:
    """The process's one default TLS context (created on first use)."""
    return ssl.create_default_context()


def loop_client(key: tuple[Any, ...], make: Callable[[], Any]) -> Any:
    """The client for `key` on the running event loop, made once per loop."""
    loop = asyncio.get_running_loop()
    with _LOCK:
        clients = _BY_LOOP.setdefault(loop, {})
        if key not in clients:
            clients[key] = make()
        return clients[key]


# Loops that run many conversations at once: their clients outlive any one conversation.
_SHARED: weakref.WeakSet[asyncio.AbstractEventLoop] = weakref.WeakSet()


def forget_loop_clients() -> list[Any]:
    """Drop (and return, for closing) the running loop's clients; none while the loop is shared."""
    loop = asyncio.get_running_loop()
    with _LOCK:
        if loop in _SHARED:
            return []
        return list(_BY_LOOP.pop(loop, {}).values())


async def close_clients(clients: list[Any]) -> None:
    """Close every client; one that fails to close leaves the rest closed, and the first failure is
    raised after them."""
    failure: BaseException | None = None
    for client in clients:
        try:
            await client.close()
        except Exception as exc:  # the others must still be closed
            failure = failure or exc
    if failure is not None:
        raise failure


async def aclose_all(*parts: object) -> None:
    """Close each model, agent or caller that has `aclose` (its SDK clients on the running loop),
    before the loop ends: an aiohttp session left open is reported on stderr when it is collected."""
    for part in parts:
        close = getattr(part, "aclose", None)
        if close is not None:
            await close()


@contextlib.asynccontextmanager
async def shared_loop_clients() -> AsyncIterator[None]:
    """While inside, the running loop's SDK clients are shared by every conversation on it: closing
    one conversation's model leaves them open; they are closed once, on the way out."""
    loop = asyncio.get_running_loop()
    with _LOCK:
        _SHARED.add(loop)
    try:
        yield
    finally:
        with _LOCK:
            _SHARED.discard(loop)
        await close_clients(forget_loop_clients())


# Times a request that could not be written is sent again before its failure goes to the retry
# layer: each failed send closes the dead connection it took from the pool, so the next one takes
# a live or a new connection; a bound all the same, against a server that closes every connection.
RESENDS = 3


_CLOSING: set[str] = set()
"""Servers (by base URL) seen closing a pooled connection under a request: this process's memory."""


async def _resending_unsent(make: Callable[[], Awaitable[T]], server: str = "") -> T:
    """`make()`, made again (up to RESENDS times) while its request never reached the server: it
    went onto a pooled connection the server had closed (see `never_sent`). Not an attempt and not
    a retry, so a server that closes connections after its replies does not look flaky, and a
    request with one attempt does not fail on it.

    Once `server` has been seen doing that, a connection it drops before any byte of a reply
    (`dropped_unanswered`) is the same race caught a moment later (the request was written just
    before the close arrived) and is sent again too; on a server never seen closing, it is an attempt."""
    from ._errors import dropped_unanswered, never_sent

    for _ in range(RESENDS):
        try:
            return await make()
        except Exception as exc:
            if never_sent(exc):
                _CLOSING.add(server)
            elif not (server in _CLOSING and dropped_unanswered(exc)):
                raise
    return await make()


class SdkAdapter:
    """What every provider adapter shares: the SDK, the key, and one client per event loop.

    A provider declares, as class attributes: `sdk` (the SDK's import name) and `client_class` (its
    async client); `api_key_env` and `base_url_env`, the environment variables of its key and base
    URL (tried in order; the last key variable is the one messages name), which `make_chat_model`
    reads through the settings, so a provider needs no settings field of its own; `default_url`,
    where requests go without a base URL (a provider that is not the SDK's own service is sent
    there, the SDK's own keeps the SDK's default); `title` and `url_example` for messages. A provider
    that is not its SDK's own declares `api_key_env` and `default_url` itself (`@provider` checks).
    `provider`, its registered name, is set by `@provider(name)`. A subclass that also has
    `submit_batch`, `batch_status` and `batch_results` supports batch judging.
    """

    provider: str = ""
    sdk: str
    client_class: str
    api_key_env: tuple[str, ...]
    base_url_env: tuple[str, ...] = ()
    default_url: str
    title: str
    url_example: str

    def __init__(self, model: str, *, api_key: str | None, base_url: str | None, timeout: float) -> None:
        from ._errors import import_sdk

        own_service = self.provider == self.sdk  # OpenAI through openai: the SDK knows its URL
        self.model, self.timeout = model, timeout
        self.base_url = base_url or (None if own_service else self.default_url)
        self._key = api_key
        self._sdk = import_sdk(self.sdk)

    @property
    def key_variable(self) -> str:
        """The key's variable as messages name it (the provider's usual one)."""
        return self.api_key_env[-1]

    @property
    def endpoint(self) -> Any:
        """Where requests go, as failure messages name it."""
        from ._errors import Endpoint

        return Endpoint(f"{self.provider}:{self.model}", self.base_url or self.default_url, self.key_variable)

    def secrets(self) -> list[str]:
        """Values that must never appear in an error message."""
        return [self._key] if self._key else []

    def _client(self) -> Any:
        # max_retries=0: Polygon's retry layer (_retry.py) is the only one. One client per event
        # loop and one TLS context per process; the SDK's aiohttp transport (see the module's
        # docstring), with the SDK's own defaults for connection limits and redirects.
        def make() -> Any:
            return getattr(self._sdk, self.client_class)(
                api_key=self._key or "no-key", base_url=self.base_url, max_retries=0, timeout=self.timeout,
                http_client=self._sdk.DefaultAioHttpClient(verify=shared_ssl_context(), timeout=self.timeout))

        return loop_client((self.provider, self.base_url, self._key, self.timeout), make)

    async def guarded(self, label: str, make: Callable[[], Awaitable[T]]) -> T:
        """Await one SDK call, mapping its exceptions to `Retryable` or `ProviderFailure`."""
        from ...conversation import ProviderFailure
        from ._errors import classify
        from ._retry import Retryable

        try:
            result = await _resending_unsent(make, self.base_url or self.default_url)
        except (ProviderFailure, Retryable):
            raise
        except Exception as exc:
            mapped = classify(exc, self._sdk, label, self.secrets(), self.endpoint)
            if mapped is exc:
                raise
            raise mapped from None
        if isinstance(result, (str, bytes)):
            # The SDK hands back a non-JSON body as text instead of raising.
            raise Retryable("the server's reply is not JSON")
        return result

    async def aclose(self) -> None:
        """Close the running loop's clients: call once, when that loop's conversations are done."""
        await close_clients(forget_loop_clients())
