"""Numbers said digit by digit, as a recogniser (or Polygon's own noise) writes them (pure).

A run of seven or more digits spoken as words, in English (`zero`/`oh`, `one` … `nine`, `double`
and `triple` before a digit) or Russian («ноль» … «девять», «одна», «две»), is personal data read
aloud: "four one five five five five zero one three two", «девять один шесть один два три …». Digit
strings inside the run count too ("four one five 555 0132"), so a mixed reading is one run. Words
may be separated by spaces, commas and hyphens; anything else ends the run.

A run of 13-19 digits that passes the Luhn check is a card, a run within a few words after
"passport"/«паспорт» is a passport, and any other run of seven or more digits is taken as a phone
number: nobody spells out an order number or a price digit by digit that long, while short ones
("order four eight two one") are kept. Compound number words ("forty-two", «девятьсот») are not
read: a run of them is left as said.
"""

from __future__ import annotations

import re

from ._checksums import luhn_valid

__all__ = ["MIN_SPOKEN_DIGITS", "spoken_number_spans"]

MIN_SPOKEN_DIGITS = 7

_DIGIT_WORDS: dict[str, str] = {
    "zero": "0", "oh": "0", "o": "0", "nought": "0", "one": "1", "two": "2", "three": "3",
    "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8", "nine": "9",
    "ноль": "0", "нуль": "0", "один": "1", "одна": "1", "два": "2", "две": "2", "три": "3",
    "четыре": "4", "пять": "5", "шесть": "6", "семь": "7", "восемь": "8", "девять": "9",
}
_REPEATS = {"double": 2, "triple": 3}
# "oh" and "o" are digits only inside a run: as its first word they are an interjection.
_NOT_FIRST = frozenset({"oh", "o"})
_TOKEN = re.compile(r"[^\W\d_]+|\d+")
# Most turns say no digit word at all: one search rules them out before any run is read.
_ANY_DIGIT_WORD = re.compile(
    r"(?i)(?<!\w)(?:" + "|".join(w for w in _DIGIT_WORDS if w not in ("oh", "o")) + r")(?!\w)")
_GAP = re.compile(r"[\s,\-–]*")
_PASSPORT_CUE = re.compile(r"(?i)(?:passport|паспорт)")
_CUE_REACH = 40  # characters before a run in which "passport" makes it a passport number

Span = tuple[int, int, str]  # start, end, the digits read


class _Run:
    """The run being read: where it starts and ends, its digits and how many were words."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Nothing read yet."""
        self.start = self.end = -1
        self.digits = ""
        self.words = 0
        self.repeat = 1

    def close(self, into: list[Span]) -> None:
        """Keep the run when a word was among it (bare digit strings are the phone finder's)."""
        if self.start >= 0 and self.words:
            into.append((self.start, self.end, self.digits))
        self.reset()


def _runs(text: str) -> list[Span]:
    """Each run of spoken digits (with digit strings among them): its span and digits."""
    runs: list[Span] = []
    run = _Run()
    for m in _TOKEN.finditer(text):
        token = m.group().casefold().replace("ё", "е")
        if run.start >= 0 and _GAP.fullmatch(text, run.end, m.start()) is None:
            run.close(runs)
        if token in _REPEATS:
            run.start = m.start() if run.start < 0 else run.start
            run.repeat, run.end = _REPEATS[token], m.end()
            continue
        value = token if token.isdigit() else _DIGIT_WORDS.get(token)
        if value is None or (run.start < 0 and token in _NOT_FIRST):
            run.close(runs)
            continue
        run.start = m.start() if run.start < 0 else run.start
        run.digits += value * run.repeat if len(value) == 1 else value
        run.words += not token.isdigit()
        run.repeat, run.end = 1, m.end()
    run.close(runs)
    return runs


def spoken_number_spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, label) of every spoken number of `MIN_SPOKEN_DIGITS` or more digits.

    `label` is ``CARD``, ``PASSPORT`` or ``PHONE`` (see the module docstring)."""
    found: list[tuple[int, int, str]] = []
    if _ANY_DIGIT_WORD.search(text.replace("ё", "е")) is None:
        return found
    for start, end, digits in _runs(text):
        if len(digits) < MIN_SPOKEN_DIGITS:
            continue
        if 13 <= len(digits) <= 19 and luhn_valid(digits):
            label = "CARD"
        elif _PASSPORT_CUE.search(text, max(0, start - _CUE_REACH), start):
            label = "PASSPORT"
        else:
            label = "PHONE"
        found.append((start, end, label))
    return found
