"""Record/replay response cache: replay a run turn for turn without the model.

The key is a SHA-256 of provider, model and the whole request (messages, tools, schema, sampling
params, seed); the base URL is left out so a recording made against one server replays after it
moved or stopped. Modes: `off`, `record` (call the model, store every reply), `replay` (answer only
from the cache; a miss is an error, never a live call).
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Literal

from ..._hashing import canonical_json, content_hash
from ...conversation import ProviderFailure
from ...providers import ChatRequest, ChatResponse

__all__ = ["CacheMode", "ReplayMiss", "ResponseCache", "cache_key"]

CacheMode = Literal["off", "record", "replay"]


class ReplayMiss(ProviderFailure):
    """Replay mode found no recorded reply for a request."""


def cache_key(provider_model: str, request: ChatRequest) -> str:
    """The stable key of one request to one provider:model."""
    body = request.model_dump(mode="json", exclude={"role"})
    return content_hash({"model": provider_model, "request": json.loads(canonical_json(body))}, 64)


class ResponseCache:
    """Replies stored as JSON files under a folder (one per key)."""

    def __init__(self, folder: Path, mode: CacheMode) -> None:
        self.folder = folder
        self.mode = mode

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> ChatResponse | None:
        """The recorded reply, or None."""
        path = self._path(key)
        if not path.exists():
            return None
        reply = ChatResponse.model_validate_json(path.read_text(encoding="utf-8"))
        return reply.model_copy(update={"cached": True, "retries": 0})

    def put(self, key: str, response: ChatResponse) -> None:
        """Store a reply atomically (concurrent writers of one key write the same bytes)."""
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(response.model_copy(update={"retries": 0}).model_dump_json())
        os.replace(tmp, path)
