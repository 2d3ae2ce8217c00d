"""The bot's tools: a conversation's tool stubs served over HTTP and MCP while a call runs.

A voice bot (issue 30) calls its tools over the network, so Polygon serves each conversation's stubs
on a loopback port: one POST endpoint per tool and an OpenAPI 3.1 document built from the tool
library's JSON Schemas, and an MCP server over streamable HTTP exposing the same tools. One
`StubServer` serves many conversations at once, each under its own URL:

    {base_url}/conversations/{key}/openapi.json     GET: the conversation's tools as OpenAPI 3.1
    {base_url}/conversations/{key}/tools            GET: the tools as OpenAI-style function definitions
    {base_url}/conversations/{key}/tools/{name}     POST: the arguments as a JSON object
    {base_url}/conversations/{key}/mcp              MCP, streamable HTTP (stateless, JSON answers)

The server runs no stub: each call is handed, as a `StubCall`, to the async callback the
conversation registered (`StubServer.open`), which answers with the engine's `ToolCall`, so the
engine's `ToolEnvironment` stays the one place stubs run (trace, state, latency, faults and the
invalid-argument gate). `_answers.py` says how that record becomes an HTTP status and body.

Nothing here is imported by a text run; the `mcp` SDK (the `voice` extra) is imported only when a
server with MCP starts.
"""

from ._answers import error_body, fault_status, http_answer
from ._openapi import OPENAPI_VERSION, openapi_document, tool_path
from ._routes import CallEnded, StubCall, StubCallback, StubRoute, UnknownConversation, UnknownTool, Via, route_key
from ._server import StubServer, StubServerError

__all__ = [
    "OPENAPI_VERSION",
    "CallEnded",
    "StubCall",
    "StubCallback",
    "StubRoute",
    "StubServer",
    "StubServerError",
    "UnknownConversation",
    "UnknownTool",
    "Via",
    "error_body",
    "fault_status",
    "http_answer",
    "openapi_document",
    "route_key",
    "tool_path",
]
