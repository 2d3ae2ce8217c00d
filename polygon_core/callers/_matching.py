"""Which facts the agent's words ask for.

A kind in the cue tables (`_cues`) is asked for when one of its cues is in the agent's words and no
longer cue of another kind overlaps it ("the last four digits of your card number" asks for the
last four digits only; "your mother's maiden name" for the maiden name, not the name). A key the
tables do not know (a kind the persona generator made from the prompt's own words: ``pickup_time``,
or ``nomer_polis_kasko`` transliterated from «номер полиса КАСКО») is asked for when the agent says
all its words, or its head noun unless that noun is one as general as "number" or «номер».
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

Span = tuple[int, int]

_TRANSLIT = dict(zip("абвгдеёжзийклмнопрстуфхцчшщъыьэюя",
                     ["a", "b", "v", "g", "d", "e", "e", "zh", "z", "i", "y", "k", "l", "m", "n", "o",
                      "p", "r", "s", "t", "u", "f", "kh", "ts", "ch", "sh", "shch", "", "y", "", "e",
                      "yu", "ya"], strict=True))
# Words too general to name a fact alone ("what's the number?"), English and transliterated Russian.
_GENERAL = frozenset({"number", "no", "id", "name", "date", "day", "time", "code", "type", "kind", "details",
                      "nomer", "imya", "imeni", "data", "datu", "den", "vremya", "kod", "tip", "vid",
                      "nazvanie", "kolichestvo", "chas"})
_STOP = frozenset({"of", "the", "a", "an", "and", "or", "for", "to", "in", "on", "your", "my", "s"})
_ENDINGS = "aeiouy"


def words(text: str) -> list[str]:
    """The words of `text`, lowercased, Cyrillic transliterated as the persona generator's keys are."""
    out = "".join(_TRANSLIT.get(ch, ch) if ch.isalnum() else " " for ch in text.lower())
    return out.split()


def _stem(word: str) -> str:
    # A crude stem, so an inflected word matches its lemma ("polisa" ~ "polis", "vremeni" ~ "vremya").
    stem = word.rstrip(_ENDINGS)
    return stem if len(stem) >= 3 else word[:3]


def _said(word: str, heard: list[str]) -> bool:
    stem = _stem(word)
    return any(h.startswith(stem) for h in heard)


def names_by_words(name: str, heard: list[str], *, head_first: bool) -> bool:
    """Whether the agent's words (`heard`, from `words`) name a fact called `name` (a key or the
    prompt's words for it): all its words said, or its head noun (first in Russian, last in English)
    when that noun is not a general one."""
    own = [w for w in words(name) if w not in _STOP]
    if not own:
        return False
    if all(_said(w, heard) for w in own):
        return True
    head = own[0] if head_first else own[-1]
    return _stem(head) not in {_stem(g) for g in _GENERAL} and _said(head, heard)


def cue_spans(low: str, cues: Iterable[str]) -> list[Span]:
    """Where each cue occurs in `low` (every occurrence)."""
    spans = []
    for cue in cues:
        start = low.find(cue)
        while start >= 0:
            spans.append((start, start + len(cue)))
            start = low.find(cue, start + 1)
    return spans


def asked_kinds(low: str, keys: Iterable[str], table: Mapping[str, tuple[str, ...]]) -> list[str]:
    """The keys of `table` among `keys` (in their order) whose cues `low` says, the longest overlapping
    cue winning.

    The cues of every kind in the table compete, not only those of `keys` (the facts one persona
    knows): "What is your email address?" asks for the email even of a caller who knows only an
    address, and "the last four digits of your card number" never asks for the card number.
    """
    spans = {k: cue_spans(low, cues) for k, cues in table.items()}
    out = []
    for key in keys:
        if key not in table:
            continue
        others = [s for k, ss in spans.items() if k != key for s in ss]
        if any(not any(_beats(o, s) for o in others) for s in spans[key]):
            out.append(key)
    return out


def _beats(other: Span, span: Span) -> bool:
    # A strictly longer cue of another kind that overlaps this one wins; equal cues both count
    # ("new address" asks for the new street and the new postcode).
    overlap = other[0] < span[1] and span[0] < other[1]
    return overlap and other[1] - other[0] > span[1] - span[0]


def kind_named_by(name: str, table: Mapping[str, tuple[str, ...]]) -> str | None:
    """The kind whose cue occurs in `name` (the prompt's words for a fact, «марку автомобиля»), the
    longest cue winning, or None."""
    best: tuple[int, str] | None = None
    for key, cues in table.items():
        for cue in cues:
            if cue in name.lower() and (best is None or len(cue) > best[0]):
                best = (len(cue), key)
    return best[1] if best else None
