"""Streaming readers: JSON Lines and (top-level array) JSON, one value at a time, with line numbers.

Memory stays bounded by the largest single value, never by the file: a JSON array is decoded
element by element from a sliding buffer.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any, TextIO

__all__ = ["JsonValue", "iter_json_array", "iter_json_values", "iter_jsonl"]

_CHUNK = 1 << 16
_DECODER = json.JSONDecoder()
_WS = " \t\r\n"


class JsonValue:
    """A decoded value and the line it starts on; `error` is set instead when it could not be read."""

    __slots__ = ("error", "line", "value")

    def __init__(self, line: int, value: Any = None, error: str | None = None) -> None:
        self.line = line
        self.value = value
        self.error = error


def iter_jsonl(lines: Iterable[str]) -> Iterator[JsonValue]:
    """One value per non-blank line; a line that is not valid JSON yields an error for that line."""
    for number, raw in enumerate(lines, start=1):
        text = raw.strip()
        if not text:
            continue
        try:
            yield JsonValue(number, json.loads(text))
        except json.JSONDecodeError as exc:
            yield JsonValue(number, error=f"not valid JSON ({exc.msg}: column {exc.colno}); "
                                          "truncated line?")


def iter_json_array(stream: TextIO) -> Iterator[JsonValue]:
    """The elements of a JSON document that is one array (or one value), decoded one by one.

    Stops with an error (and its line) at the first element that cannot be decoded: after a
    syntax error inside an array there is no reliable place to resume.
    """
    buf = ""
    line = 1  # line of buf[0]
    eof = False

    def fill() -> bool:
        nonlocal buf, eof
        if eof:
            return False
        chunk = stream.read(_CHUNK)
        if not chunk:
            eof = True
            return False
        buf += chunk
        return True

    def skip(chars: str) -> None:
        nonlocal buf, line
        while True:
            i = 0
            while i < len(buf) and buf[i] in chars:
                i += 1
            line += buf.count("\n", 0, i)
            buf = buf[i:]
            if buf or not fill():
                return

    skip(_WS)
    if not buf:
        return
    if buf[0] != "[":
        # A single value (one conversation object): decode the whole document.
        while fill():
            pass
        try:
            value, end = _DECODER.raw_decode(buf)
        except json.JSONDecodeError as exc:
            yield JsonValue(exc.lineno + line - 1, error=f"not valid JSON ({exc.msg})")
            return
        yield JsonValue(line, value)
        return
    buf = buf[1:]
    first = True
    while True:
        skip(_WS)
        if not buf:
            yield JsonValue(line, error="unexpected end of file inside the top-level array (truncated?)")
            return
        if buf[0] == "]":
            return
        if not first:
            if buf[0] != ",":
                yield JsonValue(line, error=f"expected ',' or ']' but found {buf[0]!r}")
                return
            buf = buf[1:]
            skip(_WS)
        first = False
        while True:
            try:
                value, end = _DECODER.raw_decode(buf)
                break
            except json.JSONDecodeError as exc:
                # Not decodable yet: either the value continues past the buffer, or it is broken.
                if fill():
                    continue
                yield JsonValue(line + exc.lineno - 1, error=f"not valid JSON ({exc.msg}); truncated?")
                return
        yield JsonValue(line, value)
        line += buf.count("\n", 0, end)
        buf = buf[end:]


def iter_json_values(stream: TextIO, *, lines: bool) -> Iterator[JsonValue]:
    """JSON Lines when `lines`, else a JSON array (or single value)."""
    return iter_jsonl(stream) if lines else iter_json_array(stream)
