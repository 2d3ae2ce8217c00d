"""Identifiers redacted like text: an id that holds personal data is replaced by a keyed digest.

Platforms and CSV exports sometimes name a call by the caller's phone number or e-mail address. The
id is the import's idempotency key, so it cannot become a placeholder (every such call would be the
same one): it becomes `redacted-<HMAC-SHA256(key, id), 24 hex>`, the same for the same id and key,
so a re-import is still recognised, and not reversible by trying every phone number without the key.

An id is read as a whole and in parts: split at `_ / : | # = & ? ; ,` and a dash before `+`, and
split at those and every dash (`call-+14155550132`, `tel:+5511987654321`, `caller_4155550132_1`,
`call-+1-415-555-0132`), where the text redactor's rule that digits glued to a reference are not a
phone number would otherwise keep the number.
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
_PARTS = re.compile(r"[_/:|#=&?;,]+|-(?=\+)")
_DASHED = re.compile(r"[_/:|#=&?;,-]+")


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
        if _DIGEST.fullmatch(external_id) or not self._holds_personal_data(external_id):
            return external_id
        digest = hmac.new(self.key, external_id.encode("utf-8"), hashlib.sha256).hexdigest()
        return REDACTED_ID_PREFIX + digest[:24]

    def _holds_personal_data(self, external_id: str) -> bool:
        parts = dict.fromkeys([external_id, *_PARTS.split(external_id), *_DASHED.split(external_id)])
        return any(part and self._redactor.text(part) != part for part in parts)
