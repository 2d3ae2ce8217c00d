"""Identifiers redacted like text: an id that holds personal data is replaced by a keyed digest.

Platforms and CSV exports sometimes name a call by the caller's phone number or e-mail address. The
id is the import's idempotency key, so it cannot become a placeholder (every such call would be the
same one): it becomes `redacted-<HMAC-SHA256(key, id), 24 hex>`, the same for the same id and key,
so a re-import is still recognised, and not reversible by trying every phone number without the key.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from dataclasses import dataclass, field

from ._text import RedactionSettings, Redactor

__all__ = ["REDACTED_ID_PREFIX", "IdentifierRedactor"]

REDACTED_ID_PREFIX = "redacted-"
_DIGEST = re.compile(re.escape(REDACTED_ID_PREFIX) + "[0-9a-f]{24}")


@dataclass
class IdentifierRedactor:
    """Maps an external id to the id Polygon stores: itself, or a keyed digest when it holds PII."""

    settings: RedactionSettings
    key: bytes = field(repr=False)

    def __post_init__(self) -> None:
        if len(self.key) < 16:
            raise ValueError("the identifier key must be at least 16 bytes")
        self._redactor = Redactor(self.settings)

    def __call__(self, external_id: str) -> str:
        """`external_id` as stored: unchanged unless the redactor finds personal data in it."""
        # Already a digest (a stored id passed again) stays; anything else is checked, prefix or not.
        if _DIGEST.fullmatch(external_id) or self._redactor.text(external_id) == external_id:
            return external_id
        digest = hmac.new(self.key, external_id.encode("utf-8"), hashlib.sha256).hexdigest()
        return REDACTED_ID_PREFIX + digest[:24]
