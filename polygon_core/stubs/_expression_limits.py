"""Size limits of the expression evaluator (rule conditions and assertions).

simpleeval bounds `*` and `+` and nothing else that builds a value, so `'%02000000000d' % 1`,
`'x'.ljust(2000000000)`, `'-'.join([s] * 100000)`, `str([s] * 100000)`, `4000000 ** 4000000` or
`round(5, -10 ** 9)` would each allocate gigabytes (or run for minutes) before anything could
refuse them. Here every operation that can make a value larger than its inputs is checked
*before* it runs, from the sizes of its inputs, against `MAX_EXPRESSION_VALUE` (the template
sandbox's and simpleeval's own limit). A comprehension repeats an operation up to 10,000 times, so
everything one evaluation builds is also counted against `MAX_EXPRESSION_BUILT`.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from simpleeval import InvalidExpression

from ._sandbox import MAX_POWER_BITS

MAX_EXPRESSION_VALUE = 100_000
"""Most characters (or items) one operation of an expression may produce."""

MAX_EXPRESSION_BUILT = 1_000_000
"""Most characters (or items) all the operations of one evaluation may produce together."""

MAX_ROUND_DIGITS = 1_000
"""Largest `ndigits` (either sign) `round` takes: `round(5, -10**9)` computes `10 ** 10**9`."""

# `%` formatting: an optional `(key)`, flags, a width and a precision (either may be `*`), a type.
_PERCENT_FIELD = re.compile(r"%(?:\(([^)]*)\))?[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?[hlL]?([a-zA-Z%])")

Check = Callable[[Any, tuple[Any, ...], dict[str, Any]], None]


class ExpressionLimitError(InvalidExpression):
    """An expression asked for a value beyond the evaluator's limits."""


def refuse(what: str, limit: int = MAX_EXPRESSION_VALUE) -> ExpressionLimitError:
    """The error for `what` (e.g. "the padded text (2,000,000,000 characters)") over `limit`."""
    return ExpressionLimitError(f"{what} exceeds the expression limit of {limit:,}")


def _bounded(size: int, what: str, exact: bool = True) -> None:
    # An estimate (`text_size`) stops counting past the limit: its figure is left out.
    if size > MAX_EXPRESSION_VALUE:
        raise refuse(f"{what} ({size:,} characters)" if exact else what)


def built_size(value: Any) -> int:
    """What a built value counts against `MAX_EXPRESSION_BUILT`: characters or items (shallow)."""
    if isinstance(value, (str, bytes, list, tuple, dict, set, frozenset)):
        return len(value)
    return 0


def text_size(value: Any, limit: int = MAX_EXPRESSION_VALUE) -> int:
    """An upper estimate of `len(str(value))`, counted only until it passes `limit`.

    `str([s] * 100000)` repeats one string a hundred thousand times without `*` seeing it: the
    estimate walks the value (shared items once per use) and stops as soon as it is over the limit,
    so the walk itself costs at most `limit` steps.
    """
    total = 0
    pending = [value]
    while pending and total <= limit:
        item = pending.pop()
        if isinstance(item, (str, bytes)):
            total += len(item) + 3  # quotes and a prefix when shown inside a container
        elif isinstance(item, Mapping):
            total += 2 + 4 * len(item)
            if total <= limit:
                pending.extend(item.keys())
                pending.extend(item.values())
        elif isinstance(item, (list, tuple, set, frozenset)):
            total += 2 + 2 * len(item)
            if total <= limit:
                pending.extend(item)
        elif isinstance(item, bool) or item is None:
            total += 5
        elif isinstance(item, int):
            total += item.bit_length() // 3 + 2  # decimal digits are bits × 0.30103
        elif isinstance(item, float):
            total += len(f"{item:f}")  # `%f` of 1e308 spells 309 digits
        else:
            total += len(str(item))
    return total


def check_percent(template: Any, values: Any) -> None:
    """Refuse `template % values` when its fields' widths, precisions or values make it too long."""
    if not isinstance(template, (str, bytes)):
        return
    text = template.decode("latin-1") if isinstance(template, bytes) else template
    positional = values if isinstance(values, tuple) else (values,)
    size = len(text)
    index = 0
    for field in _PERCENT_FIELD.finditer(text):  # one at a time: 50,000 fields are 5 MB as a list
        key, width, precision, kind = field.groups()
        if kind == "%":
            continue
        for number in (width, precision):
            if number == "*":
                raise refuse("a `*` width or precision in % formatting (give the number)")
            if number and int(number) > MAX_EXPRESSION_VALUE:
                raise refuse(f"the format field width {int(number):,}")
        if key and isinstance(values, Mapping):
            value = values.get(key)
        else:
            value = positional[index] if index < len(positional) else None
            index += 1
        size += int(width or 0) + int(precision or 0) + text_size(value)
        _bounded(size, "the formatted text", exact=False)


def _width(args: tuple[Any, ...], kwargs: dict[str, Any], name: str, default: int = 0) -> int:
    value = args[0] if args else kwargs.get(name, default)
    return value if isinstance(value, int) else 0


def _check_pad(receiver: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    # ljust, rjust, center, zfill: the result is as long as the width asked for.
    width = _width(args, kwargs, "width")
    if width > MAX_EXPRESSION_VALUE:
        raise refuse(f"the padded text ({width:,} characters)")


def _check_expandtabs(receiver: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    # Each tab becomes at most `tabsize` spaces.
    tabsize = _width(args, kwargs, "tabsize", 8)
    tabs = receiver.count("\t" if isinstance(receiver, str) else b"\t")
    _bounded(len(receiver) + tabs * (max(tabsize, 1) - 1), "the expanded text")


def _check_join(receiver: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    items = args[0] if args else ()
    if not isinstance(items, (str, bytes, list, tuple, set, frozenset, dict)):
        return  # join reads any iterable once; the ones an expression can make are listed
    count = len(items)
    size = len(receiver) * max(count - 1, 0)
    for item in items:
        size += len(item) if isinstance(item, (str, bytes)) else 1
    _bounded(size, "the joined text")


def _check_replace(receiver: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    # `s.replace('', big)` inserts `big` between every character.
    if len(args) < 2 or not all(isinstance(a, type(receiver)) for a in args[:2]):
        return
    old, new = args[0], args[1]
    found = receiver.count(old) if old else len(receiver) + 1
    count = args[2] if len(args) > 2 else kwargs.get("count", -1)
    if isinstance(count, int) and count >= 0:
        found = min(found, count)
    _bounded(len(receiver) + found * max(len(new) - len(old), 0), "the replaced text")


def _check_translate(receiver: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    table = args[0] if args else None
    targets: Iterable[Any] = ()
    if isinstance(table, Mapping):
        targets = table.values()
    elif isinstance(table, (list, tuple)):
        targets = table
    longest = max((len(t) for t in targets if isinstance(t, str)), default=1)
    _bounded(len(receiver) * max(longest, 1), "the translated text")


def _check_to_bytes(receiver: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    length = _width(args, kwargs, "length", 1)
    if length > MAX_EXPRESSION_VALUE:
        raise refuse(f"the byte string ({length:,} bytes)")


METHOD_CHECKS: dict[str, Check] = {
    "ljust": _check_pad,
    "rjust": _check_pad,
    "center": _check_pad,
    "zfill": _check_pad,
    "expandtabs": _check_expandtabs,
    "join": _check_join,
    "replace": _check_replace,
    "translate": _check_translate,
    "to_bytes": _check_to_bytes,
}
"""Per method name, the check of a call before it runs (its receiver, arguments, keywords)."""


def check_str(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """`str(value)` of a container spells every item: `str([s] * 100000)` is 100,000 × `s`."""
    if args and not isinstance(args[0], str):
        _bounded(text_size(args[0]), "the text of this value", exact=False)


def bounded_sum(iterable: Iterable[Any], /, start: Any = 0) -> Any:
    """`sum`, except that lists or tuples are counted before they are concatenated, and joined once.

    `sum(lists, [])` would copy the growing list at every step (quadratic) and has no size limit.
    """
    parts = list(iterable)
    if isinstance(start, (list, tuple)) and all(type(part) is type(start) for part in parts):
        size = len(start) + sum(len(part) for part in parts)
        if size > MAX_EXPRESSION_VALUE:
            raise refuse(f"the summed sequence ({size:,} items)")
        return type(start)(itertools.chain(start, *parts))
    return sum(parts, start)


def check_round(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """`round(5, -10**9)` computes `10 ** 10**9` before it answers."""
    digits = args[1] if len(args) > 1 else kwargs.get("ndigits")
    if isinstance(digits, int) and abs(digits) > MAX_ROUND_DIGITS:
        raise refuse(f"round() to {digits:,} digits", MAX_ROUND_DIGITS)


FUNCTION_CHECKS: dict[str, Callable[[tuple[Any, ...], dict[str, Any]], None]] = {
    "str": check_str,
    "round": check_round,
}
"""Per built-in function name, the check of a call before it runs."""


def check_power(base: Any, exponent: Any) -> None:
    """Refuse an integer power of more than `MAX_POWER_BITS` bits (`4000000 ** 4000000` runs for minutes)."""
    integers = isinstance(base, int) and isinstance(exponent, int)
    if integers and exponent > 0 and abs(base) > 1 and abs(base).bit_length() * exponent > MAX_POWER_BITS:
        raise ExpressionLimitError(f"{base} ** {exponent} exceeds {MAX_POWER_BITS:,} bits")
