"""Which facts the agent's words ask for.

A kind in the cue tables (`_cues`) is asked for when one of its cues is in the agent's words and no
longer cue of any other kind in the table overlaps it, whether or not the caller knows that kind
("the last four digits of your card number" asks for the last four digits only; "your mother's
maiden name" for the maiden name, not the name). A key the tables do not know (a kind the persona
generator made from the prompt's own words: ``pickup_time``, or ``nomer_polis_kasko``
transliterated from «номер полиса КАСКО») is asked for when the agent says all its words, or, in a
question or a request, its head noun (`head_word`, the generator's rule too), or for a head as
general as "date" or «номер» the word that says which one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

Span = tuple[int, int]

# Cyrillic to Latin, for fact keys («номер полиса» → ``nomer_polisa``): the generator makes its keys
# with it (`personas._readingtypes.slug`), so the caller reads the agent's words with it too.
TRANSLIT = dict(zip("абвгдеёжзийклмнопрстуфхцчшщъыьэюя",
                     ["a", "b", "v", "g", "d", "e", "e", "zh", "z", "i", "y", "k", "l", "m", "n", "o",
                      "p", "r", "s", "t", "u", "f", "kh", "ts", "ch", "sh", "shch", "", "y", "", "e",
                      "yu", "ya"], strict=True))
# Words too general to name a fact alone ("what's the number?"), English and transliterated Russian.
_GENERAL = frozenset({"number", "no", "id", "name", "date", "day", "time", "code", "type", "kind", "details",
                      "nomer", "imya", "imeni", "data", "datu", "den", "vremya", "kod", "tip", "vid",
                      "nazvanie", "kolichestvo", "chas"})
_QUANTITIES = frozenset({"number", "amount", "count", "quantity"})
_STOP = frozenset({"of", "the", "a", "an", "and", "or", "for", "to", "in", "on", "your", "my", "s"})
_ENDINGS = "aeiouy"


def words(text: str) -> list[str]:
    """The words of `text`, lowercased, Cyrillic transliterated as the persona generator's keys are."""
    out = "".join(TRANSLIT.get(ch, ch) if ch.isalnum() else " " for ch in text.lower())
    return out.split()


def _stem(word: str) -> str:
    # A crude stem, so an inflected word matches its lemma ("polisa" ~ "polis", "vremeni" ~ "vremya").
    stem = word.rstrip(_ENDINGS)
    return stem if len(stem) >= 3 else word[:3]


def _said(word: str, heard: list[str]) -> bool:
    stem = _stem(word)
    return any(h.startswith(stem) for h in heard)


def head_word(parts: list[str], *, head_first: bool) -> str:
    """The head noun of a fact's name, as words (a key split on ``_``, or `words` of the prompt's
    words): in Russian the first word that is no adjective («кодовое слово» → ``slovo``), in English
    the word before "of" ("date of damage" → ``date``) unless it only counts what follows ("number of
    nights" → ``nights``), else the last. One rule for the persona generator (which picks a value by
    it) and the caller (which hears the fact named by it)."""
    if head_first:
        nouns = [w for w in parts if not w.endswith(("yy", "iy", "oy"))] or parts
        return nouns[0]
    if "of" in parts[1:] and parts[parts.index("of") - 1] not in _QUANTITIES:
        return parts[parts.index("of") - 1]
    return parts[-1]


def names_by_words(name: str, heard: list[str], *, head_first: bool, asking: bool = True) -> bool:
    """Whether the agent's words (`heard`, from `words`) name a fact called `name` (a key or the
    prompt's words for it): all its words said, or, when the agent is `asking` something, its head
    noun (`head_word`), or for a head as general as "date" the word that says which one
    ("sorry to hear about the damage" names no ``date_of_damage``; "When was the damage?" does)."""
    parts = words(name)
    own = [w for w in parts if w not in _STOP]
    if not own:
        return False
    if all(_said(w, heard) for w in own):
        return True
    general = {_stem(g) for g in _GENERAL}
    head = head_word([w for w in parts if w not in _STOP or w == "of"], head_first=head_first)
    if _stem(head) in general:
        head = next((w for w in reversed(own) if _stem(w) not in general), head)
    return asking and _stem(head) not in general and _said(head, heard)


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
