"""Numbers as a recogniser mishears them: read digit by digit.

Two kinds of number are recognised in a caller's words:

* digit strings: ``4821``, ``49.00``, ``1,000`` (the whole word, apart from surrounding punctuation,
  is digits and separators). Every digit is read as its number word. In English ``.`` is read
  ``point`` and ``,`` (a thousands separator) is silent: ``49.00`` → ``four nine point zero zero``,
  ``1,000`` → ``one zero zero zero``. In Russian ``,`` (the decimal comma) is read ``запятая`` and
  ``.`` is read ``точка``: ``49,00`` → ``четыре девять запятая ноль ноль``.
* number words for 0..999 as ``num2words`` spells them, in one or several words: ``fifty``,
  ``forty-nine``, ``forty nine``, ``one hundred and five`` / ``one hundred five``; ``пятьдесят``,
  ``сорок девять``, ``сто один`` (Russian: nominative case only, plus the feminine/neuter forms
  ``одна``/``одно``/``две`` as the last word). The value is read digit by digit:
  ``fifty`` → ``five zero``, ``сорок девять`` → ``четыре девять``.

The word tables are generated from ``num2words`` once per language and cached; nothing is
hand-written but the separators' names.
"""

from __future__ import annotations

import re
from functools import cache

from num2words import num2words

_LANGUAGES = ("en", "ru")

# How a separator inside a digit string is read, per language ("" = silent).
_SEPARATORS: dict[str, dict[str, str]] = {
    "en": {".": "point", ",": ""},
    "ru": {",": "запятая", ".": "точка"},
}

_DIGIT_STRING = re.compile(r"\d+(?:[.,]\d+)*")

# Russian gendered forms of the last word of a number ("двадцать две", "одна").
_RU_GENDER_VARIANTS = {"один": ("одна", "одно"), "два": ("две",)}


def _check_language(language: str) -> None:
    if language not in _LANGUAGES:
        raise ValueError(f"unsupported language {language!r}; expected one of {_LANGUAGES}")


def normalise_number_words(words: str) -> str:
    """Lower-case, ``ё`` → ``е``, hyphens as spaces, single spaces: the key for the number tables."""
    return " ".join(words.casefold().replace("ё", "е").replace("-", " ").split())


@cache
def digit_words(language: str) -> tuple[str, ...]:
    """The words for the digits 0..9 in `language` (from ``num2words``)."""
    _check_language(language)
    return tuple(num2words(d, lang=language) for d in range(10))


@cache
def number_word_table(language: str) -> dict[str, int]:
    """Every spelling of 0..999 in `language` (normalised, see `normalise_number_words`) → value."""
    _check_language(language)
    table: dict[str, int] = {}
    for value in range(1000):
        base = normalise_number_words(num2words(value, lang=language))
        spellings = {base}
        if language == "en":
            spellings.add(base.replace(" and ", " "))
        else:
            head, _, last = base.rpartition(" ")
            for variant in _RU_GENDER_VARIANTS.get(last, ()):
                spellings.add(f"{head} {variant}".strip())
        for spelling in spellings:
            table.setdefault(spelling, value)
    return table


@cache
def max_number_words(language: str) -> int:
    """The largest number of words any spelling in `number_word_table` has."""
    return max(len(key.split()) for key in number_word_table(language))


def number_words_value(words: str, language: str) -> int | None:
    """The value of `words` when they spell a whole number 0..999 in `language`, else None."""
    return number_word_table(language).get(normalise_number_words(words))


def is_digit_string(word: str) -> bool:
    """True when `word` is digits, optionally grouped by ``.`` or ``,`` (``4821``, ``49.00``)."""
    return _DIGIT_STRING.fullmatch(word) is not None


def read_digit_string(word: str, language: str) -> str:
    """Read a digit string digit by digit: ``4821`` → ``four eight two one`` (see module doc)."""
    _check_language(language)
    if not is_digit_string(word):
        raise ValueError(f"not a digit string: {word!r}")
    names = digit_words(language)
    separators = _SEPARATORS[language]
    spoken = [names[int(ch)] if ch.isdigit() else separators[ch] for ch in word]
    return " ".join(s for s in spoken if s)


def read_digit_by_digit(words: str, language: str) -> str | None:
    """How a number sounds read digit by digit, or None when `words` is not a number.

    Accepts a digit string (``"4821"``) or number words (``"fifty"``, ``"forty-nine"``,
    ``"пятьдесят"``): ``"fifty"`` → ``"five zero"``, ``"4821"`` → ``"four eight two one"``.
    """
    _check_language(language)
    stripped = words.strip()
    if is_digit_string(stripped):
        return read_digit_string(stripped, language)
    value = number_words_value(stripped, language)
    if value is None:
        return None
    names = digit_words(language)
    return " ".join(names[int(ch)] for ch in str(value))
