"""Reading an import file as text without letting one bad line cost the whole file.

The pipeline opens files as UTF-8 text; a strict decoder raises at the first bad byte and the
import stops with no file and no line. When the text stream wraps a binary one (a file or an S3
body), the parsers read the bytes themselves through these helpers instead:

* `numbered_lines` gives each line decoded on its own, with the problem of a line that is not
  UTF-8 (`not UTF-8 at byte N (0xNN)`, N counted from the start of the file) or that is longer
  than `MAX_LINE_BYTES` (skipped without being held in memory);
* `text_chunks` decodes a whole document chunk by chunk, keeping undecodable bytes as lone
  surrogates (`surrogateescape`) so the JSON array reader can reject just the element holding one.

A plain text stream (a `StringIO` in tests) is read as it is.
"""

from __future__ import annotations

import codecs
import io
import re
from collections.abc import Callable, Iterator
from typing import BinaryIO, NamedTuple, TextIO

__all__ = [
    "MAX_LINE_BYTES",
    "MAX_TURNS",
    "Line",
    "binary_of",
    "escaped_byte",
    "numbered_lines",
    "text_chunks",
]

MAX_LINE_BYTES = 16 * 1024 * 1024
"""Longest line read (16 MiB): one JSON Lines conversation or one CSV row."""

MAX_TURNS = 10_000
"""Most turns one imported conversation may have (CSV: rows); a longer one is rejected at its first
line. A real call has tens to hundreds; without a cap, one 500,000-row CSV conversation held 1.37 GB."""

_BOM = b"\xef\xbb\xbf"
_UTF8_NAMES = {"utf-8", "utf8", "utf-8-sig", "utf_8", "utf_8_sig"}
_ESCAPED = re.compile("[\udc80-\udcff]")


class Line(NamedTuple):
    """One line: its 1-based number, its text and, for a line that cannot be read, why."""

    number: int
    text: str
    error: str | None = None


def binary_of(stream: TextIO) -> BinaryIO | None:
    """The binary stream under a UTF-8 text stream, or None (then the text is read as it is)."""
    if not isinstance(stream, io.TextIOWrapper):
        return None
    if (stream.encoding or "").lower() not in _UTF8_NAMES:
        return None
    return stream.buffer


def numbered_lines(stream: TextIO) -> Iterator[Line]:
    """Every line of `stream`, decoded one by one (see the module docstring)."""
    binary = binary_of(stream)
    if binary is None:
        for number, text in enumerate(stream, start=1):
            error = _too_long() if len(text) > MAX_LINE_BYTES else None
            yield Line(number, "" if error else text, error)
        return
    yield from _binary_lines(binary.readline)


def _binary_lines(readline: Callable[[int], bytes]) -> Iterator[Line]:
    offset = 0
    number = 0
    while True:
        raw = readline(MAX_LINE_BYTES + 1)
        if not raw:
            return
        number += 1
        if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
            offset += len(raw) + _skip_rest(readline)
            yield Line(number, "", _too_long())
            continue
        start = offset
        offset += len(raw)
        if number == 1 and raw.startswith(_BOM):
            raw, start = raw[len(_BOM):], start + len(_BOM)
        try:
            yield Line(number, raw.decode("utf-8"))
        except UnicodeDecodeError as exc:
            # Replacement characters keep the rest of the line readable (a CSV row's id), but the
            # line itself is rejected: nothing is stored with guessed characters.
            where = start + exc.start
            yield Line(number, raw.decode("utf-8", "replace"),
                       f"not UTF-8 at byte {where} (0x{raw[exc.start]:02x})")


def _skip_rest(readline: Callable[[int], bytes]) -> int:
    skipped = 0
    while True:
        more = readline(1 << 20)
        skipped += len(more)
        if not more or more.endswith(b"\n"):
            return skipped


def _too_long() -> str:
    return f"line longer than {MAX_LINE_BYTES // (1024 * 1024)} MiB (the limit); skipped"


def text_chunks(stream: TextIO, size: int) -> Callable[[], str]:
    """A `read()`-like function giving `size`-character chunks; undecodable bytes stay escaped."""
    binary = binary_of(stream)
    if binary is None:
        return lambda: stream.read(size)
    decoder = codecs.getincrementaldecoder("utf-8")(errors="surrogateescape")
    first = True

    def read() -> str:
        nonlocal first
        while True:
            raw = binary.read(size)
            if first:
                raw, first = raw.removeprefix(_BOM), False
            text = decoder.decode(raw, final=not raw)
            if text or not raw:
                return text

    return read


def escaped_byte(text: str) -> str | None:
    """`byte 0xNN` for the first undecodable byte kept in `text`, or None when it has none."""
    match = _ESCAPED.search(text)
    return f"byte 0x{ord(match.group()) - 0xDC00:02x}" if match else None
