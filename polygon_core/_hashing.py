"""Stable content hashes (never Python's salted `hash()`)."""

from __future__ import annotations

import hashlib
import json
from typing import Any


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no whitespace: the same value always gives the same text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def content_hash(value: Any, length: int = 12) -> str:
    """Hex SHA-256 of the canonical JSON of `value`, cut to `length` characters."""
    return hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()[:length]


def stable_seed(*parts: Any) -> int:
    """A 64-bit seed derived from `parts`, identical in every process."""
    digest = hashlib.sha256(canonical_json(list(parts)).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big")
