"""An agent behind an HTTP endpoint: a team tests its deployed agent while Polygon owns the tools.

The protocol (documented in docs/http-agent.md): for every step Polygon POSTs the JSON of an
`AgentRequest` (conversation_id, turn, step, heard, tool_results, history, tools, prompt, language)
and expects the JSON of an `AgentAction` back: `{"say": str, "tool_calls": [{"name", "arguments"}],
"end": null | "end" | "transfer" | "callback"}`. Tool calls are run against Polygon's stubs and their
results come back in the next request's `tool_results`, with `step` counting up within the turn.
"""

from __future__ import annotations

import time

import httpx
from pydantic import ValidationError

from ...conversation import AgentAction, AgentRequest


class HttpAgentError(RuntimeError):
    """The agent's endpoint failed or answered something that is not an AgentAction."""


def _failed(endpoint: str, exc: httpx.HTTPError, timeout_s: float) -> str:
    """One line saying what went wrong with the endpoint and what to check, with httpx's reason."""
    reason = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    if isinstance(exc, httpx.ConnectError):
        return f"cannot connect to {endpoint} ({reason}): is the agent running?"
    if isinstance(exc, httpx.TimeoutException):
        return f"agent endpoint {endpoint} did not answer within {timeout_s:g} s ({reason})"
    return f"agent endpoint {endpoint} failed: {reason}"


class HttpAgent:
    """One conversation with an HTTP agent (one client, closed when the conversation object goes)."""

    def __init__(self, endpoint: str, *, timeout_s: float = 30.0) -> None:
        self.endpoint = endpoint
        self.timeout_s = timeout_s

    async def act(self, request: AgentRequest) -> AgentAction:
        """POST the request; a failure is the agent's failure (end reason agent_error).

        The action's `latency_ms` is the measured round trip (request sent to reply read); one the
        endpoint puts in its reply is replaced by it.
        """
        async with httpx.AsyncClient(timeout=self.timeout_s) as client:
            started = time.perf_counter()
            try:
                response = await client.post(self.endpoint, content=request.model_dump_json(),
                                             headers={"content-type": "application/json"})
            except httpx.HTTPError as exc:
                raise HttpAgentError(_failed(self.endpoint, exc, self.timeout_s)) from exc
            round_trip_ms = round((time.perf_counter() - started) * 1000, 1)
        if response.status_code != 200:
            raise HttpAgentError(f"agent endpoint {self.endpoint} answered HTTP {response.status_code}")
        try:
            action = AgentAction.model_validate_json(response.content)
            return action.model_copy(update={"latency_ms": round_trip_ms})
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "body"
            raise HttpAgentError(f"agent endpoint {self.endpoint} answered an invalid action: {where}: "
                                 f"{first['msg']}") from exc
