"""The OpenAPI 3.1 document of one conversation's tools, built from the tool library's JSON Schemas.

OpenAPI 3.1's schema objects are JSON Schema 2020-12, the dialect tool parameters are written in
(`ToolEnvironment` validates with `Draft202012Validator`), so each tool's `parameters` is the
request body's schema exactly as the library has it: one `POST /tools/{name}` per tool, its
`operationId` the tool's name and its `description` the tool's. A `$ref` inside a tool's schema
that points into the schema itself (`#/$defs/...`) would be read against this document's root;
tool libraries do not use them today.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import quote

__all__ = ["OPENAPI_VERSION", "openapi_document", "tool_path"]

OPENAPI_VERSION = "3.1.0"

_ERROR_REF = {"$ref": "#/components/schemas/StubError"}
_ANY_JSON: dict[str, Any] = {}


def tool_path(name: str) -> str:
    """The path of a tool's endpoint under a conversation's base URL (the name percent-encoded)."""
    return f"/tools/{quote(name, safe='')}"


def _json(description: str, schema: Mapping[str, Any]) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": dict(schema)}}}


def _responses() -> dict[str, Any]:
    """The answers every tool endpoint can give (`_answers.py` says when)."""
    return {
        "200": _json("The stub's result (any JSON value).", _ANY_JSON),
        "400": _json("The body is not JSON.", _ERROR_REF),
        "404": _json("No such conversation or tool.", _ERROR_REF),
        "410": _json("The call has ended: the conversation's stubs are no longer served.", _ERROR_REF),
        "422": _json("Invalid arguments: `detail` is the JSON Schema error. The call is recorded "
                     "(invalid) in the conversation's tool trace.", _ERROR_REF),
        "500": _json("An injected server error, or a custom fault's body.", _ANY_JSON),
        "504": _json("An injected timeout.", _ANY_JSON),
        "default": _json("An injected fault whose body names its own status.", _ANY_JSON),
    }


def _operation(tool: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "operationId": tool["name"],
        "description": tool.get("description") or "",
        "requestBody": {"required": True, "content": {
            "application/json": {"schema": copy.deepcopy(dict(tool["parameters"]))}}},
        "responses": _responses(),
    }


def openapi_document(tools: Iterable[Mapping[str, Any]], server_url: str, *,
                     title: str = "Polygon tool stubs") -> dict[str, Any]:
    """The OpenAPI 3.1 document of `tools` (`[{"name", "description", "parameters"}]`, as
    `ToolEnvironment.schemas()` gives them) served under `server_url`."""
    return {
        "openapi": OPENAPI_VERSION,
        "info": {"title": title, "version": "1",
                 "description": "The scenario's tool stubs for one conversation. Each tool is one POST "
                                "endpoint taking the tool's arguments as a JSON object."},
        "servers": [{"url": server_url}],
        "paths": {tool_path(tool["name"]): {"post": _operation(tool)} for tool in tools},
        "components": {"schemas": {"StubError": {
            "type": "object",
            "properties": {"error": {"type": "string", "description": "a short code, e.g. invalid_arguments"},
                           "detail": {"type": "string", "description": "one line saying what was wrong"}},
            "required": ["error"],
        }}},
    }
