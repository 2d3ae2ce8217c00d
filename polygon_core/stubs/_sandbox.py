"""A Jinja2 sandbox whose operators, calls and output are bounded in size.

Jinja2's own sandbox stops templates from reaching Python internals, but not from asking for a huge
value: `{{ 'a' * 3000000000 }}` is even folded into a 3 GB constant while the template compiles.
Here the operators that can amplify a value (`*`, `+`, `**`, `%`) are intercepted (which also keeps
Jinja2 from folding them at compile time), every call and filter is refused an integer argument or
a result beyond the limit, `range` is capped, and the rendered text is cut off at the limit.
Loop iterations and calls are counted per rendering (`MAX_TEMPLATE_STEPS`).
A template that breaks a limit raises `TemplateLimitError` (a Jinja2 `SecurityError`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from typing import Any

from jinja2 import nodes
from jinja2.runtime import Context
from jinja2.sandbox import ImmutableSandboxedEnvironment, SecurityError
from jinja2.utils import Namespace

MAX_TEMPLATE_OUTPUT = 100_000
"""Most characters (or items) a template may produce: one value, one operation or the whole text."""

MAX_POWER_BITS = 4_096
"""Largest integer, in bits, that `**` may produce."""

MAX_RANGE = 10_000
"""Longest `range(...)` a template may iterate over."""

MAX_TEMPLATE_STEPS = 100_000
"""Most loop iterations plus calls (macros, methods) in one rendering: nested loops or recursive
macros that produce nothing would otherwise run for hours."""

_ITERATE = "__polygon_iterate"  # the global every `{% for %}` iterable is wrapped in
_STEPS = "polygon_template_steps"  # the per-rendering step count, kept on the render Context

# `%` formatting with a field width or precision: `'%999999999s' % x` pads to a billion characters.
_PERCENT_FIELD = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?")


class TemplateLimitError(SecurityError):
    """A template asked for a value, a call or an output beyond the sandbox's limits."""


def _size(value: Any) -> int:
    # Strings count their characters; lists and tuples their items plus the text of string items
    # (shallow: one level is what `*` and `+` can multiply at once).
    if isinstance(value, str):
        return len(value)
    if isinstance(value, (list, tuple)):
        return len(value) + sum(len(item) for item in value if isinstance(item, str))
    return 1


def _refuse(what: str) -> TemplateLimitError:
    return TemplateLimitError(f"{what} exceeds the template limit of {MAX_TEMPLATE_OUTPUT:,}")


def _check_result(value: Any) -> Any:
    if isinstance(value, (str, list, tuple)) and _size(value) > MAX_TEMPLATE_OUTPUT:
        raise _refuse("a value of this size")
    return value


def _check_arguments(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    # Widths and counts (`center(10**9)`, `indent(width=...)`, `wordwrap`, `zfill`) are integers;
    # none of the safe filters or methods needs one beyond the output limit.
    for value in (*args, *kwargs.values()):
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_TEMPLATE_OUTPUT:
            raise _refuse(f"the number {value}")
        _check_result(value)  # a macro calling itself with `s ~ s` doubles its argument


def _check_replace(target: Any, args: tuple[Any, ...]) -> None:
    # `s.replace('', big)` inserts `big` between every character: estimate before building it.
    if isinstance(target, str) and len(args) >= 2 and isinstance(args[0], str) and isinstance(args[1], str):
        grown = target.count(args[0]) * max(0, len(args[1]) - len(args[0]))
        if len(target) + grown > MAX_TEMPLATE_OUTPUT:
            raise _refuse("the replaced text")


def _step(context: Context) -> None:
    steps = getattr(context, _STEPS, 0) + 1
    if steps > MAX_TEMPLATE_STEPS:
        raise TemplateLimitError(
            f"more than {MAX_TEMPLATE_STEPS:,} loop iterations and calls in one rendering"
        )
    setattr(context, _STEPS, steps)


def _iterate(context: Context, iterable: Any) -> Iterator[Any]:
    for item in iterable:
        _step(context)
        yield item


def _iterate_marker(iterable: Any) -> Any:
    """Stands for `_iterate` in templates; `BoundedSandbox.call` swaps in the counting one."""
    return iterable


class _BoundedNamespace(Namespace):
    # `{% set ns.s = ns.s ~ ns.s %}` in a loop doubles a value per iteration.
    def __setitem__(self, name: str, value: Any) -> None:
        super().__setitem__(name, _check_result(value))


def _bounded_range(*args: int) -> range:
    numbers = range(*args)
    if len(numbers) > MAX_RANGE:
        raise TemplateLimitError(f"range of {len(numbers):,} items exceeds the limit of {MAX_RANGE:,}")
    return numbers


def _bounded_filter(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(function)  # keeps jinja's pass_context/pass_environment markers
    def bounded(*args: Any, **kwargs: Any) -> Any:
        _check_arguments(args, kwargs)
        if name == "replace":
            # The value is the first argument, or the second after a context/environment.
            values = [a for a in args if isinstance(a, str)]
            if len(values) >= 3:
                _check_replace(values[0], tuple(values[1:]))
        return _check_result(function(*args, **kwargs))

    return bounded


class BoundedSandbox(ImmutableSandboxedEnvironment):
    """`ImmutableSandboxedEnvironment` with size limits on operators, calls, ranges and output."""

    intercepted_binops = frozenset({"*", "+", "**", "%"})

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.globals["range"] = _bounded_range
        self.globals["namespace"] = _BoundedNamespace
        self.globals[_ITERATE] = _iterate_marker
        self.filters = {name: _bounded_filter(name, f) for name, f in self.filters.items()}

    def _generate(
        self, source: nodes.Template, name: str | None, filename: str | None, defer_init: bool = False
    ) -> str:
        # Every loop's iterable goes through `_ITERATE` (a call, so `call` sees it and counts each
        # iteration): the only way to bound nested loops that render nothing.
        for loop in source.find_all(nodes.For):
            loop.iter = nodes.Call(nodes.Name(_ITERATE, "load"), [loop.iter], [], None, None)
        return super()._generate(source, name, filename, defer_init)

    def call_binop(self, context: Context, operator_name: str, left: Any, right: Any) -> Any:
        """Apply an intercepted operator after checking the size of what it would make."""
        if operator_name == "*":
            for sequence, count in ((left, right), (right, left)):
                repeats = isinstance(sequence, (str, list, tuple)) and isinstance(count, int)
                if repeats and _size(sequence) * max(count, 0) > MAX_TEMPLATE_OUTPUT:
                    raise _refuse("the repeated value")
        elif operator_name == "+" and isinstance(left, (str, list, tuple)):
            if isinstance(right, (str, list, tuple)) and _size(left) + _size(right) > MAX_TEMPLATE_OUTPUT:
                raise _refuse("the joined value")
        elif operator_name == "**" and isinstance(left, int) and isinstance(right, int):
            if right > 0 and abs(left) > 1 and abs(left).bit_length() * right > MAX_POWER_BITS:
                raise TemplateLimitError(f"{left} ** {right} exceeds {MAX_POWER_BITS:,} bits")
        elif operator_name == "%" and isinstance(left, str):
            for width, precision in _PERCENT_FIELD.findall(left):
                for number in (width, precision):
                    if number == "*" or (number and int(number) > MAX_TEMPLATE_OUTPUT):
                        raise _refuse(f"the format field width {number}")
        return _check_result(self.binop_table[operator_name](left, right))

    def call(__self, __context: Context, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        """Call a safe callable after checking its arguments, then check the size of its result."""
        if __obj is _iterate_marker:
            return _iterate(__context, *args)
        _step(__context)
        _check_arguments(args, kwargs)
        if getattr(__obj, "__name__", None) == "replace":
            _check_replace(getattr(__obj, "__self__", None), args)
        return _check_result(super().call(__context, __obj, *args, **kwargs))


def constant_problem(environment: BoundedSandbox, source: str) -> str | None:
    """Why a constant operation in `source` is already beyond the limits, or None.

    Catches `{{ 'a' * 3000000000 }}` when the tool library is validated instead of at the first
    call; operations over arguments or state can only be checked when they run.
    """
    for node in environment.parse(source).find_all((nodes.Mul, nodes.Add, nodes.Pow, nodes.Mod)):
        left, right = node.left, node.right
        if isinstance(left, nodes.Const) and isinstance(right, nodes.Const):
            try:
                environment.call_binop(None, node.operator, left.value, right.value)  # type: ignore[arg-type]
            except TemplateLimitError as exc:
                return str(exc)
            except Exception:  # `1 % 0` and the like fail when rendered, as they should
                continue
    return None


def bounded_join(chunks: Iterator[str]) -> str:
    """Join rendered chunks, refusing once the text passes `MAX_TEMPLATE_OUTPUT` characters."""
    out: list[str] = []
    total = 0
    for chunk in chunks:
        total += len(chunk)
        if total > MAX_TEMPLATE_OUTPUT:
            raise _refuse("the rendered text")
        out.append(chunk)
    return "".join(out)


__all__ = [
    "MAX_RANGE",
    "MAX_TEMPLATE_OUTPUT",
    "MAX_TEMPLATE_STEPS",
    "BoundedSandbox",
    "TemplateLimitError",
    "bounded_join",
    "constant_problem",
]
