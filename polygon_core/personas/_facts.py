"""The facts an agent asks callers for: which kind each named thing is, and which tasks it is for.

A prompt's "ask for X, Y and Z" / «спросите X, Y и Z» list names facts. Each item becomes a
ground-truth key: a known kind (`KINDS`: card numbers, licence plates, car makes, dates…) by its cue
words, the longest cue winning («имя владельца» is a name, "the pet's name" a pet's name), or, for
a kind we do not know, a key made from the item's own words, whose value is picked by its head noun
(see `_values.fact_value`). The words before or after the list («перед записью», "to renew or place
a hold") scope it to the tasks they name; a list with no such words is for every task.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..callers import KINDS

IDENTITY = ("account_id", "postcode", "name", "email", "date_of_birth", "phone", "insurance_id", "card_number",
            "card_last4")
# Items that name no fact of their own ("the caller's identity", "details").
_VAGUE = frozenset({"identity", "details", "information", "info", "data", "it", "them", "that", "this",
                    "личность", "данные", "информация", "это"})


# Words of a scope that mean "any change" ("before any change to a membership", «перед любым
# изменением»), and the stems of the task verbs that make one: such a scope is for those tasks.
CHANGE_WORDS = frozenset({"chang", "modif", "amend", "alter", "измен", "смена"})
CHANGE_VERBS = frozenset({"chang", "updat", "freez", "unfre", "cance", "renew", "move", "resch", "modif", "amend",
                          "suspe", "pause", "upgra", "downg", "close", "repla", "edit", "remov", "termi", "switc",
                          "block", "измен", "помен", "смени", "отмен", "перен", "продл", "замор", "размо", "обнов",
                          "приос", "забло", "закры", "удали", "расто"})


def known_key_en(item: str) -> str | None:
    """The known kind an English list item names (the longest cue found), or None."""
    best: tuple[int, str] | None = None
    for key, cues, _ru in KINDS:
        for cue in cues:
            if re.search(rf"(?<![a-z]){re.escape(cue)}(?![a-z])", item) and (best is None or len(cue) > best[0]):
                best = (len(cue), key)
    return best[1] if best else None


def known_key_ru(lemmas: list[str]) -> str | None:
    """The known kind a Russian list item (as lemmas) names (the longest cue found), or None."""
    text = " " + " ".join(lemmas).replace("ё", "е") + " "
    best: tuple[int, str] | None = None
    for key, _en, cues in KINDS:
        for cue in cues:
            said = " ".join(cue).replace("ё", "е")
            if f" {said} " in text and (best is None or len(said) > best[0]):
                best = (len(said), key)
    return best[1] if best else None


def vague(words: list[str]) -> bool:
    """True when an item names no fact: empty, or only words like "identity", «данные»."""
    content = [w for w in words if w not in ("the", "a", "an", "your", "their", "his", "her")]
    return not content or all(w in _VAGUE for w in content)


@dataclass(frozen=True)
class Ask:
    """One "ask for …" list: the fact keys it names and the words that scope it to tasks."""

    keys: tuple[str, ...]
    scope: tuple[str, ...] = ()  # word stems; empty: for every task
    names: tuple[str, ...] = ()  # the prompt's own words for each key, where kept («марку автомобиля»)


def stem(word: str) -> str:
    """A crude stem for matching a scope word to a task's words ("booking" ~ "book")."""
    word = word.lower().replace("ё", "е")
    return word[:5] if len(word) > 5 else word


def scope_matches(scope: tuple[str, ...], words: tuple[str, ...]) -> bool:
    """Whether any scope stem names one of a task's words (one stem a prefix of the other, 4+ letters)."""
    for s in scope:
        for w in words:
            a, b = (s, w) if len(s) <= len(w) else (w, s)
            if len(a) >= 4 and b.startswith(a[:5]):
                return True
    return False
