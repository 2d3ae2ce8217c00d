"""Which of a caller's facts an agent's line asks for: one rule for the offline caller (which
answers them) and the simulator-fault check (which flags a hidden fact revealed before it was
asked for)."""

from __future__ import annotations

from collections.abc import Iterable

from ._kinds import OBJECT_KINDS
from ._matching import asked_kinds, names_by_words, words
from ._phrases import Phrases, phrases_for

__all__ = ["asked_for", "asking"]


def asking(low: str, phrases: Phrases) -> bool:
    """Whether the (lowercased) line asks something: a question or a request. A fact named only by
    its head noun is asked for in one, not in a remark ("sorry to hear about the damage")."""
    return "?" in low or any(r in low for r in phrases.requests)


def asked_for(line: str, keys: Iterable[str], language: str | None) -> list[str]:
    """The fact keys among `keys` (in their order) that `line` asks for: a kind of the language's cue
    table by its cues (the longest overlapping cue of any kind winning, `asked_kinds`), a key made
    from the prompt's own words by those words (`names_by_words`)."""
    phrases, low = phrases_for(language), line.lower()
    keys = list(keys)
    table = phrases.fact_cues
    heard, ask = words(low), asking(low, phrases)
    # "I'll transfer you to the duty doctor" names a doctor but asks for none.
    known = {k for k in asked_kinds(low, keys, table) if ask or k not in OBJECT_KINDS}
    return [k for k in keys if k in known or (
        k not in table and names_by_words(k, heard, head_first=language == "ru", asking=ask))]
