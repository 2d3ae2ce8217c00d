"""Russian words through ``pymorphy3`` (its dictionary ships in the ``pymorphy3-dicts-ru`` wheel)."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

WORD = re.compile(r"[А-Яа-яЁё]+(?:-[А-Яа-яЁё]+)?|[A-Za-z]+|\d+(?:[.,]\d+)?|[,:;()«»—–-]")


@cache
def morph() -> Any:
    """The analyser, loaded once: the dictionary takes a third of a second to open."""
    import pymorphy3

    return pymorphy3.MorphAnalyzer(lang="ru")


@cache
def parse(word: str) -> tuple[str, str]:
    """(lemma, part of speech) of one word; ё is kept as the dictionary spells it."""
    parsed = morph().parse(word.lower())[0]
    return parsed.normal_form, str(parsed.tag.POS or "")


@cache
def addressed(word: str) -> bool:
    """Whether a verb form speaks to the agent: an imperative («уточни») or «вы» («спросите»)."""
    return any("impr" in str(p.tag) or "2per" in str(p.tag) for p in morph().parse(word.lower()))


def lemmas(tokens: list[str]) -> list[str]:
    """The lemma of each word token; punctuation and numbers stay as they are."""
    return [parse(t)[0] if t[:1].isalpha() else t for t in tokens]
