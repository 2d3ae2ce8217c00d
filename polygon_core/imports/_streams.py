"""Streaming readers: JSON Lines and (top-level array) JSON, one value at a time, with line numbers.

Memory stays bounded by the largest single value, never by the file: a JSON array is decoded
element by element from a sliding buffer. A value nested deeper than `MAX_JSON_DEPTH` is rejected
(one line in JSON Lines; in an array, the element and everything after it), never a RecursionError.

Two things valid JSON can hold that Python cannot take further reject the one record that holds
them (an array element alone: the element is decoded whole, so reading goes on after it): an
integer longer than Python's digit limit for converting text (4,300 digits; `int()` raises
ValueError, which used to end the whole file), and a lone surrogate (`"\\ud800"`), which decodes to
a `str` that cannot be written as UTF-8 (storing it raised, losing its whole batch).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TextIO

from ._lines import Line, escaped_byte, numbered_lines, text_chunks

__all__ = ["MAX_JSON_DEPTH", "JsonValue", "iter_json_array", "iter_json_values", "iter_jsonl",
           "loads_checked", "nested_deeper_than"]

MAX_JSON_DEPTH = 64
"""Deepest nesting of objects and arrays in one record (a conversation needs about six)."""

_CHUNK = 1 << 16
_WS = " \t\r\n"
_SURROGATE = re.compile("[\ud800-\udfff]")


class _LongInt:
    """Stands in for an integer too long to convert, so decoding goes on to the element's end."""

    __slots__ = ("digits",)

    def __init__(self, digits: int) -> None:
        self.digits = digits


def _parse_int(text: str) -> int | _LongInt:
    limit = sys.get_int_max_str_digits()
    digits = len(text.lstrip("-"))
    return _LongInt(digits) if limit and digits > limit else int(text)


_DECODER = json.JSONDecoder(parse_int=_parse_int)


def _loads(text: str) -> Any:
    return _DECODER.decode(text)


def loads_checked(text: str) -> Any:
    """`json.loads` for text inside a record (tool arguments, results): JSONDecodeError when it is
    not JSON, ValueError naming the problem when it holds what `_checked` rejects."""
    value = _loads(text)
    problem = _problem(value, MAX_JSON_DEPTH)
    if problem is not None:
        raise ValueError(problem)
    return value


class JsonValue:
    """A decoded value and the line it starts on; `error` is set instead when it could not be read."""

    __slots__ = ("error", "line", "value")

    def __init__(self, line: int, value: Any = None, error: str | None = None) -> None:
        self.line = line
        self.value = value
        self.error = error


def iter_jsonl(lines: Iterable[str | Line]) -> Iterator[JsonValue]:
    """One value per non-blank line; a line that cannot be read yields an error for that line."""
    for number, item in enumerate(lines, start=1):
        line = item if isinstance(item, Line) else Line(number, item)
        if line.error is not None:
            yield JsonValue(line.number, error=line.error)
            continue
        text = line.text.strip()
        if not text:
            continue
        try:
            value = _loads(text)
        except json.JSONDecodeError as exc:
            yield JsonValue(line.number, error=f"not valid JSON ({exc.msg}: column {exc.colno}); "
                                               "truncated line?")
            continue
        except RecursionError:
            yield JsonValue(line.number, error=_too_deep())
            continue
        yield _checked(line.number, value)


def _too_deep() -> str:
    return f"nested more than {MAX_JSON_DEPTH} levels deep (the limit for one record)"


def nested_deeper_than(value: Any, limit: int) -> bool:
    """Whether `value` (decoded JSON) nests objects and arrays more than `limit` levels deep.
    Iterative, so checking a deep value cannot itself recurse too far."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        current, depth = stack.pop()
        if isinstance(current, dict):
            children: Iterable[Any] = current.values()
        elif isinstance(current, list):
            children = current
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


class _Node:
    """A value met while walking a record, with the way to it (rebuilt only for a message)."""

    __slots__ = ("depth", "key", "parent", "value")

    def __init__(self, value: Any, depth: int, parent: _Node | None, key: str | int | None) -> None:
        self.value, self.depth, self.parent, self.key = value, depth, parent, key

    def path(self) -> str:
        keys: list[str] = []
        node: _Node | None = self
        while node is not None and node.key is not None:
            keys.append(str(node.key))
            node = node.parent
        return ".".join(reversed(keys)) or "the record"


def _problem(value: Any, limit: int) -> str | None:
    """Why a decoded record cannot be taken (too deep, an over-long integer, a lone surrogate), or None.

    Iterative, so checking a deep value cannot itself recurse too far."""
    stack = [_Node(value, 1, None, None)]
    while stack:
        node = stack.pop()
        current = node.value
        if isinstance(current, str):
            if _SURROGATE.search(current):
                return _surrogate(current, node.path())
            continue
        if isinstance(current, _LongInt):
            return (f"{node.path()}: an integer of {current.digits:,} digits (the limit is "
                    f"{sys.get_int_max_str_digits():,})")
        if isinstance(current, dict):
            for key in current:
                if _SURROGATE.search(key):
                    return _surrogate(key, f"a key in {node.path()}")
            children: Iterable[tuple[str | int, Any]] = current.items()
        elif isinstance(current, list):
            children = enumerate(current)
        else:
            continue
        if node.depth > limit:
            return _too_deep()
        stack.extend(_Node(child, node.depth + 1, node, key) for key, child in children)
    return None


def _surrogate(text: str, where: str) -> str:
    match = _SURROGATE.search(text)
    code = ord(match.group()) if match else 0
    return f"{where}: a lone surrogate \\u{code:04x} (not a Unicode character; cannot be stored as UTF-8)"


def _checked(line: int, value: Any) -> JsonValue:
    problem = _problem(value, MAX_JSON_DEPTH)
    if problem is not None:
        return JsonValue(line, error=problem)
    return JsonValue(line, value)


def iter_json_array(stream: TextIO) -> Iterator[JsonValue]:
    """The elements of a JSON document that is one array (or one value), decoded one by one.

    Stops with an error (and its line) at the first element that cannot be decoded: after a
    syntax error inside an array there is no reliable place to resume. An element holding bytes
    that are not UTF-8 is rejected alone (its extent is known once decoded).
    """
    read: Callable[[], str] = text_chunks(stream, _CHUNK)
    buf = ""
    line = 1  # line of buf[0]
    eof = False

    def fill() -> bool:
        nonlocal buf, eof
        if eof:
            return False
        chunk = read()
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
        except RecursionError:
            yield JsonValue(line, error=_too_deep())
            return
        yield _element(line, buf[:end], value)
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
            except RecursionError:
                yield JsonValue(line, error=_too_deep() + "; nothing after it can be read")
                return
        yield _element(line, buf[:end], value)
        line += buf.count("\n", 0, end)
        buf = buf[end:]


def _element(line: int, text: str, value: Any) -> JsonValue:
    bad = escaped_byte(text)
    if bad is not None:
        return JsonValue(line, error=f"not UTF-8 ({bad})")
    return _checked(line, value)


def iter_json_values(stream: TextIO, *, lines: bool) -> Iterator[JsonValue]:
    """JSON Lines when `lines`, else a JSON array (or single value)."""
    return iter_jsonl(numbered_lines(stream)) if lines else iter_json_array(stream)
