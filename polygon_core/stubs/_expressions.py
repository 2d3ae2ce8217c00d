"""A safe expression evaluator (simpleeval, never Python's `eval`) shared by stubs and assertions.

Differences from a stock `simpleeval.EvalWithCompoundTypes`:

* only one expression is accepted (`ast.parse(..., mode="eval")`): statements, assignments and
  several expressions separated by newlines are syntax errors, not warnings;
* attribute access on a mapping reads its key first (`args.amount` is `args["amount"]`), then
  falls back to a read-only whitelist of methods per built-in type (`str.lower`, `dict.get`, ...);
  attributes starting with `_` are always refused, so `().__class__` cannot escape;
* the function table holds only pure, deterministic built-ins (no `rand`/`randint`);
* every operation that can build a value larger than its inputs (`%` formatting, padding, `join`,
  `replace`, `str` of a container, f-strings, `sum` of lists, `**`, `round`) is checked before it
  runs, and all an evaluation builds is counted (`_expression_limits.py`).
"""

from __future__ import annotations

import ast
import functools
import threading
from collections.abc import Mapping
from typing import Any

from simpleeval import (
    BASIC_ALLOWED_ATTRS,
    DEFAULT_OPERATORS,
    DISALLOW_METHODS,
    DISALLOW_PREFIXES,
    AttributeDoesNotExist,
    EvalWithCompoundTypes,
    FeatureNotAvailable,
    safe_power,
)

from ._expression_limits import (
    FUNCTION_CHECKS,
    MAX_EXPRESSION_BUILT,
    MAX_EXPRESSION_VALUE,
    METHOD_CHECKS,
    ExpressionLimitError,
    bounded_sum,
    built_size,
    check_percent,
    check_power,
    refuse,
    text_size,
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
    "sum": bounded_sum,
}
"""Pure built-ins every expression may call."""


def _percent(left: Any, right: Any) -> Any:
    check_percent(left, right)
    return left % right


def _power(base: Any, exponent: Any) -> Any:
    check_power(base, exponent)
    return safe_power(base, exponent)


BOUNDED_OPERATORS: dict[type, Any] = {**DEFAULT_OPERATORS, ast.Mod: _percent, ast.Pow: _power}
"""simpleeval's operators (`*` and `+` bounded there) with `%` formatting and `**` bounded too."""

_SCALARS = frozenset({int, float, str, bool, type(None), bytes, complex})

# Nodes whose value the expression builds rather than reads from its names: what they make is
# counted against MAX_EXPRESSION_BUILT (calls are counted by their bounded wrappers).
_BUILDING = (ast.BinOp, ast.JoinedStr, ast.List, ast.Tuple, ast.Set, ast.Dict, ast.ListComp,
             ast.GeneratorExp, ast.DictComp)


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

    functions: dict[str, Any]  # simpleeval's table, every entry wrapped by `_bounded_function`

    def __init__(
        self,
        names: Mapping[str, Any] | None = None,
        functions: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(
            operators=dict(BOUNDED_OPERATORS),
            functions=dict(SAFE_FUNCTIONS if functions is None else functions),
            names=dict(names or {}),
            allowed_attrs=READ_ONLY_ATTRS,
        )
        self._built = 0
        # Wrapped here, after simpleeval added list/tuple/dict/set, so a function passed as a value
        # (`sorted(x, key=str)`) is as bounded as one called by name.
        self.functions = {name: self._bounded_function(name, f) for name, f in self.functions.items()}

    def evaluate(self, expression: str, node: ast.expr | None = None) -> Any:
        """Evaluate one expression (parsed here unless `node` is given)."""
        parsed = parse_expression(expression) if node is None else node
        return self.eval(expression, previously_parsed=parsed)

    def eval(self, expr: str, previously_parsed: ast.AST | None = None) -> Any:
        """Evaluate `expr`; the count of what it builds starts again at zero."""
        self._built = 0
        return super().eval(expr, previously_parsed)

    # -- size limits ------------------------------------------------------------------------------

    def _eval(self, node: ast.AST) -> Any:
        value = super()._eval(node)
        if isinstance(node, _BUILDING) or (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice)):
            self._count(value)
        return value

    def _check_disallowed_items(self, item: Any) -> None:
        # simpleeval walks every result for forbidden functions and modules, item by item, so
        # `[[1] * 100000] * 100000` (one inner list, shared) costs it 10^10 steps. The same walk,
        # each container once.
        seen: set[int] = set()
        pending = [item]
        while pending:
            value = pending.pop()
            if type(value) in _SCALARS:
                continue
            if isinstance(value, (list, tuple, set, frozenset, dict)):
                if id(value) in seen:
                    continue
                seen.add(id(value))
                pending.extend(value.values() if isinstance(value, dict) else value)
            else:
                super()._check_disallowed_items(value)

    def _count(self, value: Any, inputs: tuple[Any, ...] = ()) -> None:
        # A value handed back unchanged (`s.strip()` of a stripped text) was not built.
        if any(value is given for given in inputs):
            return
        self._built += built_size(value)
        if self._built > MAX_EXPRESSION_BUILT:
            raise refuse(f"what this expression builds ({self._built:,} characters or items)",
                         MAX_EXPRESSION_BUILT)

    def _bounded_function(self, name: str, function: Any) -> Any:
        check = FUNCTION_CHECKS.get(name)

        def bounded(*args: Any, **kwargs: Any) -> Any:
            if check is not None:
                check(args, kwargs)
            result = function(*args, **kwargs)
            self._count(result, args)
            return result

        bounded.__name__ = name
        bounded.__doc__ = function.__doc__
        return bounded

    def _bounded_method(self, name: str, receiver: Any, method: Any) -> Any:
        check = METHOD_CHECKS.get(name)

        def bounded(*args: Any, **kwargs: Any) -> Any:
            if check is not None:
                check(receiver, args, kwargs)
            result = method(*args, **kwargs)
            self._count(result, (receiver, *args))
            return result

        bounded.__name__ = name
        return bounded

    def _eval_joinedstr(self, node: ast.JoinedStr) -> str:
        # simpleeval builds each part's text before it measures it, and never adds the parts up.
        parts: list[str] = []
        size = 0
        for part in node.values:
            value = self._eval(part)
            size += len(value) if isinstance(value, str) else text_size(value)
            if size > MAX_EXPRESSION_VALUE:
                raise refuse("the f-string")
            parts.append(str(value))
        return "".join(parts)

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
        found = getattr(value, attr)
        # Methods come back bounded, so `'x'.ljust` is checked however it is called (also as a key=).
        return self._bounded_method(attr, value, found) if callable(found) else found


def _constant_nodes(tree: ast.AST) -> set[int]:
    """The ids of the nodes whose value depends on no name: what validation can evaluate."""
    constant: set[int] = set()
    functions = {*SAFE_FUNCTIONS, "list", "tuple", "dict", "set"}

    def visit(node: ast.AST) -> bool:
        children = [visit(child) for child in ast.iter_child_nodes(node)]  # every child gets marked
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            ok = node.func.id in functions and all(children[1:])
        elif isinstance(node, (ast.Name, ast.Lambda, ast.NamedExpr, ast.ListComp, ast.SetComp,
                               ast.GeneratorExp, ast.DictComp, ast.comprehension)):
            ok = False
        else:
            ok = all(children)
        if ok:
            constant.add(id(node))
        return ok

    visit(tree)
    return constant


def constant_problem(tree: ast.expr) -> str | None:
    """Why a constant part of `tree` is already beyond the evaluator's limits, or None.

    Catches `len('%02000000000d' % 1) > 0` and `'x'.ljust(2000000000)` when the file is validated
    instead of at the first run; parts that read arguments, state or the conversation can only be
    checked when they run. Evaluating them is safe: the evaluator refuses before it allocates.
    """
    constant = _constant_nodes(tree)
    pending: list[ast.AST] = [tree]
    while pending:
        node = pending.pop(0)
        if id(node) in constant and isinstance(node, ast.expr):
            if isinstance(node, ast.Constant):
                continue
            try:
                SafeEvaluator().evaluate(ast.unparse(node), node)
            except ExpressionLimitError as exc:
                return str(exc)
            except Exception:  # `1 % 0` and the like fail when they run, as they should
                pass
            continue
        pending.extend(ast.iter_child_nodes(node))
    return None
