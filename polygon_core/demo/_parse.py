"""What the demo agent understands of a caller's words: account numbers, amounts, postcodes, yes and no.

On a call the agent hears the caller through a speech recogniser, which writes correct speech its own
way: "4821" comes back as "4,821", "forty-nine pounds" as "£49", "LS6 2QT" as "L.S. 6 2QT",
"five thousand five hundred and thirty" as "5500, 30", "don't" with a curly apostrophe. The readers
here accept such forms of what was said, and nothing looser: a misheard digit or word ("6,400 to
the post" for "6402, the postcode") stays what was heard, so the agent asks again or its lookup
fails. It never guesses what the caller meant.

Numbers are read from runs of number tokens (digit strings, number words, "double", "oh" after a
digit, "hundred", "thousand", "and" inside a number, "point"). A run is one or more chunks, written
one after another: a number joins the chunk before it when it fits in the places that chunk left
open ("6400" + "2" = 6402, "twenty" + "one" = 21, "two thousand" + "ninety-three" = 2093), and
otherwise follows it as digits and pairs are read aloud ("four eight two one", "forty-eight
twenty-one", "48 21", "482 1" = 4821) when the two make at most four digits and are written alike
(both in digits or both in words). Anything else ends the run: a word, a sentence's end, a number
too long to follow ("4821, 49" is two numbers), a word next to digits ("one 15": a misheard "was").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple

from num2words import num2words

_POSTCODE = re.compile(r"\b([A-Z]{1,2}[0-9][A-Z0-9]?)\s*([0-9][A-Z]{2})\b", re.IGNORECASE)
_POSTCODE_WHOLE = re.compile(r"[A-Z]{1,2}[0-9][A-Z0-9]?[0-9][A-Z]{2}")
_YES = ("yes", "yeah", "yep", "yup", "please do", "go ahead", "sure", "okay", "ok", "fine", "correct", "да")

# Thousands separators in a well-formed number ("4,821", "1,049.50"); "2,93" or "7,1664" is not one.
_GROUPED = re.compile(r"(?<![\d,.])\d{1,3}(?:,\d{3})+(?![\d]|,\d)")
# Digits spelled one by one with commas and no spaces: "5,5,3,0".
_SPELLED = re.compile(r"(?<![\d,.])\d(?:,\d){3,}(?![\d]|,\d)")
# One token: digits with commas left in them (not a well-formed number after `plain`: "7,1664", so
# it is read as nothing rather than in part), a word or digits (a decimal kept whole: "49.00"), or
# one punctuation mark.
_TOKEN = re.compile(r"\d+(?:,\d+)+|[^\W_]+(?:\.\d+)?(?:'[^\W_]+)*|[^\w\s]")
_DIGIT_STRING = re.compile(r"\d+(?:\.\d+)?")
_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "\u201c": '"', "\u201d": '"'})
# Punctuation a spoken number may carry inside it ("forty-nine", "4, 8, 2, 1", "6,400, 2").
_INSIDE = frozenset({",", "-"})
_REPEATS = {"double": 2, "triple": 3}
_SCALES = {"hundred": 100, "thousand": 1000}
_SYMBOLS = frozenset({"£", "$", "€"})
_CURRENCY_WORDS = frozenset({"pound", "pounds", "dollar", "dollars", "euro", "euros", "quid", "bucks"})
_MINOR_WORDS = frozenset({"p", "pence", "penny", "cent", "cents"})


@lru_cache(maxsize=2)
def _number_words(lang: str) -> dict[str, int]:
    # From num2words, so every language it knows reads its own words; compounds are read in parts.
    table: dict[str, int] = {}
    for n in range(100):
        word = num2words(n, lang=lang)
        if " " not in word and "-" not in word:
            table[word] = n
    return table


def plain(text: str) -> str:
    """The caller's words with the recogniser's writing habits undone: straight apostrophes and
    quotes, no thousands separators in a well-formed number ("4,821" -> "4821") and digits spelled
    with commas written as a spelled number is ("5,5,3,0" -> "5 5 3 0")."""
    text = text.translate(_QUOTES)
    text = _SPELLED.sub(lambda m: m.group(0).replace(",", " "), text)
    return _GROUPED.sub(lambda m: m.group(0).replace(",", ""), text)


def _tokens_of(text: str) -> list[str]:
    return _TOKEN.findall(plain(text))


def _tokens(text: str) -> list[str]:
    return re.findall(r"[\w']+", plain(text).lower().replace("o.k.", "ok"))


def _open_places(n: int) -> int:
    """The places a number leaves open below it: 6400 -> 100, 20 -> 10, 21 -> 1."""
    places = 1
    while n and n % (places * 10) == 0:
        places *= 10
    return places


@dataclass
class _Chunk:
    """One number inside a run: `total` before its last scale word, `group` since then."""

    total: int = 0
    group: int = 0
    open: int = 1  # a number below this joins the chunk ("6400" leaves 100)
    literal: str | None = None  # a single digit string as written, leading zeros kept
    hundreds: bool = False  # "hundred" was said since the last scale word
    kind: str | None = None  # "digits" or "words": how the recogniser wrote it

    @property
    def value(self) -> int:
        return self.total + self.group

    def text(self) -> str:
        return self.literal if self.literal is not None else str(self.value)

    def digits(self) -> int:
        return len(self.text())


@dataclass
class NumberRun:
    """A number read from the caller's words: its digits (and decimals) and the tokens it spans."""

    start: int
    end: int  # one past its last token
    chunks: list[_Chunk] = field(default_factory=list)
    decimal: str | None = None  # a decimal as written ("49.00") or read ("four nine point five")

    @property
    def digits(self) -> str:
        """The number as digits: "4821", "49.50"."""
        if self.decimal is not None:
            return self.decimal
        return "".join(c.text() for c in self.chunks)

    @property
    def whole(self) -> bool:
        """No decimal point."""
        return "." not in self.digits


class _Number(NamedTuple):
    """One number token: its value, its digits as written, and whether it was written in digits
    or words (None: either, as "oh")."""

    value: int
    written: str
    kind: str | None


class _Reader:
    """Reads the runs of number tokens in a list of tokens (see the module docstring)."""

    def __init__(self, tokens: list[str], lang: str) -> None:
        self.tokens = tokens
        self.low = [t.lower() for t in tokens]
        self.lang = lang
        self.words = _number_words(lang)
        self.scales = _SCALES if lang == "en" else {}
        self.runs: list[NumberRun] = []
        self.run: NumberRun | None = None

    def value_at(self, i: int) -> _Number | None:
        """The number token i is on its own, or None."""
        if i >= len(self.tokens):
            return None
        token = self.low[i]
        if re.fullmatch(r"[0-9]+", token):
            return _Number(int(token), token, "digits")
        if token in self.words:
            return _Number(self.words[token], str(self.words[token]), "words")
        if token == "oh" and self.run is not None and self.run.chunks:
            return _Number(0, "0", None)  # "two oh nine three"; a lone "Oh" is not a number
        return None

    def read(self) -> list[NumberRun]:
        i = 0
        while i < len(self.tokens):
            i = self.step(i)
        self.close(len(self.tokens))
        return self.runs

    def close(self, end: int) -> None:
        if self.run is not None and self.run.chunks:
            self.run.end = min(self.run.end, end)
            self.runs.append(self.run)
        self.run = None

    def step(self, i: int) -> int:
        """Take token i (and any it needs after it); the index of the next token to read."""
        token = self.low[i]
        if self.lang == "ru" and re.fullmatch(r"\d+,\d+", token):
            token = token.replace(",", ".")  # the Russian decimal comma: "49,00"
        if _DIGIT_STRING.fullmatch(token) and "." in token:
            self.close(i)  # a written decimal is a number of its own
            self.runs.append(NumberRun(i, i + 1, [_Chunk(literal=token)], decimal=token))
            return i + 1
        if token in _INSIDE and self.run is not None:
            return i + 1
        if (taken := self.special(i)) is not None:
            return taken
        number = self.value_at(i)
        if number is None:
            self.close(i)
            return i + 1
        self.add(i, number)
        return i + 1

    def special(self, i: int) -> int | None:
        """Number words that only count in company: a, and, double, point, hundred, thousand."""
        token, nxt = self.low[i], self.low[i + 1] if i + 1 < len(self.tokens) else ""
        chunk = self.run.chunks[-1] if self.run is not None and self.run.chunks else None
        if token == "a" and nxt in self.scales:
            self.close(i)  # "a hundred" starts a number
            self.add(i, _Number(1, "1", "words"))
            return i + 1
        if token == "and" and chunk is not None and chunk.open >= 100:  # "six hundred and two"
            following = self.value_at(i + 1)
            return i + 1 if following is not None and following.value < chunk.open else None
        if token in _REPEATS and (digit := self.value_at(i + 1)) is not None and digit.value < 10:
            for _ in range(_REPEATS[token]):
                self.add(i + 1, digit._replace(kind=None), start=i)  # "double 5", "double five" alike
            return i + 2
        if token == "point" and chunk is not None and self.run is not None:
            return self.point(i)
        if token in self.scales and chunk is not None and self.run is not None:
            if not self.scale(chunk, self.scales[token]):
                return None
            self.run.end = i + 1
            return i + 1
        return None

    def point(self, i: int) -> int | None:
        assert self.run is not None
        j, fraction = i + 1, ""
        while (digit := self.value_at(j)) is not None and (digit.value < 10 or digit.kind == "digits"):
            fraction += digit.written
            j += 1
        if not fraction:
            return None
        self.run.decimal, self.run.end = f"{self.run.digits}.{fraction}", j
        self.close(j)
        return j

    @staticmethod
    def scale(chunk: _Chunk, scale: int) -> bool:
        """"hundred" or "thousand" on the chunk so far; False when it cannot take it."""
        if scale == 100:
            if not 1 <= chunk.group <= 99 or chunk.hundreds:
                return False
            chunk.group, chunk.hundreds = chunk.group * 100, True
        else:
            if not 1 <= chunk.group <= 999 or chunk.total:
                return False
            chunk.total, chunk.group, chunk.hundreds = chunk.group * scale, 0, False
        chunk.open, chunk.literal = scale, None
        return True

    def add(self, i: int, number: _Number, start: int | None = None) -> None:
        """Number token i joins the chunk before it, follows it, or starts a run of its own (from
        token `start`, when a word before it belongs to the number: "double")."""
        value, written, kind = number
        run = self.run
        chunk = run.chunks[-1] if run is not None and run.chunks else None
        if run is not None and chunk is not None:
            if 0 < value < chunk.open:  # "6400" + "2", "twenty" + "one"
                chunk.group += value
                chunk.open, chunk.literal = _open_places(value), None
                run.end = i + 1
                return
            # Digits or pairs read aloud, written one way: "4 8 2 1", "482 1", "forty-eight
            # twenty-one"; two numbers of four digits together are two numbers ("4821 49"). A word
            # next to digits ("one 15") is how a misheard word looks, not how a number is written.
            alike = None in (kind, chunk.kind) or kind == chunk.kind
            if chunk.digits() + len(written) <= 4 and alike:
                run.chunks.append(_Chunk(group=value, open=_open_places(value), literal=written,
                                         kind=kind or chunk.kind))
                run.end = i + 1
                return
            self.close(i)
        first = _Chunk(group=value, open=_open_places(value), literal=written, kind=kind)
        self.run = NumberRun(i if start is None else start, i + 1, [first])


def read_numbers(text: str, lang: str = "en") -> list[NumberRun]:
    """Every number in the caller's words, in order (see the module docstring for how a run of
    words and digits is read)."""
    return _Reader(_tokens_of(text), lang).read()


def spoken_digits(text: str, lang: str = "en") -> str:
    """The caller's words with every number written in digits: "four eight two one" -> "4821"."""
    tokens = _tokens_of(text)
    runs = {run.start: run for run in _Reader(tokens, lang).read()}
    out: list[str] = []
    i = 0
    while i < len(tokens):
        if i in runs:
            out.append(runs[i].digits)
            i = runs[i].end
        else:
            out.append(tokens[i])
            i += 1
    return " ".join(out)


def find_account_id(text: str, lang: str = "en") -> str | None:
    """A 4–8 digit account number, written ("4821", "4,821", "48 21") or read aloud ("four eight
    two one", "forty-eight twenty-one", "four thousand eight hundred and twenty-one")."""
    for run in read_numbers(text, lang):
        if run.whole and 4 <= len(run.digits) <= 8:
            return run.digits
    return None


def _postcode_piece(token: str) -> str | None:
    """A token as part of a postcode spelled out ("L.S." -> "LS", "six" -> "6"), or None."""
    bare = token.strip(",.!?;:()\"'")
    if re.fullmatch(r"(?:[A-Za-z0-9]\.)+[A-Za-z0-9]?", bare):
        bare = bare.replace(".", "")  # spelled with dots: "L.S.", "Q.T."
    if bare.lower() in _number_words("en") and _number_words("en")[bare.lower()] < 20:
        return str(_number_words("en")[bare.lower()])
    if re.fullmatch(r"[A-Za-z0-9]{1,4}", bare) and any(ch.isdigit() for ch in bare):
        return bare.upper()
    # Letters alone count only as a recogniser writes a spelled letter: in capitals ("A", "QT"),
    # so an ordinary word ("a", "is") never joins a postcode. "I" is in no postcode.
    if re.fullmatch(r"[A-Z]{1,3}", bare) and bare != "I":
        return bare
    return None


def _spelled_postcode(text: str) -> str | None:
    pieces = [_postcode_piece(t) for t in re.split(r"[\s\-]+", plain(text)) if t]
    for start in range(len(pieces)):
        found = None
        joined = ""
        for piece in pieces[start:start + 8]:
            if piece is None:
                break
            joined += piece
            if _POSTCODE_WHOLE.fullmatch(joined):
                found = joined
        if found:
            return f"{found[:-3]} {found[-3:]}"
    return None


def find_postcode(text: str) -> str | None:
    """A UK-style postcode, normalised to upper case with one space: written ("SW1A 2AA",
    "sw1a2aa") or spelled out by the recogniser ("L.S. 6 2QT", "S W 1 A 2 A A", "M one 4 B T")."""
    match = _POSTCODE.search(plain(text))
    if match:
        return f"{match.group(1).upper()} {match.group(2).upper()}"
    return _spelled_postcode(text)


def street_before_postcode(text: str) -> str | None:
    """The street the caller gives with a postcode ("It's 12 Canal Street, M1 3HU." -> "12 Canal
    Street"): the words before the postcode, after the last "it's"/"it is"/"address is"."""
    postcode = find_postcode(text)
    if postcode is None:
        return None
    flat = plain(text)
    outward = postcode.split()[0]
    cut = re.search(r"\b" + r"[\s.\-]*".join(re.escape(ch) for ch in outward), flat, re.IGNORECASE)
    before = flat[: cut.start()] if cut else flat.split(",")[0]
    before = re.split(r"\b(?:it's|it is|address is)\b", before, flags=re.IGNORECASE)[-1]
    street = before.strip(" ,.-")
    return street or None


def _is_currency_word(token: str) -> bool:
    return token in _CURRENCY_WORDS or token.startswith("руб")


def find_amount(text: str, lang: str = "en") -> float | None:
    """A money amount: a number with a currency ("£49", "$49.00", "49 pounds", "forty-nine
    dollars", "£1,049", "49 pounds and 50 pence") or with two decimals ("49.00"); bare numbers are
    not amounts, nor is a number that merely shares a sentence with a currency."""
    tokens = _tokens_of(text)
    low = [t.lower() for t in tokens]
    runs = _Reader(tokens, lang).read()
    for n, run in enumerate(runs):
        before = low[run.start - 1] if run.start > 0 else ""
        after = low[run.end] if run.end < len(low) else ""
        if before in _SYMBOLS or _is_currency_word(after):
            pence = n + 1 < len(runs) and _is_currency_word(after)
            minor = _minor_units(runs[n + 1], low, run.end) if pence else 0.0
            value = float(run.digits) + minor
            if 0 < value < 10000:
                return value
    for run in runs:
        if re.fullmatch(r"\d+\.\d\d", run.digits) and 0 < float(run.digits) < 10000:
            return float(run.digits)
    return None


def _minor_units(run: NumberRun, low: list[str], currency_at: int) -> float:
    """Pence or cents said after the pounds: "49 pounds (and) 50 pence" -> 0.50; else 0."""
    between = low[currency_at + 1:run.start]
    after = low[run.end] if run.end < len(low) else ""
    if between in ([], ["and"]) and after in _MINOR_WORDS and run.whole and int(run.digits) < 100:
        return int(run.digits) / 100
    return 0.0


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


def _cue_text(text: str) -> str:
    # Case, curly apostrophes, hyphens and doubled spaces are the recogniser's writing, not words.
    return " ".join(plain(text).lower().replace("-", " ").split())


def has_any(text: str, cues: tuple[str, ...]) -> bool:
    """Any of the cue phrases occurs in the text (ignoring case, apostrophe style and hyphens)."""
    low = _cue_text(text)
    return any(_cue_text(c) in low for c in cues)
