"""What a bot gets back for a tool call: the engine's record of the call as an HTTP status and body.

One mapping for both doors (the POST endpoints answer it as is; MCP marks the same body as an error
result when the status is not 2xx):

- a valid call the stub answered: 200, the result as the body (any JSON value);
- an injected fault (`ToolCall.error`): the status the fault's body names (an integer `status`
  from 400 to 599, as `server_error` carries 500), else 504 for a `timeout` and 500 for the rest;
  the body is the fault's body as the engine recorded it;
- an invalid call (`valid` false): 422 with the engine's `{"error": "invalid_arguments", "detail":
  <the JSON Schema error>}`, or 404 when the engine found no such tool (`unknown_tool`).

Errors of the server itself (no such conversation, the call ended, a body that is not JSON) have
the same shape: `{"error": <code>, "detail": <one line>}`.
"""

from __future__ import annotations

from typing import Any

from polygon_core.models import ToolCall

__all__ = ["error_body", "fault_status", "http_answer"]


def error_body(code: str, detail: str) -> dict[str, str]:
    """The server's own error body: a short code and one line saying what was wrong."""
    return {"error": code, "detail": detail}


def fault_status(call: ToolCall) -> int:
    """The HTTP status of an injected fault (`call.error` set)."""
    result = call.result
    status = result.get("status") if isinstance(result, dict) else None
    if isinstance(status, int) and not isinstance(status, bool) and 400 <= status <= 599:
        return status
    return 504 if call.error == "timeout" else 500


def http_answer(call: ToolCall) -> tuple[int, Any]:
    """(status, body) for the engine's record of a call (see the module's docstring)."""
    if not call.valid:
        unknown = isinstance(call.result, dict) and call.result.get("error") == "unknown_tool"
        body = call.result if call.result is not None else error_body(
            "invalid_arguments", call.validation_error or "invalid arguments")
        return (404 if unknown else 422), body
    if call.error is not None:
        return fault_status(call), call.result
    return 200, call.result
