"""The assertion language's vocabulary and its static check (no evaluation)."""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterable, Mapping

from simpleeval import DEFAULT_OPERATORS

from ..stubs import SAFE_FUNCTIONS, SafeEvaluator, constant_problem, did_you_mean, parse_expression
from ..voice import ALL_CALL_METRICS
from ._call import CALL_METRIC_NAMES, bound_names
from ._timeline import RESERVED_NAMES

NAME_FORMS: frozenset[str] = frozenset({"before", "count", "happened", "ever", "called"})
"""Helpers whose first argument names a tool or event and whose further arguments are lazy."""

PLAIN_FUNCTIONS: frozenset[str] = frozenset(
    {*SAFE_FUNCTIONS, "list", "tuple", "dict", "set", "same_set", "said", "cites_only"}
)
"""Helpers and built-ins called with ordinary (eagerly evaluated) arguments."""

HEURISTIC_FUNCTIONS: frozenset[str] = frozenset({"cites_only"})
"""Helpers whose answer is an offline heuristic rather than a deterministic fact."""

_BEFORE = "_before"

_ALLOWED_NODES: frozenset[type] = frozenset(
    {
        *SafeEvaluator().nodes,
        *DEFAULT_OPERATORS,
        ast.And,
        ast.Or,
        ast.Load,
        ast.comprehension,
        ast.keyword,
        ast.Starred,
    }
)


def classify_call(name: str, known: Collection[str], lenient: bool) -> str | None:
    """How a call `name(...)` is evaluated.

    * `"form"`: a name helper (`before`, `count`, `happened`, `ever`, `called`);
    * `"function"`: a plain helper or built-in;
    * `"occurrence"`: a tool or event name called with an optional predicate;
    * `"before"`: the `<event>_before(<tool or event>)` pattern;
    * None: nothing of that name.

    With `lenient` (no tool definitions were given, so a tool or event that never happened cannot
    be told from a typo) an unknown name is taken to be a tool or event.
    """
    if name in NAME_FORMS:
        return "form"
    if name in PLAIN_FUNCTIONS:
        return "function"
    if name in known:
        return "occurrence"
    if name.startswith("_"):
        return None
    if name.endswith(_BEFORE) and len(name) > len(_BEFORE) and (lenient or name[: -len(_BEFORE)] in known):
        return "before"
    if lenient:
        return "occurrence"
    return None


def before_subject(name: str) -> str:
    """`identity_verified` for `identity_verified_before`."""
    return name[: -len(_BEFORE)]


def uses_heuristic(node: ast.AST) -> bool:
    """True when the expression calls a heuristic helper such as `cites_only`."""
    return any(
        isinstance(n, ast.Call)
        and isinstance(n.func, ast.Name)
        and n.func.id in HEURISTIC_FUNCTIONS
        for n in ast.walk(node)
    )


class _Checker:
    def __init__(self, known: Collection[str], strict: bool, bound: set[str],
                 arguments: Mapping[str, Collection[str]] | None = None) -> None:
        self.known = set(known)
        self.strict = strict
        self.names = self.known | set(RESERVED_NAMES) | CALL_METRIC_NAMES | bound | PLAIN_FUNCTIONS | NAME_FORMS
        self.arguments = arguments or {}
        self.scope: tuple[str, Collection[str]] | None = None  # (tool or event, its arguments)

    def _unknown_argument(self, name: str) -> str | None:
        # Inside the condition of a tool or event whose schema lists its arguments, a name that is
        # neither one of them nor conversation data would be an error (or never match) at run time.
        if self.scope is None or name in self.names or name in self.scope[1] or name in ("args", "turn"):
            return None
        label, arguments = self.scope
        return (f"{name!r} is not an argument of {label} (its arguments: {', '.join(sorted(arguments))})"
                f"{did_you_mean(name, arguments)}")

    def visit(self, node: ast.AST, predicate: bool = False) -> str | None:
        if type(node) not in _ALLOWED_NODES:
            return f"{type(node).__name__} is not allowed in an assertion"
        if isinstance(node, ast.Attribute) and node.attr.startswith("_"):
            return f"private attribute {node.attr!r} is not allowed"
        if predicate and isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id == "args":
            return self._unknown_argument(node.attr)
        if isinstance(node, ast.Name):
            if self.strict and not predicate and node.id not in self.names:
                return f"unknown name {node.id!r}{_metric_hint(node.id)}"
            return self._unknown_argument(node.id) if predicate else None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            return self._call(node, predicate)
        return self._children(ast.iter_child_nodes(node), predicate)

    def _children(self, nodes: Iterable[ast.AST], predicate: bool) -> str | None:
        for child in nodes:
            problem = self.visit(child, predicate)
            if problem:
                return problem
        return None

    def _name_arg(self, node: ast.AST, predicate: bool) -> str | None:
        if isinstance(node, ast.Name):
            if self.strict and not predicate and node.id not in self.names:
                return f"unknown tool or event {node.id!r}"
            return None
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if self.strict and node.value not in self.known:
                return f"unknown tool or event {node.value!r}"
            return None
        return self.visit(node, predicate)

    def _call(self, node: ast.Call, predicate: bool) -> str | None:
        name = node.func.id  # type: ignore[attr-defined]
        kind = classify_call(name, self.known, lenient=not self.strict)
        if kind is None:
            return f"unknown function {name!r}"
        keywords = [k.value for k in node.keywords]
        if kind == "function":
            return self._children([*node.args, *keywords], predicate)
        if kind == "before" or name == "before":
            expected = 1 if kind == "before" else 2
            if len(node.args) != expected or node.keywords:
                return f"{name}() takes {expected} tool or event name(s)"
            return self._children_names(node.args, predicate)
        if kind == "form":
            if not node.args:
                return f"{name}() needs a tool or event name"
            problem = self._name_arg(node.args[0], predicate)
            rest = node.args[1:]
            subject = _subject_name(node.args[0])
        else:
            problem, rest, subject = None, list(node.args), name
        if problem:
            return problem
        if len(rest) > 1:
            return f"{name}(): give at most one condition (join conditions with `and`)"
        outer, arguments = self.scope, self.arguments.get(subject or "")
        self.scope = (subject, arguments) if subject and arguments is not None else None
        try:
            return (self._children(rest, True)
                    or next(filter(None, (self._unknown_argument(k.arg) for k in node.keywords if k.arg)), None)
                    or self._children(keywords, predicate))
        finally:
            self.scope = outer

    def _children_names(self, nodes: Iterable[ast.AST], predicate: bool) -> str | None:
        for child in nodes:
            problem = self._name_arg(child, predicate)
            if problem:
                return problem
        return None


def _metric_hint(name: str) -> str:
    # A misspelt call metric (`response_latency_p99`, `yeild_rate`) is told which ones there are.
    close = did_you_mean(name, CALL_METRIC_NAMES)
    if not close:
        return ""
    return f"{close} (call metrics: {', '.join(ALL_CALL_METRICS)})"


def _subject_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def static_problem(tree: ast.expr, known: Collection[str], *, strict: bool,
                   arguments: Mapping[str, Collection[str]] | None = None) -> str | None:
    """The first static problem of a parsed expression, or None.

    Always checks that only supported constructs and no private attributes are used; with
    `strict`, also that every bare name is known (conversation data, helpers, `known` tool and
    event names). Names inside a tool's or event's condition (and its keyword filters) are its
    arguments: checked against `arguments` (tool or event name → the argument names its schema
    declares) where it lists that tool or event, unchecked elsewhere.
    """
    return _Checker(known, strict, bound_names(tree), arguments).visit(tree)


def check_expression(expression: str, *, known_names: Collection[str],
                     arguments: Mapping[str, Collection[str]] | None = None) -> str | None:
    """Check an assertion without running it; return an error message, or None when it is sound.

    `known_names` are the tool and event names of the scenario (see `assertion_names`); the
    conversation's data names (`state`, `events`, ...) and the helpers are always known.
    `arguments` maps a tool or event to the argument names its schema declares: a condition's
    names are checked against them (`refund_issued(amont == 49)` → did you mean 'amount'?).
    """
    try:
        tree = parse_expression(expression)
    except SyntaxError as exc:
        return syntax_message(exc)
    except Exception as exc:
        return f"cannot parse: {type(exc).__name__}: {exc}"
    return static_problem(tree, known_names, strict=True, arguments=arguments) or constant_problem(tree)


def argument_problem(expression: str, *, known_names: Collection[str],
                     arguments: Mapping[str, Collection[str]]) -> str | None:
    """Only the problem `arguments` adds to `check_expression`: a condition naming an argument the
    tool's schema does not declare (None when the expression is otherwise broken: reported apart)."""
    if check_expression(expression, known_names=known_names) is not None:
        return None
    return check_expression(expression, known_names=known_names, arguments=arguments)


def syntax_message(exc: SyntaxError) -> str:
    """`syntax error: invalid syntax (column 7)`."""
    where = f" (column {exc.offset})" if exc.offset else ""
    return f"syntax error: {exc.msg}{where}"
