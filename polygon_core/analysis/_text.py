"""Splitting a prompt into rule units with exact spans, and the language of a prompt."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .patterns import LanguagePatterns

# A unit ends at a sentence end followed by space, or at a line break; list markers are not part of it.
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+|\n+")
_LIST_MARKER = re.compile(r"^(?:[-*•–—]|\d{1,3}[.)]|[a-zA-Zа-яА-Я][.)](?=\s))\s*")
_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
_CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)
_LATIN = re.compile(r"[a-z]", re.IGNORECASE)


@dataclass(frozen=True)
class Unit:
    """One sentence or list item: `text == prompt[start:end]`; `index` is its order in the prompt."""

    index: int
    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Word:
    """One word with its span in the prompt."""

    start: int
    end: int
    text: str


def detect_language(text: str) -> str:
    """`ru` when Cyrillic letters outnumber Latin ones, else `en`."""
    return "ru" if len(_CYRILLIC.findall(text)) > len(_LATIN.findall(text)) else "en"


def split_units(text: str) -> list[Unit]:
    """Sentences and list items of `text`, stripped of whitespace and list markers, in order."""
    units: list[Unit] = []
    pos = 0
    for piece_end, next_start in [(m.start(), m.end()) for m in _SENTENCE_END.finditer(text)] + [
        (len(text), len(text))
    ]:
        _add_unit(units, text, pos, piece_end)
        pos = next_start
    return units


def _add_unit(units: list[Unit], text: str, start: int, end: int) -> None:
    piece = text[start:end]
    lead = len(piece) - len(piece.lstrip())
    start += lead
    piece = piece.strip()
    marker = _LIST_MARKER.match(piece)
    if marker:
        start += marker.end()
        piece = piece[marker.end():]
    end = start + len(piece.rstrip())
    if _WORD.search(text[start:end]):
        units.append(Unit(len(units), start, end, text[start:end]))


def words_in(text: str, offset: int = 0) -> list[Word]:
    """Words (letters, with inner apostrophes and hyphens) of `text`, spans shifted by `offset`."""
    return [Word(m.start() + offset, m.end() + offset, m.group()) for m in _WORD.finditer(text)]


def content_stems(unit: Unit, patterns: LanguagePatterns) -> list[str]:
    """Stems of the unit's content words (stopwords and one-letter words left out), in order."""
    out = []
    for word in words_in(unit.text):
        low = word.text.lower().replace("’", "'")
        if len(low) > 2 and low not in patterns.stopwords:
            out.append(patterns.stem(low))
    return out


def quote(unit: Unit, width: int = 48) -> str:
    """The unit's text for a reason line: whole, or cut at a word boundary with an ellipsis."""
    if len(unit.text) <= width:
        return unit.text
    cut = unit.text[: width - 1]
    return (cut.rsplit(" ", 1)[0] if " " in cut else cut).rstrip(" ,;:") + "…"
