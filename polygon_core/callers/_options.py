"""Options the agent offers ("Tuesday at 10am or Friday at 2pm?"), and which one a caller takes.

An agent's line offers options when it joins two or more of them with "or" / «или» and each says when
(a weekday, a date, a clock time, a part of the day) or one names a value the caller knows ("ibuprofen
or paracetamol?" to a caller who needs ibuprofen). A caller with a preference (its `slot`, its new
date, any date or time fact) takes the first option that does not contradict it and says no when
every option does; a caller with none takes the first. "Can I have your account number or postcode?"
offers no options: neither says when, neither is a value the caller has.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ..models import FactValue

__all__ = ["choose", "offered"]

_DAYS = (("monday", "понедельник"), ("tuesday", "вторник"), ("wednesday", "сред"), ("thursday", "четверг"),
         ("friday", "пятниц"), ("saturday", "суббот"), ("sunday", "воскресен"))
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december", "январ", "феврал", "март", "апрел", "мая", "июн", "июл", "август", "сентябр",
           "октябр", "ноябр", "декабр")
# Parts of the day: (words, first hour, hour after the last).
_PARTS = ((("morning", "утр"), 6, 12), (("afternoon", "after lunch", "после обеда", "днём", "днем"), 12, 18),
          (("evening", "tonight", "вечер"), 17, 24))
_TOMORROW = ("tomorrow", "завтра")
_TIME = re.compile(r"\b(\d{1,2})(?:[:.](\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?(?![\d])", re.IGNORECASE)
_WHEN = re.compile(r"\b(?:\d{1,2}\s+(?:" + "|".join(_MONTHS) + r")\w*|"
                   r"\d{1,2}(?:[:.]\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)|\d{1,2}[:.]\d{2})|"
                   + "|".join(d for pair in _DAYS for d in pair) + "|" + "|".join(_MONTHS) + "|"
                   + "|".join(w for words, _a, _b in _PARTS for w in words) + "|tomorrow|today|завтра|сегодня",
                   re.IGNORECASE)
_SPLIT = re.compile(r",\s*(?:or\s+|или\s+)?|\s+or\s+|\s+или\s+", re.IGNORECASE)
# Words of a fact key that make it a preference of when; a date of birth or of a charge is none.
_PREFERENCE = frozenset({"slot", "date", "time", "day", "den", "data", "vremya", "chas"})
_NOT_PREFERENCE = frozenset({"date_of_birth", "charge_date"})


def offered(line: str, truth: Mapping[str, FactValue]) -> list[str]:
    """The options `line` offers, in its words from the first word that says when (or the value
    itself): [] when it offers none (see the module docstring)."""
    for sentence in re.split(r"(?<=[.!?])\s+", line):
        if not re.search(r"\s(?:or|или)\s", sentence, re.IGNORECASE):
            continue
        chunks = [c.strip(" .?!") for c in _SPLIT.split(sentence) if c.strip(" .?!")]
        timed = [_from_when(c) for c in chunks if _WHEN.search(c)]
        if len(timed) >= 2:
            return timed
        named = [v for v in _values(truth) if any(v.lower() in c.lower() for c in chunks)]
        if named and len(chunks) >= 2:
            return named[:1]
    return []


def _from_when(chunk: str) -> str:
    # The option is the run of when-words nearest its end ("Tuesday at 10am"), not an earlier one
    # ("On October 14 there's a flight at 9:15" offers the 9:15).
    spans = [(m.start(), m.end()) for m in _WHEN.finditer(chunk)]
    start = spans[-1][0] if spans else 0
    for begin, end in reversed(spans[:-1]):
        if len(chunk[end:start].split()) > 2:
            break
        start = begin
    # "on Tuesday at 10am", «во вторник»: the preposition before the day stays with it.
    before = re.search(r"(?:\b(?:on|at)|\bв|\bво)\s+$", chunk[:start], re.IGNORECASE)
    return chunk[before.start() if before else start:].strip()


def _values(truth: Mapping[str, FactValue]) -> list[str]:
    return [str(v) for v in truth.values() if isinstance(v, str) and len(v) > 2]


def _hour(text: str) -> int | None:
    m = _TIME.search(text)
    if not m or not (m.group(2) or m.group(3)):
        return None
    hour, suffix = int(m.group(1)), (m.group(3) or "").lower().replace(".", "")
    if suffix == "pm" and hour < 12:
        hour += 12
    if suffix == "am" and hour == 12:
        hour = 0
    return hour


def _day(text: str) -> int | None:
    low = text.lower()
    return next((i for i, pair in enumerate(_DAYS) if any(d in low for d in pair)), None)


def _part(text: str) -> tuple[int, int] | None:
    low = text.lower()
    return next(((a, b) for words, a, b in _PARTS if any(w in low for w in words)), None)


def _date(text: str) -> str | None:
    m = re.search(r"\b(\d{1,2})\s+(" + "|".join(_MONTHS) + r")|\b(" + "|".join(_MONTHS[:12]) + r")\s+(\d{1,2})",
                  text.lower())
    return m.group(0) if m else None


def _fits(option: str, preference: str) -> bool:
    """Whether `option` contradicts nothing the caller's `preference` says (day, date, part of day)."""
    want_day, got_day = _day(preference), _day(option)
    if want_day is not None and got_day is not None and want_day != got_day:
        return False
    want_date, got_date = _date(preference), _date(option)
    if want_date and got_date and want_date != got_date:
        return False
    part, hour = _part(preference), _hour(option)
    if part and hour is not None and not part[0] <= hour < part[1]:
        return False
    got_part = _part(option)
    return not (part and got_part and part != got_part)


def choose(options: list[str], truth: Mapping[str, FactValue]) -> tuple[str | None, bool]:
    """(the option the caller takes or None, whether it has a preference the options were weighed by)."""
    named = [o for o in options if o in _values(truth)]
    if named:
        return named[0], True
    preferences = [str(v) for k, v in truth.items()
                   if _PREFERENCE & set(k.split("_")) and k not in _NOT_PREFERENCE and isinstance(v, str)]
    if not preferences:
        return (options[0] if options else None), False
    fitting = [o for o in options if all(_fits(o, p) for p in preferences)]
    return (fitting[0] if fitting else None), True
