"""A safe expression evaluator (simpleeval, never Python's `eval`) shared by stubs and assertions.

Differences from a stock `simpleeval.EvalWithCompoundTypes`:

* only one expression is accepted (`ast.parse(..., mode="eval")`): statements, assignments and
  several expressions separated by newlines are syntax errors, not warnings;
* attribute access on a mapping reads its key first (`args.amount` is `args["amount"]`), then
  falls back to a read-only whitelist of methods per built-in type (`str.lower`, `dict.get`, ...);
  attributes starting with `_` are always refused, so `().__class__` cannot escape;
* the function table holds only pure, deterministic built-ins (no `rand`/`randint`).
"""

from __future__ import annotations

import ast
import functools
import threading
from collections.abc import Mapping
from typing import Any

from simpleeval import (
    BASIC_ALLOWED_ATTRS,
    DISALLOW_METHODS,
    DISALLOW_PREFIXES,
    AttributeDoesNotExist,
    EvalWithCompoundTypes,
    FeatureNotAvailable,
)

# Methods that would mutate a value are left out: expressions only read.
_MUTATING = {
    "append",
    "clear",
    "discard",
    "extend",
    "insert",
    "pop",
    "popitem",
    "remove",
    "reverse",
    "setdefault",
    "sort",
    "update",
    "add",
    "difference_update",
    "intersection_update",
    "symmetric_difference_update",
    "format",
    "format_map",
    "maketrans",
    "from_bytes",
    "fromhex",
    "fromkeys",
}

READ_ONLY_ATTRS: dict[type | None, set[str]] = {
    kind: {name for name in names if name not in _MUTATING}
    for kind, names in BASIC_ALLOWED_ATTRS.items()
}
"""Per built-in type, the attributes an expression may read (methods that mutate are excluded)."""

SAFE_FUNCTIONS: dict[str, Any] = {
    "abs": abs,
    "all": all,
    "any": any,
    "bool": bool,
    "float": float,
    "int": int,
    "len": len,
    "max": max,
    "min": min,
    "round": round,
    "sorted": sorted,
    "str": str,
    "sum": sum,
}
"""Pure built-ins every expression may call."""


# CPython 3.11's ast.parse keeps its AST-conversion recursion counter per interpreter, not per
# thread, so two threads parsing at once can fail with "SystemError: AST constructor recursion depth
# mismatch" (seen when conversations run in Prefect's thread pool). Parsing is serialised and cached;
# the evaluator never mutates a tree, so sharing parsed trees is safe.
_PARSE_LOCK = threading.Lock()


@functools.lru_cache(maxsize=4096)
def _parse_cached(text: str) -> ast.expr:
    with _PARSE_LOCK:
        return ast.parse(text, mode="eval").body


def parse_expression(expression: str) -> ast.expr:
    """Parse exactly one expression; raise `SyntaxError` for statements or an empty text."""
    text = expression.strip()
    if not text:
        raise SyntaxError("empty expression")
    return _parse_cached(text)


class SafeEvaluator(EvalWithCompoundTypes):
    """`EvalWithCompoundTypes` with mapping-key attribute access and read-only attributes."""

    def __init__(
        self,
        names: Mapping[str, Any] | None = None,
        functions: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(
            functions=dict(SAFE_FUNCTIONS if functions is None else functions),
            names=dict(names or {}),
            allowed_attrs=READ_ONLY_ATTRS,
        )

    def evaluate(self, expression: str, node: ast.expr | None = None) -> Any:
        """Evaluate one expression (parsed here unless `node` is given)."""
        parsed = parse_expression(expression) if node is None else node
        return self.eval(expression, previously_parsed=parsed)

    def _eval_formattedvalue(self, node: ast.FormattedValue) -> Any:
        # A format spec is applied with `str.format`, whose field syntax can read attributes.
        if node.format_spec is not None:
            raise FeatureNotAvailable("format specs in f-strings are not allowed")
        return self._eval(node.value)

    def _eval_attribute(self, node: ast.Attribute) -> Any:
        attr = node.attr
        if any(attr.startswith(prefix) for prefix in DISALLOW_PREFIXES):
            raise FeatureNotAvailable(f"access to private attribute '{attr}' is not allowed")
        if attr in DISALLOW_METHODS:
            raise FeatureNotAvailable(f"method '{attr}' is not allowed")
        value = self._eval(node.value)
        if isinstance(value, Mapping) and attr in value:
            return value[attr]
        allowed = self.allowed_attrs.get(type(value)) if self.allowed_attrs is not None else None
        if allowed is None or attr not in allowed:
            # Not a key, and not a whitelisted read-only method of a built-in type.
            raise AttributeDoesNotExist(attr, self.expr)
        return getattr(value, attr)
