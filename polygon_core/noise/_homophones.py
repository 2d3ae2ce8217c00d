"""Words that sound alike: curated lists per language, plus Russian final-consonant devoicing.

The lists live beside this module (``homophones_en.yaml``, ``homophones_ru.yaml``) as groups of words
that sound alike; a word may be heard as any other word of its group. Russian words that are not in
the list and end in a voiced consonant (б в г д ж з) are devoiced by rule (п ф к т ш с), as they are
pronounced: ``хлеб`` → ``хлеп``. The rule applies only to all-Cyrillic words of three letters or more,
so short prepositions (``в``, ``из``) are left alone.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

import yaml

_LANGUAGES = ("en", "ru")
_DEVOICE = {"б": "п", "в": "ф", "г": "к", "д": "т", "ж": "ш", "з": "с"}
_MIN_DEVOICE_LETTERS = 3


def _key(word: str) -> str:
    """The lookup key of a word: case-folded, ``ё`` → ``е``, typographic apostrophe → ``'``."""
    return word.casefold().replace("ё", "е").replace("\u2019", "'")


@cache
def homophone_table(language: str) -> dict[str, tuple[str, ...]]:
    """Word → the other words of its group, from the bundled list for `language`."""
    if language not in _LANGUAGES:
        raise ValueError(f"unsupported language {language!r}; expected one of {_LANGUAGES}")
    text = resources.files(__package__).joinpath(f"homophones_{language}.yaml").read_text("utf-8")
    data = yaml.safe_load(text)
    table: dict[str, tuple[str, ...]] = {}
    for group in data["groups"]:
        if not all(isinstance(w, str) and w for w in group) or len(group) < 2:
            raise ValueError(f"homophones_{language}.yaml: bad group {group!r}")
        words = [_key(w) for w in group]
        for word in words:
            if word in table:
                raise ValueError(f"homophones_{language}.yaml: {word!r} is in two groups")
            table[word] = tuple(w for w in words if w != word)
    return table


def _devoice(word: str) -> str | None:
    letters = _key(word)
    if len(letters) < _MIN_DEVOICE_LETTERS or not all("а" <= ch <= "я" for ch in letters):
        return None
    last = _DEVOICE.get(letters[-1])
    return None if last is None else letters[:-1] + last


def homophones(word: str, language: str) -> tuple[str, ...]:
    """The words `word` may be heard as (lower case), or ``()`` when none.

    From the curated list first; in Russian, a word not in the list that ends in a voiced consonant
    has its devoiced spelling as its only homophone.
    """
    listed = homophone_table(language).get(_key(word))
    if listed is not None:
        return listed
    if language == "ru":
        devoiced = _devoice(word)
        if devoiced is not None:
            return (devoiced,)
    return ()


def match_case(replacement: str, original: str) -> str:
    """`replacement` with its first letter upper-cased when `original`'s first letter is."""
    if original[:1].isupper() and replacement:
        return replacement[0].upper() + replacement[1:]
    return replacement
