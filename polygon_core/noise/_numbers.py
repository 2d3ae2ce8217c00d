"""Numbers as a recogniser mishears them: read digit by digit.

Two kinds of number are recognised in a caller's words:

* digit strings: ``4821``, ``49.00``, ``1,000``, and ordinal digit strings ``21st``, ``21-го``
  (the whole word, apart from surrounding punctuation). Every digit is read as its number word. In
  English ``.`` is read ``point`` and ``,`` (a thousands separator) is silent: ``49.00`` →
  ``four nine point zero zero``, ``1,200`` → ``one two zero zero``. In Russian ``,`` (the decimal
  comma) is read ``запятая`` and ``.`` is read ``точка``: ``49,00`` → ``четыре девять запятая ноль
  ноль``. An ordinal's suffix is not read: ``21st`` → ``two one``.
* number words, cardinal or ordinal, in any case, gender and number, up to the billions:
  ``fifty``, ``forty-nine``, ``two thousand and five``, ``twelve hundred``, ``twenty-first``;
  ``пятидесяти``, ``сорока девяти``, ``тысяча двести``, ``двадцать первого``, ``двух тысяч пятого``.
  The value is read digit by digit in the nominative (how a recogniser's digits sound):
  ``fifty`` → ``five zero``, ``сорока девяти`` → ``четыре девять``, ``двадцать первого`` →
  ``два один``.

The word forms come from ``num2words`` (its Russian cases, genders and ordinals), once per language;
a small grammar (`parse_number_words`) then reads a run of words as one number: hundreds, tens and
units in their order, scale words (thousand, million) in decreasing order, and in English ``and``
after a hundred or a scale and ``a`` before one (``a hundred``). Nothing is hand-written but the
separators' names, the English ``and``/``a`` and the Russian «полтора» (one and a half, before a
scale word: «полторы тысячи» → ``один пять ноль ноль``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import cache
from typing import Literal

from num2words import num2words

_LANGUAGES = ("en", "ru")

# How a separator inside a digit string is read, per language ("" = silent).
_SEPARATORS: dict[str, dict[str, str]] = {
    "en": {".": "point", ",": ""},
    "ru": {",": "запятая", ".": "точка"},
}

_DIGIT_STRING = re.compile(r"\d+(?:[.,]\d+)*")
# An ordinal written in digits: "21st", "3rd"; "21-го", "5-й", "1-е" (the suffix is not read).
_ORDINAL_DIGITS: dict[str, re.Pattern[str]] = {
    "en": re.compile(r"(\d+)(st|nd|rd|th)"),
    "ru": re.compile(r"(\d+)-(?:[а-яё]{1,3})", re.IGNORECASE),
}

_RU_CASES = ("nominative", "genitive", "dative", "accusative", "instrumental", "prepositional")
_RU_GENDERS = ("m", "f", "n")
# One and a half, before a scale word («полторы тысячи» = 1500); num2words has no word for it.
_RU_HALF = frozenset({"полтора", "полторы", "полутора"})
# The English words a number may hold that are not numbers: "a hundred", "two thousand and five".
_EN_JOINING = frozenset({"and", "a"})

Kind = Literal["unit", "teen", "ten", "hundreds", "hundred", "scale"]


@dataclass(frozen=True)
class NumberWord:
    """One word form of a number: its value, its part in a number, and whether it is an ordinal.

    Kinds: ``unit`` 0–9, ``teen`` 10–19, ``ten`` 20–90, ``hundreds`` 100–900 in one word (Russian
    ``двести``), ``hundred`` (English ``hundred``, multiplies what precedes it) and ``scale``
    (thousand, million, billion; Russian ``двухтысячный`` is a scale of 2000).
    """

    value: int
    kind: Kind
    ordinal: bool = False


@dataclass(frozen=True)
class ParsedNumber:
    """A run of words read as one number."""

    value: int
    ordinal: bool
    words: int


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


def _kind_of(value: int) -> Kind:
    if value < 10:
        return "unit"
    if value < 20:
        return "teen"
    if value < 100:
        return "ten"
    return "hundreds"


_COMPONENTS = (*range(20), *range(20, 100, 10), *range(100, 1000, 100))
_SCALES = (1000, 1_000_000, 1_000_000_000)


def _ru_spellings(value: int, **options: object) -> list[str]:
    out = []
    for case in _RU_CASES:
        for gender in _RU_GENDERS:
            out.append(num2words(value, lang="ru", case=case, gender=gender, **options))
            if options.get("to") == "ordinal":
                out.append(num2words(value, lang="ru", case=case, plural=True, **options))
    return out


def _add(table: dict[str, NumberWord], word: str, entry: NumberWord) -> None:
    # A cardinal reading wins over an ordinal one, and the first meaning found over later ones.
    table.setdefault(normalise_number_words(word), entry)


def _ru_lexicon() -> dict[str, NumberWord]:
    table: dict[str, NumberWord] = {}
    for value in _COMPONENTS:
        for spelling in _ru_spellings(value):
            _add(table, spelling.split()[-1], NumberWord(value, _kind_of(value)))
    for scale in _SCALES:
        for k in (1, 2, 5):
            for spelling in _ru_spellings(k * scale):
                _add(table, spelling.split()[-1], NumberWord(scale, "scale"))
    for value in _COMPONENTS:
        for spelling in _ru_spellings(value, to="ordinal"):
            _add(table, spelling.split()[-1], NumberWord(value, _kind_of(value), True))
    # Ordinals of round thousands are one word: тысячный, двухтысячный, пятимиллионный.
    for scale in _SCALES:
        for k in (*range(1, 20), *range(20, 100, 10), *range(100, 1000, 100)):
            for spelling in _ru_spellings(k * scale, to="ordinal"):
                if " " not in spelling:
                    _add(table, spelling, NumberWord(k * scale, "scale", True))
    return table


def _en_lexicon() -> dict[str, NumberWord]:
    table: dict[str, NumberWord] = {}
    for value in (*range(20), *range(20, 100, 10)):
        _add(table, num2words(value, lang="en"), NumberWord(value, _kind_of(value)))
    _add(table, "hundred", NumberWord(100, "hundred"))
    for scale in _SCALES:
        _add(table, num2words(scale, lang="en").split()[-1], NumberWord(scale, "scale"))
    for value in (*range(1, 20), *range(20, 100, 10)):
        _add(table, num2words(value, lang="en", to="ordinal"), NumberWord(value, _kind_of(value), True))
    _add(table, num2words(100, lang="en", to="ordinal").split()[-1], NumberWord(100, "hundred", True))
    for scale in _SCALES:
        word = num2words(scale, lang="en", to="ordinal").split()[-1]
        _add(table, word, NumberWord(scale, "scale", True))
    return table


@cache
def number_lexicon(language: str) -> dict[str, NumberWord]:
    """Every word form of a number in `language` (normalised, see `normalise_number_words`)."""
    _check_language(language)
    return _ru_lexicon() if language == "ru" else _en_lexicon()


@dataclass
class _Reader:
    """The state of reading one run of number words (see `parse_number_words`)."""

    language: str
    total: int = 0
    group: int = 0
    slots: frozenset[str] = frozenset()
    last_scale: float = math.inf
    after_and: bool = False
    half: bool = False  # «полторы» before a scale word: one and a half of it

    def take(self, entry: NumberWord, *, first: bool, alone: bool) -> bool:
        """Add one word; False when it cannot continue the number read so far."""
        kind, value = entry.kind, entry.value
        if self.after_and and kind not in ("unit", "teen", "ten"):
            return False
        self.after_and = False
        if kind == "unit":
            if (value == 0 and not alone) or self.slots & {"unit", "teen"}:
                return False
            self.group += value
        elif kind in ("teen", "ten"):
            if self.slots & {"unit", "teen", "ten"}:
                return False
            self.group += value
        elif kind == "hundreds":
            if self.slots:
                return False
            self.group += value
        elif kind == "hundred":
            if not 1 <= self.group <= 99 or "hundreds" in self.slots:
                return False
            self.group *= 100
            self.slots = frozenset({"hundreds"})
            return True
        else:
            return self._scale(value, first=first)
        self.slots = self.slots | {kind}
        return True

    def _scale(self, value: int, *, first: bool) -> bool:
        power = 1000 ** int(math.log(value, 1000) + 1e-9)
        if value != power:  # двухтысячный: a multiplier inside the word
            if self.group or self.slots:
                return False
        elif self.group == 0:
            # "thousand" alone is a number in Russian ("тысяча рублей"), not in English.
            if not (first and self.language == "ru"):
                return False
            value = power
        else:
            value = power * 3 // 2 if self.half else self.group * power
        if power >= self.last_scale:
            return False
        self.total += value
        self.group, self.slots, self.last_scale = 0, frozenset(), power
        return True


def parse_number_words(words: list[str], language: str) -> ParsedNumber | None:
    """The number `words` spell together, or None when they are not exactly one number.

    An ordinal may only be the last word (``twenty first``, ``двух тысяч пятого``).
    """
    _check_language(language)
    lexicon = number_lexicon(language)
    keys = [normalise_number_words(w) for w in words]
    if not keys or any(not k for k in keys):
        return None
    reader = _Reader(language)
    ordinal = False
    for i, key in enumerate(keys):
        if ordinal:
            return None
        if language == "en" and key == "and" and 0 < i < len(keys) - 1:
            if reader.slots & {"unit", "teen", "ten"} or not (
                    "hundreds" in reader.slots or reader.last_scale < math.inf):
                return None
            reader.after_and = True
            continue
        if language == "ru" and key in _RU_HALF and i == 0 and len(keys) > 1:
            following = lexicon.get(keys[1])
            if following is None or following.kind != "scale" or following.ordinal:
                return None
            reader.group, reader.slots, reader.half = 1, frozenset({"unit"}), True
            continue
        if language == "en" and key == "a" and i == 0 and len(keys) > 1:
            following = lexicon.get(keys[1])
            if following is None or following.kind not in ("hundred", "scale"):
                return None
            reader.group, reader.slots = 1, frozenset({"unit"})
            continue
        entry = lexicon.get(key)
        if entry is None or not reader.take(entry, first=i == 0, alone=len(keys) == 1):
            return None
        ordinal = entry.ordinal
    if reader.after_and:
        return None
    return ParsedNumber(reader.total + reader.group, ordinal, len(keys))


def may_be_number_word(word: str, language: str) -> bool:
    """False when no run of words containing `word` can be read as a number by
    `parse_number_words`: it is neither a number's word form nor a joining word (English ``and``
    and ``a``, Russian «полтора»). Lets a caller skip runs without parsing them."""
    key = normalise_number_words(word)
    if key in number_lexicon(language):
        return True
    return key in _EN_JOINING if language == "en" else key in _RU_HALF


def split_number_token(core: str) -> list[str]:
    """The words of one token for number reading: ``twenty-first`` → ``["twenty", "first"]``."""
    return [w for w in core.split("-") if w]


def is_digit_string(word: str, language: str | None = None) -> bool:
    """True when `word` is digits, optionally grouped by ``.`` or ``,`` (``4821``, ``49.00``), or,
    with a `language`, an ordinal in digits (``21st``, ``21-го``)."""
    if _DIGIT_STRING.fullmatch(word) is not None:
        return True
    return language is not None and _ordinal_digits(word, language) is not None


def _ordinal_digits(word: str, language: str) -> str | None:
    """The digits of an ordinal written in digits, or None. English suffixes must fit the number
    (``21st``, ``12th``), lower case, so a postcode's ``1TH`` or a code's ``4nd`` stays a word."""
    match = _ORDINAL_DIGITS[language].fullmatch(word)
    if match is None:
        return None
    if language == "en":
        n = int(match.group(1))
        suffix = "th" if n % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
        if match.group(2) != suffix:
            return None
    return match.group(1)


def read_digit_string(word: str, language: str) -> str:
    """Read a digit string digit by digit: ``4821`` → ``four eight two one`` (see module doc)."""
    _check_language(language)
    word = _ordinal_digits(word, language) or word
    if not is_digit_string(word):
        raise ValueError(f"not a digit string: {word!r}")
    names = digit_words(language)
    separators = _SEPARATORS[language]
    spoken = [names[int(ch)] if ch.isdigit() else separators[ch] for ch in word]
    return " ".join(s for s in spoken if s)


def read_value(value: int, language: str) -> str:
    """A whole number's digits as words: ``1200`` → ``one two zero zero``."""
    names = digit_words(language)
    return " ".join(names[int(ch)] for ch in str(value))


def read_digit_by_digit(words: str, language: str) -> str | None:
    """How a number sounds read digit by digit, or None when `words` is not one number.

    Accepts a digit string (``"4821"``, ``"21st"``) or number words in any form (``"fifty"``,
    ``"two thousand and five"``, ``"сорока девяти"``): ``"fifty"`` → ``"five zero"``,
    ``"двадцать первого"`` → ``"два один"``.
    """
    _check_language(language)
    stripped = words.strip()
    if is_digit_string(stripped, language):
        return read_digit_string(stripped, language)
    parsed = parse_number_words([w for t in stripped.split() for w in split_number_token(t)], language)
    return None if parsed is None else read_value(parsed.value, language)
