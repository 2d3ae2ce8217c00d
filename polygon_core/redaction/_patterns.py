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
  Spoken forms too: house and flat numbers in words ("forty two Elm Street apartment five",
  «дом семь квартира три»), a street word in any case («на улице Тверская дом 7 квартира 3»), a
  name in lower case when «дом» and a number follow, and an English address in lower case after
  "live(s) at", "located at", "address is", "send/deliver/ship it to".
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
# A house or flat number said in words: "forty two", "one hundred and five", "twenty-one".
_EN_NUMBER_WORD = (
    r"(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|"
    r"fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|"
    r"ninety|hundred|oh)"
)
_EN_NUMBER = (r"(?:\d{1,5}[A-Za-z]?|(?i:" + _EN_NUMBER_WORD + r")(?:(?:[\s-]+|\s+and\s+)(?i:"
              + _EN_NUMBER_WORD + r")){0,3})")
_EN_FLAT = (r"(?:,?\s+(?i:apartment|apt\.?|flat|unit|suite)\s*#?\s*(?:\d{1,5}[A-Za-z]?|(?i:"
            + _EN_NUMBER_WORD + r")(?:[\s-]+(?i:" + _EN_NUMBER_WORD + r")){0,2}))?")
_ADDRESS_EN = re.compile(
    r"(?<![\w-])" + _EN_NUMBER + r",?\s+(?:[A-Z][a-z'’-]+\s+){1,3}(?:" + _STREET_WORDS_EN + r")\b\.?"
    + _EN_FLAT
)
# As a recogniser writes it, in lower case: only after words that say an address follows.
_ADDRESS_EN_SPOKEN = re.compile(
    r"(?i:\b(?:live|lives|living|located|address\s+is|deliver\s+it\s+to|send\s+it\s+to|ship\s+it\s+to)"
    r"(?:\s+(?:at|on|to))?\s+)"
    r"(?P<address>" + _EN_NUMBER + r",?\s+(?:[a-z'’-]+\s+){1,3}(?i:" + _STREET_WORDS_EN + r")\b\.?"
    + _EN_FLAT + r")"
)
# Street words in the cases a sentence puts them in: «улица», «на улице», «по проспекту».
_STREET_WORDS_RU = (
    r"ул\.|улиц(?:а|е|у|ы|ей)|пр-т|пр\.|проспект(?:а|е|у|ом)?|пер\.|переул(?:ок|ка|ке|ку|ком)|ш\.|"
    r"шоссе|наб\.|набережн(?:ая|ой|ую)|б-р|бульвар(?:а|е|у|ом)?|пл\.|площад(?:ь|и|ью)|"
    r"проезд(?:а|е|у|ом)?|пр-д"
)
# A house or flat number said in words: «семь», «двадцать один», «сто пять» (any case).
_RU_NUMBER_WORD = (
    r"(?:ноль|нол[ья]|один|одн(?:а|ого|ом|ой)|дв(?:а|е|ух|ум)|тр(?:и|ех|ем)|четыр(?:е|ех|ем)|"
    r"(?:пят|шест|сем|восем|девят|десят)(?:ь|и)|восьм(?:и)|"
    r"(?:одинн|двен|трин|четырн|пятн|шестн|семн|восемн|девятн)адцат(?:ь|и)|"
    r"(?:двадцат|тридцат)(?:ь|и)|сорок(?:а)?|(?:пятьдесят|шестьдесят|семьдесят|восемьдесят)|"
    r"девяност(?:о|а)|сто|ста)"
)
_RU_NUMBER = (r"(?:\d+[А-Яа-я]?(?:/\d+)?|(?i:" + _RU_NUMBER_WORD + r")(?:\s+(?i:" + _RU_NUMBER_WORD
              + r")){0,2})(?![\w])")
_RU_PARTS = (r"(?:,?\s*(?i:корп\.|корпус[ае]?|к\.|стр\.|строени[еия]|кв\.|квартир(?:а|е|у|ой))\s*"
             + _RU_NUMBER + r")*")
_ADDRESS_RU = re.compile(
    r"(?<![\w])(?i:" + _STREET_WORDS_RU + r")\s*"
    r"(?:[А-ЯЁ0-9][А-ЯЁа-яё0-9-]*)(?:\s+[А-ЯЁ][А-ЯЁа-яё-]*){0,2}"
    r"(?:,?\s*(?:(?i:д\.|дом[еа]?)\s*)?" + _RU_NUMBER + r")?" + _RU_PARTS
)
# Lower case, as a recogniser writes it: a street word, its name and then «дом» with a number.
_ADDRESS_RU_SPOKEN = re.compile(
    r"(?i)(?<![\w])(?:" + _STREET_WORDS_RU + r")\s*[а-яё0-9-]+(?:\s+[а-яё-]+){0,2}?"
    r",?\s*(?:д\.|дом[еа]?)\s*" + _RU_NUMBER + _RU_PARTS
)

_ANY_STREET_WORD = re.compile(r"(?i)(?<!\w)(?:" + _STREET_WORDS_EN + "|" + _STREET_WORDS_RU + r")")


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
    """Spans of street addresses (English house number + street word; Russian street word + name;
    their spoken forms, see the module docstring)."""
    if _ANY_STREET_WORD.search(text) is None:  # most turns name no street: one search says so
        return []
    spans = [m.span() for pattern in (_ADDRESS_EN, _ADDRESS_RU, _ADDRESS_RU_SPOKEN)
             for m in pattern.finditer(text)]
    spans += [m.span("address") for m in _ADDRESS_EN_SPOKEN.finditer(text)]
    return _merged(spans)


def _merged(spans: list[Span]) -> list[Span]:
    # Two patterns may find the same address with different ends: one span covering both.
    out: list[Span] = []
    for start, end in sorted(spans):
        if out and start < out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out
