"""Structured personal data found by pattern: IBANs (mod-97 checked), passports, street addresses.

Each finder returns the spans to replace; `Redactor` applies them before phone numbers are looked
for, so an IBAN's or a passport's digits are never read as a phone number.

* IBAN: two letters, two check digits and 11-30 letters or digits (groups of four may be separated
  by single spaces), accepted only when the ISO 13616 mod-97 checksum holds. A checksum is kept by
  hand rather than with a library: it is five lines, and no country table is needed to reject
  order numbers (which never pass it by chance in the IBAN shape).
* Passport: a number of 6-12 letters and digits (with at least 5 digits, optionally split once, as
  a Russian series and number `4510 123456`) that follows the word "passport" / «паспорт» within a
  few words ("passport number", «паспорт серия … номер …»). Without the cue word the same digits
  are left alone: they are as likely an order or booking number.
* Street address: a house number followed by up to three capitalised words and a street word
  (`221B Baker Street`, `10 Downing St`), or a Russian street word followed by its name and,
  optionally, the house, building and flat (`ул. Ленина, д. 5`, `проспект Мира 12, кв. 7`).
  Towns, postcodes and addresses in other shapes are not found.
"""

from __future__ import annotations

import re

__all__ = ["address_spans", "iban_spans", "iban_valid", "passport_spans"]

Span = tuple[int, int]

_IBAN = re.compile(r"(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}(?![A-Za-z0-9])")

_PASSPORT = re.compile(
    r"(?i)(?:passport|паспорт[а-яё]*)"
    # up to four short words between the cue and the number: "number is", «серия», "no."
    r"(?:[\s:#№.,-]+[^\W\d_]{1,8}(?!\w)){0,4}[\s:#№.,-]*"
    r"(?P<number>"
    r"\d{2}\s?\d{2}\s*(?:номер|№|no\.?|number)?\s*\d{6}"  # Russian series and number
    r"|(?=(?:[A-Z\u0410-\u042f]*\d){5})[A-Z\u0410-\u042f0-9]{6,12}"  # one token, 5+ digits
    r")(?![A-Za-z0-9])"
)

_STREET_WORDS_EN = (
    "Street|St|Road|Rd|Avenue|Ave|Lane|Ln|Drive|Dr|Boulevard|Blvd|Way|Close|Court|Ct|Place|Pl|"
    "Square|Sq|Terrace|Crescent|Highway|Hwy|Parkway|Pkwy|Gardens|Row|Mews|Hill"
)
_ADDRESS_EN = re.compile(
    r"(?<![\w-])\d{1,5}[A-Za-z]?,?\s+(?:[A-Z][a-z'’-]+\s+){1,3}(?:" + _STREET_WORDS_EN + r")\b\.?"
)
_STREET_WORDS_RU = (
    r"ул\.|улица|пр-т|пр\.|проспект|пер\.|переулок|ш\.|шоссе|наб\.|набережная|б-р|бульвар|"
    r"пл\.|площадь|проезд|пр-д"
)
_ADDRESS_RU = re.compile(
    r"(?i:" + _STREET_WORDS_RU + r")\s*"
    r"(?:[А-ЯЁ0-9][А-ЯЁа-яё0-9-]*)(?:\s+[А-ЯЁ][А-ЯЁа-яё-]*){0,2}"
    r"(?:,?\s*(?:(?i:д\.|дом)\s*)?\d+[А-Яа-я]?(?:/\d+)?)?"
    r"(?:,?\s*(?i:корп\.|корпус|к\.|стр\.|строение|кв\.|квартира)\s*\d+[А-Яа-я]?)*"
)


def iban_valid(candidate: str) -> bool:
    """The ISO 13616 mod-97 check of an IBAN (spaces ignored, any case)."""
    text = candidate.replace(" ", "").upper()
    if not re.fullmatch(r"[A-Z]{2}\d{2}[A-Z0-9]{11,30}", text):
        return False
    rearranged = text[4:] + text[:4]
    return int("".join(str(int(ch, 36)) for ch in rearranged)) % 97 == 1


def iban_spans(text: str) -> list[Span]:
    """Spans of the IBANs in `text` (valid checksum only)."""
    return [m.span() for m in _IBAN.finditer(text) if iban_valid(m.group())]


def passport_spans(text: str) -> list[Span]:
    """Spans of passport-like numbers that follow a passport cue word."""
    return [m.span("number") for m in _PASSPORT.finditer(text)]


def address_spans(text: str) -> list[Span]:
    """Spans of street addresses (English house number + street word; Russian street word + name)."""
    return [m.span() for pattern in (_ADDRESS_EN, _ADDRESS_RU) for m in pattern.finditer(text)]
