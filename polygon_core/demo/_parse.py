"""What the demo agent understands of a caller's words: digits read aloud, amounts, postcodes."""

from __future__ import annotations

import re
from functools import lru_cache

from num2words import num2words

_POSTCODE = re.compile(r"\b([A-Z]{1,2}[0-9][A-Z0-9]?)\s*([0-9][A-Z]{2})\b", re.IGNORECASE)
_DIGITS = re.compile(r"\d+(?:\.\d+)?")
_YES = ("yes", "yeah", "yep", "please do", "go ahead", "sure", "okay", "ok", "fine", "correct", "да")
_NO = ("no", "nope", "don't", "do not", "нет")


@lru_cache(maxsize=2)
def _number_words(lang: str) -> dict[str, int]:
    # Built from num2words so "forty-nine", "forty nine" and "oh" all read as numbers.
    table: dict[str, int] = {}
    for n in range(100):
        word = num2words(n, lang=lang)
        table[word] = n
        table[word.replace("-", " ")] = n
    if lang == "en":
        table["oh"] = 0
    return table


def _tokens(text: str) -> list[str]:
    return re.findall(r"[\w']+", text.lower())


def spoken_digits(text: str, lang: str = "en") -> str:
    """Turn runs of number words into digits: "four eight two one" → "4821"."""
    words = _number_words(lang)
    out: list[str] = []
    run: list[str] = []
    tokens = [t.strip(".,!?") for t in re.split(r"\s+", text.lower().replace("-", " ")) if t]
    i = 0
    while i < len(tokens):
        two = " ".join(tokens[i : i + 2])
        if two in words and i + 1 < len(tokens) and words[two] >= 20:
            run.append(str(words[two]))
            i += 2
            continue
        if tokens[i] in words:
            run.append(str(words[tokens[i]]))
        else:
            if run:
                out.append("".join(run))
                run = []
            out.append(tokens[i])
        i += 1
    if run:
        out.append("".join(run))
    return " ".join(out)


def find_account_id(text: str, lang: str = "en") -> str | None:
    """A 4–8 digit account number, written or read aloud."""
    for source in (text, spoken_digits(text, lang)):
        for match in re.finditer(r"(?<![\d.])\d{4,8}(?![\d.])", source):
            return match.group(0)
    return None


def find_postcode(text: str) -> str | None:
    """A UK-style postcode, normalised to upper case with one space."""
    match = _POSTCODE.search(text)
    if not match:
        return None
    return f"{match.group(1).upper()} {match.group(2).upper()}"


_MONEY = ("pound", "£", "$", "dollar", "euro", "€", "quid", "руб")


def find_amount(text: str, lang: str = "en") -> float | None:
    """A money amount ("49.00", "49 pounds", "forty nine pounds"); bare numbers are not amounts."""
    low = text.lower()
    if not any(m in low for m in _MONEY) and not re.search(r"\d+\.\d\d\b", low):
        return None
    for source in (text, spoken_digits(text, lang)):
        for match in _DIGITS.finditer(source):
            value = float(match.group(0))
            if 0 < value < 10000 and len(match.group(0).split(".")[0]) <= 4:
                return value
    return None


def is_yes(text: str) -> bool:
    """The caller agreed."""
    words = _tokens(text)
    joined = " ".join(words)
    return any(w in words for w in _YES if " " not in w) or any(
        p in joined for p in _YES if " " in p
    )


def is_no(text: str) -> bool:
    """The caller declined."""
    words = _tokens(text)
    joined = " ".join(words)
    return ("no" in words or "nope" in words or "нет" in words) or any(
        p in joined for p in ("don't", "do not", "that's all", "nothing else")
    )


def has_any(text: str, cues: tuple[str, ...]) -> bool:
    """Any of the cue phrases occurs in the text (case-insensitive)."""
    low = text.lower()
    return any(c in low for c in cues)
