"""Signed webhooks in, Prefect events out.

Prefect's own webhooks are Cloud-only, so Polygon receives the webhook and emits the Prefect event a
deployment trigger waits for. Every request is checked, in this order, and anything that fails a
check emits nothing:

1. content type must be ``application/json``                               → 415
2. the body must fit ``max_body_bytes`` (read incrementally, never whole)  → 413
3. ``X-Hub-Signature-256: sha256=<hex>`` = HMAC-SHA256(secret, raw body)    → 401
4. a delivery id (``X-GitHub-Delivery`` or ``X-Polygon-Delivery``) never seen before → 409
   (kept in Polygon's database, so across restarts and replicas; 503 when it is unreachable)
5. the payload validates, and every path it names resolves inside the webhook roots → 422
   (a sweep's spec must also load as a sweep spec, and its suite and agent pass `validate`'s
   checks: the 422 names the file, line and field)

A valid request sends the event(s) to the Prefect server and answers 202 with their ids once the
server has taken them; when it cannot (Prefect unreachable or refusing) the answer is 503 with the
reason and the delivery id is released, so the sender's retry is accepted. The secret, the signature and the
body never reach a log line. Configuration and payload models: `_webhook_models`; delivery stores:
`_webhook_deliveries`; path containment: `_webhook_paths`.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import logging
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from prefect.client.orchestration import get_client
from prefect.events import Event, emit_event  # noqa: F401  (emit_event: `_call_webhooks` calls it here)
from prefect.events.worker import should_emit_events
from prefect.settings import PREFECT_API_URL
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool

from polygon import usecases
from polygon_core.events import PROMPT_COMMITTED, SWEEP_REQUESTED
from polygon_core.files import FileErrors, PolygonFileError
from polygon_core.imports import MAX_JSON_DEPTH, nested_deeper_than

from ._schema import webhook_responses
from ._webhook_deliveries import DeliveryStore, DeliveryStoreUnavailableError, MemoryDeliveryStore
from ._webhook_models import GitHubPush, PromptCommitPayload, SweepPayload, WebhookConfig, changed_prompts
from ._webhook_paths import OutsideRootsError, check_inside

__all__ = [
    "PROMPT_COMMITTED",
    "SWEEP_REQUESTED",
    "prompt_event_spec",
    "sign",
    "verify_signature",
    "webhook_router",
]

SIGNATURE_HEADER = "X-Hub-Signature-256"
DELIVERY_HEADERS = ("X-GitHub-Delivery", "X-Polygon-Delivery")
# Any UUID namespace works; a fixed one makes event ids a function of the delivery id.
_EVENT_NAMESPACE = uuid.UUID("5b0f3c1e-9a57-4a3e-8f1d-6f3c2b9d0a11")

log = logging.getLogger("polygon.web.webhooks")

Builder = Callable[[Request, Any, str], list[dict[str, Any]]]


# -- signatures --------------------------------------------------------------------------------


def sign(secret: str | bytes, body: bytes) -> str:
    """The `X-Hub-Signature-256` value GitHub sends for `body`: ``sha256=<hex>``."""
    key = secret.encode() if isinstance(secret, str) else secret
    return "sha256=" + hmac.new(key, body, hashlib.sha256).hexdigest()


def verify_signature(secret: str | bytes, body: bytes, header: str | None) -> bool:
    """True when `header` is the HMAC-SHA256 of `body` under `secret` (constant-time compare)."""
    if not header or not header.startswith("sha256="):
        return False
    return hmac.compare_digest(sign(secret, body).encode(), header.strip().encode())


# -- the checks --------------------------------------------------------------------------------


class _Refused(Exception):
    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail


def _event_id(delivery_id: str, index: int) -> uuid.UUID:
    # Deterministic, so the event id names the delivery it came from.
    return uuid.uuid5(_EVENT_NAMESPACE, f"{delivery_id}/{index}")


async def _read_body(request: Request, limit: int) -> bytes:
    declared = request.headers.get("content-length")
    if declared is not None:
        try:
            too_big = int(declared) > limit
        except ValueError:
            raise _Refused(422, "invalid Content-Length header") from None
        if too_big:
            raise _Refused(413, f"body larger than {limit} bytes")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:  # a lying or absent Content-Length: stop reading at the limit
            raise _Refused(413, f"body larger than {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


async def _signed_body(request: Request, config: WebhookConfig) -> bytes:
    """Checks 1-3: the JSON content type, the size limit and the signature; the raw body."""
    media = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media != "application/json":
        raise _Refused(415, "content type must be application/json")
    body = await _read_body(request, config.max_body_bytes)
    if config.secret is None or not config.secret.get_secret_value():
        raise _Refused(401, "webhook secret is not configured (POLYGON_WEBHOOK_SECRET)")
    if not verify_signature(config.secret.get_secret_value(), body, request.headers.get(SIGNATURE_HEADER)):
        raise _Refused(401, f"missing or invalid {SIGNATURE_HEADER} signature")
    return body


def _delivery_id(request: Request) -> str:
    delivery = next((request.headers[h] for h in DELIVERY_HEADERS if request.headers.get(h)), None)
    if delivery is None or len(delivery) > 200:
        raise _Refused(422, "a delivery id header (X-GitHub-Delivery or X-Polygon-Delivery) is required")
    return delivery


def _events(build: Builder, request: Request, body: bytes, delivery: str) -> list[dict[str, Any]]:
    """Check 5: the events a valid payload means (or 422 naming what is wrong)."""
    data = decode_json(body)
    try:
        return build(request, data, delivery)
    except ValidationError as exc:
        fields = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'body'}: {e['msg']}"
                           for e in exc.errors(include_input=False))
        raise _Refused(422, f"invalid payload: {fields}") from None
    except OutsideRootsError as exc:
        raise _Refused(422, f"invalid payload: {exc}") from None


def decode_json(body: bytes) -> Any:
    """The signed body as JSON, or 422: not JSON, or nested deeper than a payload ever is
    (`MAX_JSON_DEPTH`, the import's limit for one record). The parser's RecursionError on a deep
    body was a 500, and a body just under Python's limit would recurse again further on."""
    try:
        data = json.loads(body)
    except RecursionError:
        raise _Refused(422, _TOO_DEEP) from None
    except ValueError:
        raise _Refused(422, "body is not valid JSON") from None
    if nested_deeper_than(data, MAX_JSON_DEPTH):
        raise _Refused(422, _TOO_DEEP)
    return data


_TOO_DEEP = f"body is nested more than {MAX_JSON_DEPTH} levels deep"


class EventNotDeliveredError(RuntimeError):
    """The Prefect server did not take the event (the message names the API URL and the cause)."""


def send_event(**spec: Any) -> Event | None:
    """Send one event to the Prefect server and return it once the server has taken it.

    Prefect's `emit_event` only queues the event for a background worker, which logs and drops it
    when the server cannot be reached, after the webhook has answered 202. This posts it to the
    server's events endpoint (``POST /api/events``) and waits for the answer instead. None when
    Prefect events are disabled; `EventNotDeliveredError` when the server did not take it.
    """
    if not should_emit_events():
        return None
    event = Event(**spec)
    try:
        with get_client(sync_client=True) as client:
            client.request("POST", "/events", json=[event.model_dump(mode="json")])
    except httpx.HTTPError as exc:
        # The cause goes to the server log and the answer; the URL is the operator's own setting.
        reason = str(exc).splitlines()[0][:200] or type(exc).__name__
        raise EventNotDeliveredError(f"the Prefect API at {PREFECT_API_URL.value() or '(ephemeral)'} "
                                     f"did not take the event: {reason}") from None
    return event


async def _emit_all(events: list[dict[str, Any]], delivery: str) -> list[str]:
    ids = []
    for i, spec in enumerate(events):
        # `send_event` is looked up on this module at call time, so tests can capture it; it
        # blocks on the Prefect API, so it runs off the event loop.
        try:
            emitted = await run_in_threadpool(send_event, id=_event_id(delivery, i), **spec)
        except EventNotDeliveredError as exc:
            # A 503 releases the delivery id, so the sender's retry is accepted. (Events of a push
            # already sent are sent again under the same ids.)
            raise _Refused(503, f"{exc}; nothing was recorded: retry the delivery") from None
        if emitted is None:
            raise _Refused(503, "Prefect events are disabled; nothing was emitted")
        ids.append(str(emitted.id))
    return ids


# -- the router --------------------------------------------------------------------------------


def webhook_router(config: WebhookConfig, deliveries: DeliveryStore | None = None) -> APIRouter:
    """`POST /webhooks/prompt-commit` and `POST /webhooks/sweep`.

    `deliveries` defaults to an in-memory store; `create_app` passes the database one.
    """
    store = deliveries if deliveries is not None else MemoryDeliveryStore(
        config.delivery_capacity, config.delivery_ttl_seconds)
    roots = config.resolved_roots()
    router = APIRouter(prefix="/webhooks", tags=["webhooks"])

    async def receive(request: Request, build: Builder) -> JSONResponse:
        kind = request.url.path.rsplit("/", 1)[-1]
        delivery = None
        try:
            body = await _signed_body(request, config)
            claimed = _delivery_id(request)
            try:
                fresh = store.reserve(claimed, kind)
            except DeliveryStoreUnavailableError as exc:
                raise _Refused(503, str(exc)) from None
            if not fresh:  # never release someone else's reservation: `delivery` stays None
                raise _Refused(409, f"delivery {claimed} was already received")
            delivery = claimed
            ids = await _emit_all(_events(build, request, body, delivery), delivery)
        except _Refused as refusal:
            if delivery is not None:
                _release(store, delivery)
            log.warning("webhook %s refused (%d): %s", kind, refusal.status, refusal.detail)
            return JSONResponse({"detail": refusal.detail}, status_code=refusal.status)
        log.info("webhook %s delivery %s accepted: %d event(s)", kind, delivery, len(ids))
        return JSONResponse({"delivery": delivery, "event_id": ids[0] if ids else None, "event_ids": ids},
                            status_code=202)

    def prompt_events(request: Request, data: Any, delivery: str) -> list[dict[str, Any]]:
        event_name = request.headers.get("X-GitHub-Event")
        if event_name == "ping":
            return []
        if event_name is not None:
            if event_name != "push":
                raise _Refused(422, f"only GitHub push events are handled, not {event_name[:40]!r}")
            return _push_events(GitHubPush.model_validate(data), config, roots, delivery)
        payload = PromptCommitPayload.model_validate(data)
        check_inside([("agent_path", payload.agent_path), ("suite_path", payload.suite_path),
                      ("prompt_path", payload.prompt_path)], roots)
        return [prompt_event_spec(payload, source="webhook", delivery=delivery)]

    def sweep_events(_request: Request, data: Any, delivery: str) -> list[dict[str, Any]]:
        payload = SweepPayload.model_validate(data)
        check_inside([("spec_path", payload.spec_path)], roots)
        _check_sweep_spec(payload.spec_path, roots)
        return [{"event": SWEEP_REQUESTED,
                 "resource": {"prefect.resource.id": f"polygon.sweep.{delivery}"},
                 "payload": {**payload.model_dump(), "delivery": delivery}}]

    @router.post("/prompt-commit", status_code=202, responses=webhook_responses(), summary="A prompt was committed")
    async def prompt_commit(request: Request) -> JSONResponse:
        """GitHub push payloads (prompt files found by the configured globs) or Polygon's own."""
        return await receive(request, prompt_events)

    @router.post("/sweep", status_code=202, responses=webhook_responses(), summary="Start a sweep")
    async def sweep(request: Request) -> JSONResponse:
        """A signed sweep request: emits `polygon.sweep.requested` with the spec."""
        return await receive(request, sweep_events)

    return router


def _check_sweep_spec(spec_path: str, roots: list[Path]) -> None:
    """Load the spec as the sweep flow will (relative to the first root that has it), and check its
    suite and agent as `polygon validate` does: a missing file, one that is not a sweep spec, or a
    sweep whose agent or suite would fail the run (`callable: this:s`, a module not found) is
    refused now (422, its file, line and field), not by a flow run that fails later. Nothing the
    spec names is imported here. Paths in the reason are the payload's (relative to the root), not
    the server's."""
    root = next((root for root in roots if (root / spec_path).is_file()), None)
    if root is None:
        raise _Refused(422, f"invalid payload: spec_path: {spec_path}: no such file under the webhook roots")
    found = root / spec_path
    try:
        loaded = usecases.load_sweep(found)
        errors = usecases.validate_files([loaded.suite_path, loaded.agent_path])
        if errors:
            raise FileErrors(errors)
    except (FileErrors, PolygonFileError) as exc:
        reason = "; ".join(str(exc).splitlines()).replace(str(found.resolve()), spec_path)
        reason = reason.replace(f"{root.resolve()}/", "")
        raise _Refused(422, f"invalid payload: spec_path: {reason}") from None


def _release(store: DeliveryStore, delivery: str) -> None:
    # Already logged; the id then stays claimed until it expires, which is the safe side.
    with contextlib.suppress(DeliveryStoreUnavailableError):
        store.release(delivery)


def _push_events(push: GitHubPush, config: WebhookConfig, roots: list[Path],
                 delivery: str) -> list[dict[str, Any]]:
    """One prompt-commit event per (agent, suite) whose prompt files the push changed."""
    changed = changed_prompts(push, config.prompts)
    # The targets come from the server's own configuration; the file paths come from the pusher.
    check_inside([(field, path) for field, path in _push_paths(push) if path in changed], roots)
    per_agent: dict[tuple[str, str | None], list[str]] = {}
    for path, target in changed.items():
        per_agent.setdefault((target.agent, target.suite), []).append(path)
    # No content in a push payload: the prompt version is named by the commit; the flow computes
    # the content hash when it reads the committed files.
    return [prompt_event_spec(PromptCommitPayload(
                agent_path=agent, prompt_hash=f"git:{push.after}", suite_path=suite,
                prompt_path=paths[0], commit=push.after),
                source="github", delivery=delivery, repository=push.repository.full_name, prompt_paths=paths)
            for (agent, suite), paths in per_agent.items()]


def _push_paths(push: GitHubPush) -> list[tuple[str, str]]:
    """(field name as in the payload, path) of every added or modified file."""
    return [(f"commits[{i}].{kind}[{j}]", path)
            for i, commit in enumerate(push.commits)
            for kind in ("added", "modified")
            for j, path in enumerate(getattr(commit, kind))]


def prompt_event_spec(payload: PromptCommitPayload, *, source: str, **extra: Any) -> dict[str, Any]:
    """The `emit_event` arguments of a `polygon.prompt.committed` event (shared with the CLI)."""
    body = {**payload.model_dump(), "source": source, **extra}
    return {"event": PROMPT_COMMITTED,
            "resource": {"prefect.resource.id": f"polygon.agent.{payload.agent_path}",
                         "prefect.resource.name": payload.agent_path},
            "payload": body}
