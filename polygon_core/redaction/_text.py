"""Redacting personal data in text: e-mails, IBANs, cards, passports, addresses, phones, custom.

Order matters: e-mails first (they may hold digits), then numbers said digit by digit in words
(`_spoken`: "four one five five …", «девять один шесть …»), then IBANs (mod-97) and cards (Luhn), then
passport numbers and street addresses (see `_patterns`), then phones, then the user's patterns, so
the digits of an IBAN, a card or a passport are never read as a phone number. A digit run that
looks like a card but fails the Luhn check is left alone, and no phone number is found inside it.

Phone numbers are looked for in the configured region (`phone_region`, also for numbers without
separators) and in `extra_phone_regions` (default US, GB, RU, DE, FR), where a number counts only
when written with `+`, spaces, dashes, dots or brackets (`020 7946 0958`, `8 (916) 123-45-67`),
so a bare ten-digit order number is not read as a Russian mobile. A number glued to letters or a
dash (`ORD-2024-000123`) is part of a reference, not a phone.
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
from ._checksums import luhn_valid
from ._patterns import address_spans, iban_spans, passport_spans
from ._spoken import spoken_number_spans

__all__ = ["DEFAULT_PHONE_REGIONS", "RedactionSettings", "Redactor", "luhn_valid"]

CARD, PHONE, EMAIL = "[CARD]", "[PHONE]", "[EMAIL]"
IBAN, PASSPORT, ADDRESS = "[IBAN]", "[PASSPORT]", "[ADDRESS]"

DEFAULT_PHONE_REGIONS = ("US", "GB", "RU", "DE", "FR")
"""Regions whose national formats are recognised besides the configured one."""

_SEPARATED = re.compile(r"[\s().-]|^\+")
# A digit run written like a phone number: what the extra regions are asked about.
_CANDIDATE = re.compile(r"(?<![\w-])\+?\(?\d[\d\s().-]{5,22}\d(?![\w-])")
# Dates written with dots, slashes or dashes pass as phone numbers in some regions' formats.
_DATE = re.compile(r"\d{1,4}([./-])\d{1,2}\1\d{1,4}")

# Internationalised too: a local part and a domain in any script (`иван.петров@почта.рф`), the
# top-level domain letters (`рф`, `中国`) or an A-label (`xn--p1ai`).
_EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@[^\W_](?:[\w-]*[^\W_])?(?:\.[^\W_](?:[\w-]*[^\W_])?)*"
                    r"\.(?:[^\W\d_]{2,}|xn--[a-z0-9-]+)(?![\w-])")
# 13-19 digits, optionally grouped by single spaces or dashes, not touching other digits; never
# after a `+` (`+55 11 98765-4321`, `+8613800138000` are phone numbers with a country code).
_CARD_LIKE = re.compile(r"(?<![\d+-])\d(?:[ -]?\d){12,18}(?![\d])")
_LABEL = re.compile(r"^[A-Z][A-Z0-9_]*$")


class RedactionSettings(FileModel):
    """What to redact. Keeping unredacted originals is off unless set explicitly."""

    emails: bool = True
    cards: bool = True
    phones: bool = True
    phone_region: str = Field("US", description="region for numbers written without +country code")
    extra_phone_regions: list[str] = Field(
        default_factory=lambda: list(DEFAULT_PHONE_REGIONS),
        description="more regions whose national formats are recognised (written with separators)")
    ibans: bool = True
    passports: bool = True
    addresses: bool = True
    spoken_numbers: bool = Field(True, description="seven or more digits said as words (en, ru)")
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
        if s.spoken_numbers:
            text = self._spoken(text)
        digits = sum(ch.isdigit() for ch in text)
        if digits >= 8 and s.ibans:
            text = self._spans(text, iban_spans(text), IBAN)
        if digits >= 13 and s.cards:
            text = self._cards(text)
        if digits >= 5 and s.passports and ("passport" in text.lower() or "паспорт" in text.lower()):
            text = self._spans(text, passport_spans(text), PASSPORT)
        if s.addresses:  # spoken addresses have no digit ("forty two Elm Street")
            text = self._spans(text, address_spans(text), ADDRESS)
        if digits >= 7 and s.phones:
            text = self._phones(text)
        for placeholder, pattern in self._custom:
            text, n = pattern.subn(placeholder, text)
            self.counts[placeholder] += n
        return text

    def _spans(self, text: str, spans: list[tuple[int, int]], placeholder: str) -> str:
        out, last = [], 0
        for start, end in sorted(spans):
            if start < last:  # overlapping finds: the first one wins
                continue
            out.append(text[last:start])
            out.append(placeholder)
            self.counts[placeholder] += 1
            last = end
        if not out:
            return text
        out.append(text[last:])
        return "".join(out)

    def _spoken(self, text: str) -> str:
        spans = spoken_number_spans(text)
        if not spans:
            return text
        out, last = [], 0
        for start, end, label in spans:
            allowed = {"CARD": self.settings.cards, "PASSPORT": self.settings.passports,
                       "PHONE": self.settings.phones}[label]
            if not allowed:
                continue
            out.append(text[last:start] + f"[{label}]")
            self.counts[f"[{label}]"] += 1
            last = end
        return "".join(out) + text[last:]

    def _cards(self, text: str) -> str:
        def swap(m: re.Match[str]) -> str:
            if luhn_valid(re.sub(r"\D", "", m.group())):
                self.counts[CARD] += 1
                return CARD
            return m.group()

        return _CARD_LIKE.sub(swap, text)

    def _phones(self, text: str) -> str:
        # Card-like runs that failed Luhn stay as they are: no phone number is cut out of them.
        taken = [m.span() for m in _CARD_LIKE.finditer(text)]
        found: list[tuple[int, int]] = []
        home = _region(self.settings.phone_region)
        extras = [r for r in dict.fromkeys(_region(r) for r in self.settings.extra_phone_regions)
                  if r != home]
        self._accept(text, 0, _matcher(text, home), taken, found, separated=False)
        # The other regions only look at the digit runs left over that are written like a phone
        # number (a matcher over the whole text per region would cost several times as much).
        for candidate in _CANDIDATE.finditer(text):
            start, end = candidate.span()
            if any(a < end and start < b for a, b in taken) or not _SEPARATED.search(candidate.group()):
                continue
            for region in extras:
                if self._accept(text, start, _matcher(candidate.group(), region), taken, found,
                                separated=True):
                    break
        return self._spans(text, [(_trunk_start(text, a), b) for a, b in found], PHONE)

    @staticmethod
    def _accept(text: str, offset: int, matches: list[phonenumbers.PhoneNumberMatch],
                taken: list[tuple[int, int]], found: list[tuple[int, int]], *, separated: bool) -> bool:
        accepted = False
        for match in matches:
            start, end = offset + match.start, offset + match.end
            if any(a < end and start < b for a, b in taken) or _glued(text, start, end):
                continue
            if _DATE.fullmatch(match.raw_string.strip()):
                continue
            if separated and not _SEPARATED.search(match.raw_string):
                continue
            taken.append((start, end))
            found.append((start, end))
            accepted = True
        return accepted


# A trunk or country code said apart before a number another region's format matched: the `8` of
# `8 (916) 765-43-21`, which also reads as the US number (916) 765-4321.
_TRUNK = re.compile(r"(?<![\w+-])\+?\d{1,3}[ .]?$")


def _trunk_start(text: str, start: int) -> int:
    """Where a phone number starts, with a short code written just before it."""
    found = _TRUNK.search(text, max(0, start - 5), start)
    return found.start() if found is not None else start


def _glued(text: str, start: int, end: int) -> bool:
    # `ORD-2024-000123`, `A1-555-0147x`: digits inside a reference, not a phone number.
    before = text[start - 1] if start > 0 else " "
    after = text[end] if end < len(text) else " "
    return before.isalnum() or before in "-_/#" or after.isalnum() or after in "-_/"


def _matcher(text: str, region: str) -> list[phonenumbers.PhoneNumberMatch]:
    return list(phonenumbers.PhoneNumberMatcher(text, _region(region),
                                                leniency=phonenumbers.Leniency.VALID))


@lru_cache(maxsize=8)
def _region(region: str) -> str:
    return region.upper()


def settings_from(values: Mapping[str, object] | None) -> RedactionSettings:
    """RedactionSettings from a plain mapping (settings read at the edge)."""
    return RedactionSettings.model_validate(dict(values or {}))
