"""Redacting personal data in text: e-mail addresses, card numbers (Luhn), phone numbers, custom.

Order matters: e-mails first (they may hold digits), then cards (so a card's digits are never read
as a phone number), then phones, then the user's patterns. A digit run that looks like a card but
fails the Luhn check is left alone, and no phone number is found inside it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache

import phonenumbers
from pydantic import Field, field_validator

from ..models import FileModel

__all__ = ["RedactionSettings", "Redactor", "luhn_valid"]

CARD, PHONE, EMAIL = "[CARD]", "[PHONE]", "[EMAIL]"

_EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b")
# 13-19 digits, optionally grouped by single spaces or dashes, not touching other digits.
_CARD_LIKE = re.compile(r"(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d])")
_LABEL = re.compile(r"^[A-Z][A-Z0-9_]*$")


def luhn_valid(digits: str) -> bool:
    """The Luhn checksum of a digit string (card numbers carry one)."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


class RedactionSettings(FileModel):
    """What to redact. Keeping unredacted originals is off unless set explicitly."""

    emails: bool = True
    cards: bool = True
    phones: bool = True
    phone_region: str = Field("US", description="region for numbers written without +country code")
    patterns: dict[str, str] = Field(default_factory=dict,
                                     description="LABEL → regex; matches become [LABEL]")
    keep_originals: bool = Field(False, description="also store the unredacted transcript apart")

    @field_validator("patterns")
    @classmethod
    def _valid_patterns(cls, value: dict[str, str]) -> dict[str, str]:
        for label, pattern in value.items():
            if not _LABEL.match(label):
                raise ValueError(f"redaction label {label!r}: use UPPER_CASE letters, digits and _")
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"redaction pattern {label}: {exc}") from None
        return value


@dataclass
class Redactor:
    """Applies `settings` to text and counts what it replaced, by placeholder."""

    settings: RedactionSettings = field(default_factory=RedactionSettings)
    counts: Counter[str] = field(default_factory=Counter)

    def __post_init__(self) -> None:
        self._custom = [(f"[{label}]", re.compile(p)) for label, p in self.settings.patterns.items()]

    def text(self, text: str) -> str:
        """`text` with every match replaced by its typed placeholder."""
        if not text:
            return text
        s = self.settings
        if s.emails and "@" in text:
            text, n = _EMAIL.subn(EMAIL, text)
            self.counts[EMAIL] += n
        digits = sum(ch.isdigit() for ch in text)
        if digits >= 13 and s.cards:
            text = self._cards(text)
        if digits >= 7 and s.phones:
            text = self._phones(text)
        for placeholder, pattern in self._custom:
            text, n = pattern.subn(placeholder, text)
            self.counts[placeholder] += n
        return text

    def _cards(self, text: str) -> str:
        def swap(m: re.Match[str]) -> str:
            if luhn_valid(re.sub(r"\D", "", m.group())):
                self.counts[CARD] += 1
                return CARD
            return m.group()

        return _CARD_LIKE.sub(swap, text)

    def _phones(self, text: str) -> str:
        # Card-like runs that failed Luhn stay as they are: no phone number is cut out of them.
        protected = [m.span() for m in _CARD_LIKE.finditer(text)]
        out, last = [], 0
        for match in _matcher(text, self.settings.phone_region):
            start, end = match.start, match.end
            if any(a < end and start < b for a, b in protected):
                continue
            out.append(text[last:start])
            out.append(PHONE)
            self.counts[PHONE] += 1
            last = end
        if not out:
            return text
        out.append(text[last:])
        return "".join(out)


def _matcher(text: str, region: str) -> list[phonenumbers.PhoneNumberMatch]:
    return list(phonenumbers.PhoneNumberMatcher(text, _region(region),
                                                leniency=phonenumbers.Leniency.VALID))


@lru_cache(maxsize=8)
def _region(region: str) -> str:
    return region.upper()


def settings_from(values: Mapping[str, object] | None) -> RedactionSettings:
    """RedactionSettings from a plain mapping (settings read at the edge)."""
    return RedactionSettings.model_validate(dict(values or {}))
