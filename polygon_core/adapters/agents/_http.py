"""An agent behind an HTTP endpoint: a team tests its deployed agent while Polygon owns the tools.

The protocol (documented in docs/http-agent.md): for every step Polygon POSTs the JSON of an
`AgentRequest` (conversation_id, turn, step, heard, tool_results, history, tools, prompt, language)
and expects the JSON of an `AgentAction` back: `{"say": str, "tool_calls": [{"name", "arguments"}],
"end": null | "end" | "transfer" | "callback"}`. Tool calls are run against Polygon's stubs and their
results come back in the next request's `tool_results`, with `step` counting up within the turn.

Both bounds hold over the whole reply, not per read: an endpoint that sends a huge body is cut off
after `max_body_bytes` (plus at most one network chunk) are read, and one that drips a byte at a time
is cut off when `timeout_s` has passed since the request was sent (httpx's own timeouts restart at
every byte received, so they alone let a dripping endpoint hold a call for minutes).
"""

from __future__ import annotations

import asyncio
import time

import httpx
from pydantic import ValidationError

from ...conversation import AgentAction, AgentRequest


class HttpAgentError(RuntimeError):
    """The agent's endpoint failed or answered something that is not an AgentAction."""


def _failed(endpoint: str, exc: httpx.HTTPError) -> str:
    """One line saying what went wrong with the endpoint and what to check, with httpx's reason."""
    reason = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    if isinstance(exc, httpx.ConnectError):
        return f"cannot connect to {endpoint} ({reason}): is the agent running?"
    return f"agent endpoint {endpoint} failed: {reason}"


DEFAULT_TIMEOUT_S = 30.0  # POLYGON_HTTP_AGENT_TIMEOUT
DEFAULT_MAX_BODY_BYTES = 1_048_576  # POLYGON_HTTP_AGENT_MAX_BODY_BYTES: an action is a few KB


class _BodyTooLarge(Exception):
    """The reply's body passed the cap (raised while reading, so the rest is never read)."""


async def _read_capped(response: httpx.Response, max_bytes: int) -> bytes:
    """The response's (decoded) body, refused as soon as more than `max_bytes` have arrived."""
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise _BodyTooLarge  # said so up front: read nothing
    body = bytearray()
    async for chunk in response.aiter_bytes():
        body += chunk
        if len(body) > max_bytes:
            raise _BodyTooLarge
    return bytes(body)


class HttpAgent:
    """One conversation with an HTTP agent: each turn is one POST on a client opened and closed for it,
    its reply capped at `max_body_bytes` and the whole reply bounded by `timeout_s`."""

    def __init__(self, endpoint: str, *, timeout_s: float = DEFAULT_TIMEOUT_S,
                 max_body_bytes: int = DEFAULT_MAX_BODY_BYTES) -> None:
        self.endpoint = endpoint
        self.timeout_s = timeout_s
        self.max_body_bytes = max_body_bytes

    async def act(self, request: AgentRequest) -> AgentAction:
        """POST the request; a failure is the agent's failure (end reason agent_error).

        The action's `latency_ms` is the measured round trip (request sent to reply read); one the
        endpoint puts in its reply is replaced by it.
        """
        started = time.perf_counter()
        try:
            status, content = await asyncio.wait_for(self._post(request), self.timeout_s)
        except TimeoutError:
            raise HttpAgentError(f"agent endpoint {self.endpoint} did not answer within {self.timeout_s:g} s "
                                 "(the whole reply; POLYGON_HTTP_AGENT_TIMEOUT)") from None
        except httpx.HTTPError as exc:
            raise HttpAgentError(_failed(self.endpoint, exc)) from exc
        except _BodyTooLarge:
            raise HttpAgentError(f"agent endpoint {self.endpoint} answered more than {self.max_body_bytes:,} "
                                 "bytes (the limit, POLYGON_HTTP_AGENT_MAX_BODY_BYTES)") from None
        round_trip_ms = round((time.perf_counter() - started) * 1000, 1)
        if status != 200:
            raise HttpAgentError(f"agent endpoint {self.endpoint} answered HTTP {status}")
        try:
            action = AgentAction.model_validate_json(content)
            return action.model_copy(update={"latency_ms": round_trip_ms})
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "body"
            raise HttpAgentError(f"agent endpoint {self.endpoint} answered an invalid action: {where}: "
                                 f"{first['msg']}") from exc

    async def _post(self, request: AgentRequest) -> tuple[int, bytes]:
        """POST and read the reply, streamed so the cap is enforced while reading: (status, body).

        The body of a non-200 answer is not read at all (its status is the whole message)."""
        # No httpx timeout: the one deadline, over connect, send and the whole read, is `act`'s.
        async with httpx.AsyncClient(timeout=None) as client, client.stream(
                "POST", self.endpoint, content=request.model_dump_json(),
                headers={"content-type": "application/json"}) as response:
            if response.status_code != 200:
                return response.status_code, b""
            return 200, await _read_capped(response, self.max_body_bytes)
