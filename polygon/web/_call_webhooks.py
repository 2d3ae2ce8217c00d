"""Call-ended webhooks from voice platforms in, `polygon.calls.arrived` out.

`POST /webhooks/calls/{source}` receives the webhook of the source named in the sources file
(POLYGON_SOURCES): its platform's import format says how the call is read (`webhook`) and how the
request is signed (`verify`, registered with it), with the secret read from the environment
variable the source names. Every request is checked in this order, and a refused one
stores nothing and emits nothing:

1. content type ``application/json`` (415), body within ``POLYGON_WEBHOOK_MAX_BODY_BYTES`` (413);
2. the source is configured and receives webhooks (404), and its secret is set (401);
3. the platform's signature (401), checked by its format's `verify` (`polygon_core/imports`):
   * Vapi: ``X-Vapi-Signature`` (or the older ``X-Vapi-Secret``) equal to the server URL secret, or,
     with an HMAC credential, ``X-Signature`` = hex HMAC-SHA256(secret, ``"{X-Timestamp}.{body}"``);
   * Retell: ``X-Retell-Signature: v=<ms>,d=<hex>`` with d = HMAC-SHA256(API key, body + ms);
   a signed timestamp more than ``TOLERANCE_SECONDS`` (`imports/_signing.py`) from the server's
   clock is a replay (401);
4. the payload (422): valid JSON, a call its format can import, with the platform's call id
   (``message.call.id``, ``call.call_id``). An event without a finished call (Vapi's status
   updates, Retell's ``call_started``) is answered 200 and ignored. A call without a start time
   is dated by its arrival (the answer's `started_at` and `note` say so).

The accepted call is redacted, then held (see ``polygon.usecases.receive_call``) and announced by
one event (202). A call already received or imported answers 200 and emits nothing: platforms
retry, and a replayed delivery must not import a call twice. An S3 event notification forwarded
to ``POST /webhooks/calls/{source}/s3`` (signed like every Polygon webhook, ``X-Hub-Signature-256``)
records the objects it names for the same import.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any
from urllib.parse import unquote_plus

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from polygon import usecases
from polygon_core.adapters.settings import PolygonSettings
from polygon_core.events import CALLS_ARRIVED
from polygon_core.imports import Source, SourcesFile, format_time, get_format

from . import _webhooks
from ._schema import Detail
from ._webhook_models import WebhookConfig
from ._webhooks import SIGNATURE_HEADER, _read_body, _Refused, decode_json, verify_signature

__all__ = ["CALLS_ARRIVED", "call_webhook_router"]

_NAMESPACE = uuid.UUID("0c6f3f0e-4a43-4c1e-9a55-3b1f5d2d7a21")

log = logging.getLogger("polygon.web.webhooks")


class CallReceived(BaseModel):
    """An accepted call (`external_id`, the id it is stored under) or objects (`objects`, how many
    were new), and the `polygon.calls.arrived` event emitted (None when Prefect events are off).
    A call without a start time is dated by its arrival: `started_at` and `note` say so."""

    external_id: str | None = None
    objects: int | None = None
    event_id: str | None = None
    started_at: str | None = None
    note: str | None = None


class CallNoOp(BaseModel):
    """Nothing to do: a duplicate (`reason`: already received or imported) or an event with no call."""

    duplicate: bool | None = None
    external_id: str | None = None
    reason: str | None = None
    objects: int | None = None
    ignored: str | None = None


def _refusal(description: str) -> dict[str, Any]:
    return {"model": Detail, "description": description}


#: The answers of the call webhooks, in the order their checks run.
CALL_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {"model": CallNoOp, "description": "nothing emitted: a duplicate, or an event without a finished call"},
    202: {"model": CallReceived, "description": "accepted: held for import, `polygon.calls.arrived` emitted"},
    401: _refusal("the secret is not set, or a missing, stale or invalid signature"),
    404: _refusal("no such source, no sources file, or a source that receives no webhooks"),
    413: _refusal("the body is larger than POLYGON_WEBHOOK_MAX_BODY_BYTES"),
    415: _refusal("the content type is not application/json"),
    422: _refusal("invalid JSON, or not a call (or S3 objects) that can be imported"),
}

# -- the router --------------------------------------------------------------------------------


class _Sources:
    """The sources file and the stores, read on the first webhook (not at start-up)."""

    def __init__(self, settings: PolygonSettings) -> None:
        self._settings = settings
        self._lock = threading.Lock()
        self._stores: usecases.Stores | None = None
        self._sources: SourcesFile | None = None

    def get(self) -> tuple[usecases.Stores, SourcesFile]:
        with self._lock:
            if self._stores is None:
                self._stores = usecases.open_stores(self._settings)
            if self._sources is None:
                try:
                    self._sources = usecases.configured_sources(self._stores)
                except (ValueError, OSError) as exc:
                    log.error("call webhooks: %s", str(exc).splitlines()[0][:300])
                    raise _Refused(404, "no sources are configured (POLYGON_SOURCES)") from None
            return self._stores, self._sources


def call_webhook_router(settings: PolygonSettings, config: WebhookConfig, *,
                        clock: Callable[[], float] = time.time) -> APIRouter:
    """`POST /webhooks/calls/{source}` (platform webhooks) and `/webhooks/calls/{source}/s3`."""
    held = _Sources(settings)
    router = APIRouter(prefix="/webhooks/calls", tags=["webhooks"])

    def source_of(sources: SourcesFile, name: str) -> Source:
        source = sources.sources.get(name)
        if source is None:
            raise _Refused(404, f"no source {name[:64]!r} in the sources file")
        return source

    def refused(kind: str, refusal: _Refused) -> JSONResponse:
        log.warning("webhook %s refused (%d): %s", kind, refusal.status, refusal.detail)
        return JSONResponse({"detail": refusal.detail}, status_code=refusal.status)

    def handle_call(source: str, body: bytes, headers: Any) -> JSONResponse:
        stores, sources = held.get()
        configured = source_of(sources, source)
        fmt = get_format(configured.platform)
        verify = fmt.verify  # registered with the format (`@import_format(..., verify=...)`)
        if fmt.webhook is None or verify is None:
            raise _Refused(404, f"source {source!r} ({configured.platform}) receives no webhooks")
        secret = os.environ.get(configured.secret_env or "", "")
        if not secret:
            raise _Refused(401, f"the webhook secret is not set ({configured.secret_env})")
        if not verify(secret, body, headers, clock()):
            raise _Refused(401, f"missing, stale or invalid {configured.platform} signature")
        try:
            records = fmt.webhook(decode_json(body))
        except ValueError as exc:  # a report without the call's id (`message.call.id`)
            raise _Refused(422, f"invalid call: {exc}") from None
        if records is None:
            return JSONResponse({"ignored": "this event carries no finished call"}, status_code=200)
        return _accept(stores, source, configured, records, received_at=format_time(
            datetime.fromtimestamp(clock(), UTC)))

    @router.post("/{source}", status_code=202, responses=CALL_RESPONSES, summary="A call ended")
    async def call_ended(source: str, request: Request) -> JSONResponse:
        """A voice platform's call-ended webhook for `source` (Vapi end-of-call-report, Retell
        call_ended / call_analyzed): the call is redacted, held and announced."""
        try:
            body = await _json_body(request, config.max_body_bytes)
            # Opening the stores, redaction and the database writes block: off the event loop, so
            # one slow write never stalls the other deliveries (or the web app) on this server.
            return await run_in_threadpool(handle_call, source, body, request.headers)
        except _Refused as refusal:
            return refused(f"calls/{source[:64]}", refusal)

    def handle_objects(source: str, body: bytes) -> JSONResponse:
        stores, sources = held.get()
        configured = source_of(sources, source)
        objects = _inside(_s3_objects(decode_json(body)), configured.s3_prefix)
        fresh = usecases.record_objects(stores, source, configured, objects, via="s3-event")
        if not fresh:
            return JSONResponse({"duplicate": True, "objects": 0}, status_code=200)
        event_id = _emit(source, [o.key for o in fresh], "s3-event",
                         f"s3:{source}:" + ",".join(f"{o.key}@{o.etag}" for o in fresh))
        return JSONResponse({"objects": len(fresh), "event_id": event_id}, status_code=202)

    @router.post("/{source}/s3", status_code=202, responses=CALL_RESPONSES,
                 summary="S3 objects arrived")
    async def objects_arrived(source: str, request: Request) -> JSONResponse:
        """An S3 event notification (the `Records` of S3, or EventBridge's `detail`) forwarded and
        signed with POLYGON_WEBHOOK_SECRET: the objects it names are recorded for import."""
        try:
            body = await _json_body(request, config.max_body_bytes)
            secret = config.secret.get_secret_value() if config.secret is not None else ""
            if not secret or not verify_signature(secret, body, request.headers.get(SIGNATURE_HEADER)):
                raise _Refused(401, f"missing or invalid {SIGNATURE_HEADER} signature")
            return await run_in_threadpool(handle_objects, source, body)
        except _Refused as refusal:
            return refused(f"calls/{source[:64]}/s3", refusal)

    return router


async def _json_body(request: Request, limit: int) -> bytes:
    media = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media != "application/json":
        raise _Refused(415, "content type must be application/json")
    return await _read_body(request, limit)


def _accept(stores: usecases.Stores, name: str, source: Source, records: list[Any], *,
            received_at: str) -> JSONResponse:
    if len(records) != 1:
        raise _Refused(422, f"expected one call in the webhook, found {len(records)}")
    try:
        arrival = usecases.receive_call(stores, name, source, records[0], received_at=received_at)
    except usecases.CallRejectedError as exc:
        raise _Refused(422, f"invalid call: {exc}") from None
    if not arrival.fresh:
        log.info("webhook calls/%s: call %s %s; nothing emitted", name, arrival.external_id, arrival.reason)
        return JSONResponse({"duplicate": True, "external_id": arrival.external_id, "reason": arrival.reason},
                            status_code=200)
    event_id = _emit(name, [arrival.external_id], "webhook", f"call:{name}:{arrival.external_id}",
                     location=arrival.location)
    answer: dict[str, Any] = {"external_id": arrival.external_id, "event_id": event_id}
    if arrival.dated_by_arrival is not None:
        # Said in the answer (and kept as metadata.started_at_from): the date is ours, not the platform's.
        answer["started_at"] = arrival.dated_by_arrival
        answer["note"] = "the call has no start time: it is dated by its arrival"
    return JSONResponse(answer, status_code=202)


def _emit(source: str, ids: list[str], via: str, identity: str, **extra: Any) -> str | None:
    """Announce arrivals; None when Prefect events are off (the arrival still waits for the next
    import: pull-calls and the weekly grading import whatever is waiting)."""
    emitted = _webhooks.emit_event(
        id=uuid.uuid5(_NAMESPACE, identity), event=CALLS_ARRIVED,
        resource={"prefect.resource.id": f"polygon.calls.{source}", "prefect.resource.name": source},
        payload={"source": source, "via": via, "external_ids" if via == "webhook" else "objects": ids, **extra})
    if emitted is None:
        log.warning("call arrival of %s held, but Prefect events are disabled: nothing emitted", source)
        return None
    return str(emitted.id)


def _inside(objects: list[tuple[str, str]], prefix: str | None) -> list[tuple[str, str]]:
    """The objects, when every one is under the source's `s3_prefix` (the server's S3 credentials
    must not read whatever a notification names, as webhook paths stay inside their roots)."""
    if prefix is None:
        raise _Refused(422, "this source has no s3_prefix: its sources-file entry must name one")
    outside = [uri for uri, _ in objects if not uri.startswith(prefix)]
    if outside:
        raise _Refused(422, f"{outside[0][:200]} is not under the source's s3_prefix {prefix}")
    return objects


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _s3_objects(data: Any) -> list[tuple[str, str]]:
    """(s3:// URI, ETag) of the created objects an S3 or EventBridge notification names."""
    records = data.get("Records") if isinstance(data, dict) else None
    found: list[tuple[str, str]] = []
    if isinstance(records, list):
        for r in records:
            s3 = _dict(_dict(r).get("s3"))
            bucket, obj = _dict(s3.get("bucket")).get("name"), _dict(s3.get("object"))
            if isinstance(bucket, str) and isinstance(obj.get("key"), str) and bucket and obj["key"]:
                # S3 notifications URL-encode keys (a space is `+`); EventBridge's are plain.
                found.append((f"s3://{bucket}/{unquote_plus(obj['key'])}",
                              str(obj.get("eTag") or obj.get("etag") or "")))
    elif isinstance(data, dict) and isinstance(data.get("detail"), dict):
        detail = data["detail"]
        bucket, obj = _dict(detail.get("bucket")).get("name"), _dict(detail.get("object"))
        if isinstance(bucket, str) and isinstance(obj.get("key"), str) and bucket and obj["key"]:
            found.append((f"s3://{bucket}/{obj['key']}", str(obj.get("etag") or "")))
    if not found:
        raise _Refused(422, "no S3 objects in the notification (Records[].s3 or detail.object)")
    return found
