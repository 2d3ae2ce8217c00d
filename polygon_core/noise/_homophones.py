"""Words that sound alike: curated lists per language, plus Russian final-consonant devoicing.

The lists live beside this module (``homophones_en.yaml``, ``homophones_ru.yaml``) as groups of words
that sound alike; a word may be heard as any other word of its group. A user's own groups, in the
same format (read with `parse_homophone_groups`), extend the bundled ones (`distort(...,
extra_homophones=...)`). Russian words that are not in
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


def parse_homophone_groups(text: str, source: str) -> list[list[str]]:
    """The groups of a homophone file (``groups: [[word, word, …], …]``), checked; ValueError names
    `source` and the bad group."""
    return check_homophone_groups(yaml.safe_load(text) or {}, source)


def check_homophone_groups(data: object, source: str) -> list[list[str]]:
    """The groups of a parsed homophone file, checked; ValueError names `source` and the bad group."""
    groups = data.get("groups") if isinstance(data, dict) else None
    if not isinstance(groups, list):
        raise ValueError(f"{source}: expected a mapping with a list `groups`")
    for group in groups:
        if not isinstance(group, list) or len(group) < 2 or not all(isinstance(w, str) and w for w in group):
            raise ValueError(f"{source}: bad group {group!r}")
    return groups


def _table(groups: list[list[str]], source: str) -> dict[str, tuple[str, ...]]:
    table: dict[str, tuple[str, ...]] = {}
    for group in groups:
        words = [_key(w) for w in group]
        for word in words:
            if word in table:
                raise ValueError(f"{source}: {word!r} is in two groups")
            table[word] = tuple(w for w in words if w != word)
    return table


@cache
def homophone_table(language: str, extra: tuple[tuple[str, ...], ...] = ()) -> dict[str, tuple[str, ...]]:
    """Word → the other words of its group, from the bundled list for `language`.

    `extra` groups (a user's own list, read with `parse_homophone_groups`) extend it: a word that is
    already listed gets the extra group's words as well.
    """
    if language not in _LANGUAGES:
        raise ValueError(f"unsupported language {language!r}; expected one of {_LANGUAGES}")
    source = f"homophones_{language}.yaml"
    text = resources.files(__package__).joinpath(source).read_text("utf-8")
    table = _table(parse_homophone_groups(text, source), source)
    for word, others in _table([list(g) for g in extra], "extra homophones").items():
        table[word] = tuple(dict.fromkeys((*table.get(word, ()), *others)))
    return table


def _devoice(word: str) -> str | None:
    letters = _key(word)
    if len(letters) < _MIN_DEVOICE_LETTERS or not all("а" <= ch <= "я" for ch in letters):
        return None
    last = _DEVOICE.get(letters[-1])
    return None if last is None else letters[:-1] + last


def homophones(word: str, language: str, extra: tuple[tuple[str, ...], ...] = ()) -> tuple[str, ...]:
    """The words `word` may be heard as (lower case), or ``()`` when none.

    From the curated list (and `extra` groups) first; in Russian, a word not in the list that ends
    in a voiced consonant has its devoiced spelling as its only homophone.
    """
    listed = homophone_table(language, extra).get(_key(word))
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
