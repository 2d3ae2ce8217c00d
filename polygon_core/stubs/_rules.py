"""Rule-driven stubs: the first rule whose `when` holds answers the call."""

from __future__ import annotations

import ast
import copy
from collections.abc import Mapping, Sequence
from typing import Any

from simpleeval import AttributeDoesNotExist, InvalidExpression

from ..models import Rule
from ._errors import StubError
from ._expressions import SAFE_FUNCTIONS, SafeEvaluator, constant_problem, parse_expression

NO_RULE_MATCHED: dict[str, str] = {"error": "no_rule_matched"}
"""The answer of a rules stub when no rule matches."""

_KNOWN_NAMES = frozenset({"args", "state", "True", "False", "None", *SAFE_FUNCTIONS}) | {
    "list",
    "tuple",
    "dict",
    "set",
}


def check_rule_expression(expression: str) -> str | None:
    """Static check of a `when` expression: a syntax error, a name other than args/state, or a
    constant part already beyond the evaluator's limits (`'x'.ljust(2000000000)`)."""
    try:
        tree = parse_expression(expression)
    except SyntaxError as exc:
        return f"syntax error in {expression!r}: {exc.msg}"
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.comprehension):
            bound.update(n.id for n in ast.walk(node.target) if isinstance(n, ast.Name))
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id not in bound and node.id not in _KNOWN_NAMES:
            hint = "use args.<field> or state.<key>"
            return f"unknown name {node.id!r} in {expression!r} ({hint})"
        if isinstance(node, ast.Attribute) and node.attr.startswith("_"):
            return f"private attribute {node.attr!r} in {expression!r}"
    problem = constant_problem(tree)
    return f"{expression!r}: {problem}" if problem else None


class RuleEngine:
    """Evaluates rule conditions with simpleeval over `args` and `state`."""

    def __init__(self) -> None:
        self._parsed: dict[str, ast.expr] = {}

    def first_match(
        self, rules: Sequence[Rule], args: Mapping[str, Any], state: Mapping[str, Any]
    ) -> Rule | None:
        """The first rule whose `when` is true, or None.

        A condition that reads a field the call or the state does not have (`args.reason` when
        the optional `reason` was left out), or compares mismatched types, is false for that rule.
        A syntax error, an unknown name or a forbidden construct is a broken stub: `StubError`.
        """
        names = {"args": copy.deepcopy(dict(args)), "state": copy.deepcopy(dict(state))}
        for rule in rules:
            if self._holds(rule.when, names):
                return rule
        return None

    def _holds(self, expression: str, names: dict[str, Any]) -> bool:
        node = self._parsed.get(expression)
        if node is None:
            try:
                node = parse_expression(expression)
            except SyntaxError as exc:
                raise StubError(f"rule condition {expression!r}: {exc.msg}") from exc
            self._parsed[expression] = node
        evaluator = SafeEvaluator(names=names)
        try:
            return bool(evaluator.evaluate(expression, node))
        except AttributeDoesNotExist:
            return False
        except InvalidExpression as exc:
            raise StubError(f"rule condition {expression!r}: {exc}") from exc
        except (LookupError, TypeError, ValueError, ArithmeticError):
            return False
