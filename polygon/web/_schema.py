"""What the OpenAPI schema says about refusals, so every response the app sends is documented.

Polygon answers every refusal as ``{"detail": …}``: a sentence from its own checks, or FastAPI's
list of validation errors for a malformed query. Schemathesis (tests/hardening/test_web_schemathesis.py)
checks each response against these declarations.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel

__all__ = ["API_RESPONSES", "PAGE", "Access", "Detail", "Page", "WebhookAccepted", "documented", "webhook_responses"]


class Detail(BaseModel):
    """A refusal: why the request was not served."""

    detail: str | list[dict[str, Any]]


class WebhookAccepted(BaseModel):
    """A delivery accepted: the ids of the Prefect events it emitted (none for a ping)."""

    delivery: str
    event_id: str | None
    event_ids: list[str]


class Page(BaseModel):
    """One page of a list: `items[offset:offset + limit]` of `total`."""

    total: int
    offset: int
    limit: int
    items: list[dict[str, Any]]


class Access(BaseModel):
    """Who the caller is."""

    mode: Literal["loopback", "token"]
    name: str | None
    scope: Literal["read", "admin"]


def documented(model: type[BaseModel]) -> dict[str, Any]:
    """Route arguments documenting the 200 body as `model` while the route keeps returning its dict
    unchanged (no response_model: nothing is filtered or re-validated on the way out)."""
    return {"response_model": None, "responses": {200: {"model": model}}}


#: The arguments of every paginated route.
PAGE = documented(Page)


def _refusal(description: str) -> dict[str, Any]:
    return {"model": Detail, "description": description}


#: Every `/api` route: access refusals, bad requests, missing results.
API_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: _refusal("ambiguous run id prefix"),
    401: _refusal("an API token is required"),
    403: _refusal("a read-only token on an admin endpoint, or a non-loopback client without tokens"),
    404: _refusal("no such run, conversation, analysis or sweep"),
    422: _refusal("invalid parameters (a sentence, or FastAPI's list of validation errors)"),
}


def webhook_responses() -> dict[int | str, dict[str, Any]]:
    """The answers of a webhook endpoint, in the order its checks run."""
    return {
        202: {"model": WebhookAccepted, "description": "accepted: the emitted event ids"},
        401: _refusal("no secret configured, or a missing or invalid signature"),
        409: _refusal("the delivery id was already received"),
        413: _refusal("the body is larger than POLYGON_WEBHOOK_MAX_BODY_BYTES"),
        415: _refusal("the content type is not application/json"),
        422: _refusal("no delivery id, invalid JSON or payload, or a path outside the webhook roots"),
        503: _refusal("the delivery ledger is unreachable, or Prefect events are disabled"),
    }
