"""Evaluating one assertion end to end: parse, check statically, run the evaluator, explain a fail."""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from typing import Any

from simpleeval import FeatureNotAvailable, FunctionNotDefined, InvalidExpression, NameNotDefined

from ..models import AssertionResult, AssertionStatus, Conversation, ToolDef
from ..stubs import parse_expression
from ._call import inapplicable_metric, with_misheard
from ._evaluator import AssertionEvaluator, Context, Note
from ._language import static_problem, syntax_message, uses_heuristic


def _error_message(exc: BaseException) -> str:
    if isinstance(exc, SyntaxError):
        return syntax_message(exc)
    if isinstance(exc, NameNotDefined):
        return f"unknown name {exc.name!r}"
    if isinstance(exc, FunctionNotDefined):
        return f"unknown function {exc.func_name!r}"
    if isinstance(exc, FeatureNotAvailable):
        return f"not allowed: {exc}"
    if isinstance(exc, InvalidExpression):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


def _failure(evaluator: AssertionEvaluator, tree: ast.expr, expression: str, value: Any) -> Note:
    for note in evaluator.notes:
        if not note.holds:
            return note
    if isinstance(tree, ast.UnaryOp) and isinstance(tree.op, ast.Not):
        # `not refund_issued()`: what happened is the reason it fails.
        for note in evaluator.notes:
            return Note(False, f"`{expression}` is false: {note.message}", note.turn)
    if isinstance(tree, ast.Compare) and len(tree.ops) == 1:
        try:
            left = evaluator._eval(tree.left)
            right = evaluator._eval(tree.comparators[0])
        except Exception:
            pass
        else:
            return Note(
                False,
                f"`{expression}` is false: {ast.unparse(tree.left)} is {left!r}, "
                f"{ast.unparse(tree.comparators[0])} is {right!r}",
            )
    return Note(False, f"`{expression}` is false (value: {value!r})")


def _evaluate(name: str, expression: str, context: Context) -> AssertionResult:
    def result(status: AssertionStatus, message: str | None = None, turn: int | None = None) -> AssertionResult:
        return AssertionResult(
            name=name,
            expression=expression,
            status=status,
            message=message,
            turn=turn,
            answered_by=answered_by,
        )

    answered_by = "deterministic"
    try:
        tree = parse_expression(expression)
    except SyntaxError as exc:
        return result("error", syntax_message(exc))
    except Exception as exc:
        return result("error", f"cannot parse: {type(exc).__name__}: {exc}")
    if uses_heuristic(tree):
        answered_by = "offline-heuristic"
    problem = static_problem(tree, context.known, strict=not context.lenient)
    if problem:
        return result("error", problem)
    # A call metric with no value here (a text conversation, a call nobody interrupted) makes the
    # assertion neither true nor false: not applicable, with the reason.
    inapplicable = inapplicable_metric(tree, context.conversation, shadowed=context.known)
    if inapplicable:
        return result("not_applicable", inapplicable)
    evaluator = AssertionEvaluator(context)
    try:
        value = evaluator.evaluate(expression, tree)
    except Exception as exc:
        return result("error", _error_message(exc))
    if value:
        return result("pass")
    note = _failure(evaluator, tree, expression, value)
    # On a call, a failure may be a mishearing ("fifteen" heard as "fifty"): say what was heard.
    return result("fail", with_misheard(note.message, context.conversation), note.turn)


def evaluate_assertion(
    name: str,
    expression: str,
    conversation: Conversation,
    *,
    knowledge_base: Sequence[str] = (),
    tools: Mapping[str, ToolDef] | None = None,
) -> AssertionResult:
    """Evaluate one assertion on a finished conversation.

    Status is `pass` or `fail` from the truthiness of the value; an expression that cannot be
    evaluated (syntax error, unknown name or function, a type error, a forbidden construct) is
    `error` with the reason, never `fail`. A failure carries the deciding turn when one decided
    it (e.g. the refund that came before any identity check).

    Give `tools` (the scenario's tool definitions) whenever they are known: their tool and event
    names then resolve even when they never happened, and any other bare name is an error.
    Without `tools`, an unknown call `name(...)` is taken to be a tool or event that never
    happened, since a typo cannot be told from an event that did not occur.
    """
    context = Context.build(conversation, knowledge_base, tools)
    return _evaluate(name, expression, context)


def evaluate_assertions(
    assertions: Mapping[str, str],
    conversation: Conversation,
    *,
    knowledge_base: Sequence[str] = (),
    tools: Mapping[str, ToolDef] | None = None,
) -> list[AssertionResult]:
    """Evaluate a scenario's assertions (name → expression), in order; see `evaluate_assertion`."""
    context = Context.build(conversation, knowledge_base, tools)
    return [_evaluate(name, expression, context) for name, expression in assertions.items()]
