"""Jinja2 templates for stub answers, rendered in an immutable, size-bounded sandbox."""

from __future__ import annotations

import copy
import functools
import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from jinja2 import ChainableUndefined, StrictUndefined, Template, TemplateError, Undefined, nodes

from ._errors import StubError
from ._sandbox import BoundedSandbox, bounded_join, constant_problem

# `{{ expression }}` and nothing else: rendered to the expression's native value.
_SINGLE_EXPRESSION = re.compile(r"^\s*\{\{(?P<expr>.*)\}\}\s*$", re.DOTALL)
_TEMPLATE_MARKERS = ("{{", "}}", "{%", "%}", "{#", "#}")


def _single_expression(text: str) -> str | None:
    match = _SINGLE_EXPRESSION.match(text)
    if match is None:
        return None
    inner = match.group("expr")
    if any(marker in inner for marker in _TEMPLATE_MARKERS):
        return None
    return inner.strip()


def _short(text: str) -> str:
    # Error messages quote the template; a hostile one may be megabytes long.
    return repr(text if len(text) <= 80 else text[:77] + "...")


def _reason(exc: Exception) -> str:
    return str(exc) if isinstance(exc, TemplateError) else f"{type(exc).__name__}: {exc}"


# Compiled templates and expressions kept per process, by source text (most recently used).
_COMPILED_CACHE_SIZE = 1024


@functools.cache
def _sandbox() -> BoundedSandbox:
    """The process's one sandbox, built at the first template compiled (never for a scenario
    without templates). Sharing it is safe: it holds only configuration (filters, globals, the
    operator table); a rendering's state (step count, variables, namespaces) lives on the render
    Context, new for every `generate` or expression call.

    `_Missing`: a name that is not there (`args.amout` for `args.amount`) is an error when it is
    used, not an empty value stored as the answer or the state; `| default(...)` and `is defined`
    still work, through a chain too (`state.customer.name | default('x')`)."""
    return BoundedSandbox(undefined=_Missing, autoescape=False, keep_trailing_newline=True)


class _Missing(ChainableUndefined, StrictUndefined):
    """Chainable (an attribute of a missing name is missing too, so `default` can still replace
    it), false in a test (`{% if state.verified %}` before anything set it), and strict otherwise:
    printing it, storing it or computing with it is an error."""

    def __bool__(self) -> bool:  # type: ignore[override]  # StrictUndefined raises here
        return False


@functools.lru_cache(maxsize=_COMPILED_CACHE_SIZE)
def _compiled_template(text: str) -> Template:
    # Compiling costs far more than rendering, and every conversation over the same tools renders
    # the same texts. A Template keeps nothing of a rendering; a compile error is not cached.
    return _sandbox().from_string(text)


@functools.lru_cache(maxsize=_COMPILED_CACHE_SIZE)
def _compiled_expression(expression: str) -> Callable[..., Any]:
    # As `_compiled_template`: each call of a TemplateExpression renders in a new Context.
    # undefined_to_none=False: `{{ args.amout }}` gives an Undefined, refused in `render_value`
    # (with True it would quietly become None).
    return _sandbox().compile_expression(expression, undefined_to_none=False)


def parse_template(text: str) -> nodes.Template:
    """The syntax tree of `text` as the sandbox reads it (raises `TemplateError` when it is broken)."""
    return _sandbox().parse(text)


def has_template(text: str) -> bool:
    """True when `text` contains Jinja2 markup."""
    return any(marker in text for marker in ("{{", "{%", "{#"))


class TemplateRenderer:
    """Renders stub templates against a context (`args`, `state`) in a Jinja2 immutable sandbox.

    Templates cannot call mutating methods (`state.ledger.append(...)` is a `SecurityError`),
    cannot reach private attributes, and an undefined name is an error (StrictUndefined): an
    optional argument the agent may leave out needs `| default(...)` or `is defined`, and a
    misspelled name fails the stub instead of storing None. Sizes are bounded (see
    `_sandbox`): an operation, call or rendered text beyond `MAX_TEMPLATE_OUTPUT` is a StubError.

    Holds no state: the sandbox and the compiled templates are shared by every renderer in the
    process, so building one (once per conversation) costs nothing.
    """

    def check(self, text: str) -> str | None:
        """Compile `text` without rendering it; return why it is broken, or None.

        Broken: a syntax error, or a constant operation already beyond the sandbox's limits.
        """
        try:
            self._compile(text)
        except StubError as exc:
            return str(exc)
        problem = constant_problem(_sandbox(), text)
        return f"template {_short(text)}: {problem}" if problem else None

    def render_text(self, text: str, context: Mapping[str, Any]) -> str:
        """Render `text` to a string."""
        template = self._template(text)
        try:
            # Streamed, so an over-long text is refused before all of it is built.
            return bounded_join(template.generate(**context))
        except RecursionError:  # a macro calling itself without end
            raise StubError(f"template {_short(text)} failed: recursion too deep") from None
        except Exception as exc:  # any failure of a user's template is the stub's
            raise StubError(f"template {_short(text)} failed: {_reason(exc)}") from exc

    def render_value(self, text: str, context: Mapping[str, Any]) -> Any:
        """Render `text`, keeping the native type when it is exactly one `{{ expression }}`.

        `"{{ args.amount }}"` with `amount=49.0` gives the float 49.0; `"{{ args.id }}"` with the
        string "123" stays the string "123"; mixed text (`"ref-{{ args.id }}"`) gives a string.
        """
        if not has_template(text):
            return text
        expression = _single_expression(text)
        if expression is None:
            return self.render_text(text, context)
        compiled = self._expression(expression, text)
        try:
            return copy.deepcopy(_settled(compiled(**context)))
        except RecursionError:  # a macro calling itself without end
            raise StubError(f"template {_short(text)} failed: recursion too deep") from None
        except Exception as exc:  # any failure of a user's template is the stub's
            raise StubError(f"template {_short(text)} failed: {_reason(exc)}") from exc

    def render_deep(self, value: Any, context: Mapping[str, Any]) -> Any:
        """Copy `value`, rendering every string inside it (dict keys stay as they are)."""
        if isinstance(value, str):
            return self.render_value(value, context)
        if isinstance(value, Mapping):
            return {key: self.render_deep(item, context) for key, item in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.render_deep(item, context) for item in value]
        return copy.deepcopy(value)

    def render_json(self, text: str, context: Mapping[str, Any]) -> Any:
        """Render `text`; return the parsed value when the result is JSON, else the text."""
        rendered = self.render_text(text, context)
        try:
            return json.loads(rendered)
        except ValueError:
            return rendered

    def _compile(self, text: str) -> None:
        expression = _single_expression(text)
        if expression is not None:
            self._expression(expression, text)
        else:
            self._template(text)

    def _template(self, text: str) -> Template:
        try:
            return _compiled_template(text)
        except TemplateError as exc:
            raise StubError(f"template {_short(text)} does not compile: {exc}") from exc

    def _expression(self, expression: str, text: str) -> Callable[..., Any]:
        try:
            return _compiled_expression(expression)
        except TemplateError as exc:
            raise StubError(f"template {_short(text)} does not compile: {exc}") from exc


def omitted(name: str) -> Undefined:
    """What a template sees for a declared argument the call left out (see `_Omitted`)."""
    return _Omitted(name=name)


class _Omitted(ChainableUndefined):
    """A declared argument left out: undefined to `default` and `is defined`, '' in text, None as a
    value (`_settled`): the lenient reading, kept for what the tool's schema allows to be absent."""


def _settled(value: Any) -> Any:
    """`value` with every omitted argument as None; a missing name anywhere in it (one inside a
    list or mapping, `{{ [args.a, args.b] }}`, too) is StrictUndefined's own "has no attribute"
    error, rather than a value stored and failing only when the conversation is written."""
    if isinstance(value, _Omitted):
        return None
    if isinstance(value, Undefined):
        value._fail_with_undefined_error()
    if isinstance(value, Mapping):
        return {key: _settled(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_settled(item) for item in value]
    if isinstance(value, tuple):
        return tuple(_settled(item) for item in value)
    return value
