"""Signed webhooks in, Prefect events out.

Prefect's own webhooks are Cloud-only, so Polygon receives the webhook and emits the Prefect event a
deployment trigger waits for. Every request is checked, in this order, and anything that fails a
check emits nothing:

1. content type must be ``application/json``                               → 415
2. the body must fit ``max_body_bytes`` (read incrementally, never whole)  → 413
3. ``X-Hub-Signature-256: sha256=<hex>`` = HMAC-SHA256(secret, raw body)    → 401
4. a delivery id (``X-GitHub-Delivery`` or ``X-Polygon-Delivery``) never seen before → 409
5. the payload validates                                                   → 422

A valid request emits the event(s) and answers 202 with their ids. The secret, the signature and the
body never reach a log line.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import re
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable
from functools import lru_cache
from typing import Any, Protocol

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from prefect.events import emit_event
from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError

__all__ = [
    "PROMPT_COMMITTED",
    "SWEEP_REQUESTED",
    "DeliveryStore",
    "GitHubPush",
    "MemoryDeliveryStore",
    "PromptCommitPayload",
    "PromptTarget",
    "SweepPayload",
    "WebhookConfig",
    "changed_prompts",
    "glob_match",
    "sign",
    "verify_signature",
    "webhook_router",
]

PROMPT_COMMITTED = "polygon.prompt.committed"
SWEEP_REQUESTED = "polygon.sweep.requested"
SIGNATURE_HEADER = "X-Hub-Signature-256"
DELIVERY_HEADERS = ("X-GitHub-Delivery", "X-Polygon-Delivery")
# Any UUID namespace works; a fixed one makes event ids a function of the delivery id.
_EVENT_NAMESPACE = uuid.UUID("5b0f3c1e-9a57-4a3e-8f1d-6f3c2b9d0a11")

log = logging.getLogger("polygon.web.webhooks")


# -- configuration -----------------------------------------------------------------------------


class PromptTarget(BaseModel):
    """What a changed prompt file means: which agent config to re-evaluate, on which suite."""

    model_config = ConfigDict(extra="forbid")

    agent: str = Field(min_length=1, description="agent YAML, relative to the repository root")
    suite: str | None = Field(None, description="suite folder; default: the deployment's")


class WebhookConfig(BaseModel):
    """The receiver's settings (built from PolygonSettings by `create_app`)."""

    model_config = ConfigDict(extra="forbid")

    secret: SecretStr | None = None
    max_body_bytes: int = Field(1_048_576, ge=1)
    # glob (repository-relative, `**` spans folders) → the agent that uses the matching prompt files
    prompts: dict[str, PromptTarget] = Field(default_factory=dict)
    delivery_ttl_seconds: float = Field(7 * 24 * 3600, gt=0)
    delivery_capacity: int = Field(100_000, ge=1)

    @classmethod
    def from_settings(cls, settings: Any) -> WebhookConfig:
        """Read the webhook fields of a PolygonSettings (missing fields keep their defaults)."""
        prompts = {glob: PromptTarget(agent=t) if isinstance(t, str) else PromptTarget.model_validate(t)
                   for glob, t in (getattr(settings, "webhook_prompts", None) or {}).items()}
        values: dict[str, Any] = {"secret": getattr(settings, "webhook_secret", None), "prompts": prompts}
        limit = getattr(settings, "webhook_max_body_bytes", None)
        if limit:
            values["max_body_bytes"] = limit
        return cls(**values)


# -- payloads ----------------------------------------------------------------------------------


class PromptCommitPayload(BaseModel):
    """Polygon's own prompt-commit payload (sent by CI systems other than GitHub, and by tests)."""

    model_config = ConfigDict(extra="forbid")

    agent_path: str = Field(min_length=1)
    prompt_hash: str = Field(min_length=1, max_length=128)
    suite_path: str | None = None
    prompt_path: str | None = None
    commit: str | None = Field(None, max_length=64)
    previous_run_id: str | None = None


class GitHubCommit(BaseModel):
    """The part of a push payload's commit Polygon reads."""

    model_config = ConfigDict(extra="ignore")  # GitHub sends much more; none of it matters here

    id: str
    added: list[str] = Field(default_factory=list)
    modified: list[str] = Field(default_factory=list)
    removed: list[str] = Field(default_factory=list)


class GitHubRepository(BaseModel):
    """The pushed repository."""

    model_config = ConfigDict(extra="ignore")

    full_name: str


class GitHubPush(BaseModel):
    """A GitHub `push` event payload (only what Polygon reads is validated)."""

    model_config = ConfigDict(extra="ignore")

    ref: str
    after: str = Field(min_length=7)
    repository: GitHubRepository
    commits: list[GitHubCommit] = Field(default_factory=list)


class SweepPayload(BaseModel):
    """A sweep request: the path of the sweep spec, relative to the workers' checkout."""

    model_config = ConfigDict(extra="forbid")

    spec_path: str = Field(min_length=1, max_length=1000)


# -- signatures and replays --------------------------------------------------------------------


def sign(secret: str | bytes, body: bytes) -> str:
    """The `X-Hub-Signature-256` value GitHub sends for `body`: ``sha256=<hex>``."""
    key = secret.encode() if isinstance(secret, str) else secret
    return "sha256=" + hmac.new(key, body, hashlib.sha256).hexdigest()


def verify_signature(secret: str | bytes, body: bytes, header: str | None) -> bool:
    """True when `header` is the HMAC-SHA256 of `body` under `secret` (constant-time compare)."""
    if not header or not header.startswith("sha256="):
        return False
    return hmac.compare_digest(sign(secret, body).encode(), header.strip().encode())


class DeliveryStore(Protocol):
    """Remembers delivery ids so a replayed request is refused."""

    def reserve(self, delivery_id: str) -> bool:
        """Record the id; False when it was already seen (a replay)."""
        ...

    def release(self, delivery_id: str) -> None:
        """Forget a reserved id whose request was refused later, so a corrected resend is accepted."""
        ...


class MemoryDeliveryStore:
    """A bounded, expiring, thread-safe set of delivery ids, in this process's memory.

    Ids expire after `ttl_seconds`, and the oldest go first beyond `capacity`. Several receiver
    processes behind a load balancer each keep their own set: run one receiver, or plug in a shared
    DeliveryStore (the Protocol) backed by the database.
    """

    def __init__(self, capacity: int = 100_000, ttl_seconds: float = 7 * 24 * 3600,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._seen: OrderedDict[str, float] = OrderedDict()
        self._capacity = capacity
        self._ttl = ttl_seconds
        self._clock = clock
        self._lock = threading.Lock()

    def reserve(self, delivery_id: str) -> bool:
        """Record the id; False when it was already seen and has not expired."""
        with self._lock:
            now = self._clock()
            while self._seen and next(iter(self._seen.values())) <= now - self._ttl:
                self._seen.popitem(last=False)
            if delivery_id in self._seen:
                return False
            self._seen[delivery_id] = now
            while len(self._seen) > self._capacity:
                self._seen.popitem(last=False)
            return True

    def release(self, delivery_id: str) -> None:
        """Forget the id."""
        with self._lock:
            self._seen.pop(delivery_id, None)

    def __len__(self) -> int:
        return len(self._seen)


# -- prompt files in a push --------------------------------------------------------------------


@lru_cache(maxsize=256)
def _glob_regex(pattern: str) -> re.Pattern[str]:
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:[^/]+/)*")  # zero or more folders
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def glob_match(path: str, pattern: str) -> bool:
    """Repository-path glob: `*` and `?` stay within a folder, `**/` spans zero or more folders."""
    return _glob_regex(pattern.lstrip("/")).match(path.lstrip("/")) is not None


def changed_prompts(push: GitHubPush, prompts: dict[str, PromptTarget]) -> dict[str, PromptTarget]:
    """Prompt files added or modified by a push (removed ones have nothing to evaluate) → target.

    Paths come in commit order; the first glob that matches a path wins.
    """
    found: dict[str, PromptTarget] = {}
    for commit in push.commits:
        for path in [*commit.added, *commit.modified]:
            if path in found:
                continue
            target = next((t for glob, t in prompts.items() if glob_match(path, glob)), None)
            if target is not None:
                found[path] = target
    return found


# -- the router --------------------------------------------------------------------------------


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


def webhook_router(config: WebhookConfig, deliveries: DeliveryStore | None = None) -> APIRouter:
    """`POST /webhooks/prompt-commit` and `POST /webhooks/sweep`."""
    store = deliveries if deliveries is not None else MemoryDeliveryStore(
        config.delivery_capacity, config.delivery_ttl_seconds)
    router = APIRouter(prefix="/webhooks", tags=["webhooks"])

    async def receive(request: Request, build: Callable[[Request, Any, str], list[dict[str, Any]]]
                      ) -> JSONResponse:
        kind = request.url.path.rsplit("/", 1)[-1]
        delivery = None
        try:
            media = request.headers.get("content-type", "").split(";")[0].strip().lower()
            if media != "application/json":
                raise _Refused(415, "content type must be application/json")
            body = await _read_body(request, config.max_body_bytes)
            if config.secret is None or not config.secret.get_secret_value():
                raise _Refused(401, "webhook secret is not configured (POLYGON_WEBHOOK_SECRET)")
            if not verify_signature(config.secret.get_secret_value(), body,
                                    request.headers.get(SIGNATURE_HEADER)):
                raise _Refused(401, f"missing or invalid {SIGNATURE_HEADER} signature")
            delivery = next((request.headers[h] for h in DELIVERY_HEADERS if request.headers.get(h)), None)
            if delivery is None or len(delivery) > 200:
                raise _Refused(422, "a delivery id header (X-GitHub-Delivery or X-Polygon-Delivery) is required")
            if not store.reserve(delivery):
                delivery_seen, delivery = delivery, None  # never release someone else's reservation
                raise _Refused(409, f"delivery {delivery_seen} was already received")
            try:
                data = json.loads(body)
            except ValueError:
                raise _Refused(422, "body is not valid JSON") from None
            try:
                events = build(request, data, delivery)
            except ValidationError as exc:
                fields = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'body'}: {e['msg']}"
                                   for e in exc.errors(include_input=False))
                raise _Refused(422, f"invalid payload: {fields}") from None
            ids = []
            for i, spec in enumerate(events):
                # Looked up on the module at call time, so tests can capture what is emitted.
                emitted = _emit(id=_event_id(delivery, i), **spec)
                if emitted is None:
                    raise _Refused(503, "Prefect events are disabled; nothing was emitted")
                ids.append(str(emitted.id))
        except _Refused as refusal:
            if delivery is not None:
                store.release(delivery)
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
            push = GitHubPush.model_validate(data)
            changed = changed_prompts(push, config.prompts)
            per_agent: dict[tuple[str, str | None], list[str]] = {}
            for path, target in changed.items():
                per_agent.setdefault((target.agent, target.suite), []).append(path)
            # No content in a push payload: the prompt version is named by the commit; the flow
            # computes the content hash when it reads the committed files.
            return [_prompt_event(PromptCommitPayload(
                        agent_path=agent, prompt_hash=f"git:{push.after}", suite_path=suite,
                        prompt_path=paths[0], commit=push.after),
                        source="github", delivery=delivery, repository=push.repository.full_name,
                        prompt_paths=paths)
                    for (agent, suite), paths in per_agent.items()]
        payload = PromptCommitPayload.model_validate(data)
        return [_prompt_event(payload, source="webhook", delivery=delivery)]

    def sweep_events(_request: Request, data: Any, delivery: str) -> list[dict[str, Any]]:
        payload = SweepPayload.model_validate(data)
        return [{"event": SWEEP_REQUESTED,
                 "resource": {"prefect.resource.id": f"polygon.sweep.{delivery}"},
                 "payload": {**payload.model_dump(), "delivery": delivery}}]

    @router.post("/prompt-commit", status_code=202, summary="A prompt was committed")
    async def prompt_commit(request: Request) -> JSONResponse:
        """GitHub push payloads (prompt files found by the configured globs) or Polygon's own."""
        return await receive(request, prompt_events)

    @router.post("/sweep", status_code=202, summary="Start a sweep")
    async def sweep(request: Request) -> JSONResponse:
        """A signed sweep request: emits `polygon.sweep.requested` with the spec."""
        return await receive(request, sweep_events)

    return router


def prompt_event_spec(payload: PromptCommitPayload, *, source: str, **extra: Any) -> dict[str, Any]:
    """The `emit_event` arguments of a `polygon.prompt.committed` event (shared with the CLI)."""
    body = {**payload.model_dump(), "source": source, **extra}
    return {"event": PROMPT_COMMITTED,
            "resource": {"prefect.resource.id": f"polygon.agent.{payload.agent_path}",
                         "prefect.resource.name": payload.agent_path},
            "payload": body}


_prompt_event = prompt_event_spec


def _emit(**kwargs: Any) -> Any:
    return emit_event(**kwargs)
