"""Static checks of a scenario's assertions, shared by `validate_paths` and `load_suite`.

Whatever `polygon validate` rejects must not run: an assertion naming an unknown tool or event
would otherwise be evaluated (and could never fail), so loading a suite runs this check too.
"""

from __future__ import annotations

from collections.abc import Callable

from ..assertions import argument_problem, check_expression
from ..documents import PolygonFileError, YamlDocument
from ..models import Scenario
from ..stubs import declared_arguments
from ._loaders import ToolCatalog

ExpressionChecker = Callable[..., str | None]


def assertion_errors(
    doc: YamlDocument, scenario: Scenario, catalog: ToolCatalog | None
) -> list[PolygonFileError]:
    """Errors for the scenario's assertions that do not parse or name unknown tools or events."""
    check = assertion_checker()
    if check is None or not scenario.assertions:
        return []
    if scenario.tools and catalog is None:
        # Event names come from the tool library; without it every event an assertion mentions
        # would be reported as unknown, so a scenario checked outside its suite skips this check.
        return []
    known = known_assertion_names(scenario, catalog)
    arguments = assertion_arguments(scenario, catalog)
    errors = []
    for name, expression in scenario.assertions.items():
        problem = check(expression, known_names=known) or _argument_problem(expression, known, arguments)
        if problem:
            errors.append(doc.error(("assertions", name), problem))
    return errors


def assertion_checker() -> ExpressionChecker | None:
    """The expression checker, `polygon_core.assertions.check_expression` (None: no check; tests
    swap this to pin the loaders apart from the assertion language)."""
    checker: ExpressionChecker = check_expression
    return checker


def _argument_problem(expression: str, known: frozenset[str], arguments: dict[str, frozenset[str]]) -> str | None:
    # Apart from the pluggable checker (`assertion_checker`): a condition's names against the schema.
    if not arguments:
        return None
    return argument_problem(expression, known_names=known, arguments=arguments)


def assertion_arguments(scenario: Scenario, catalog: ToolCatalog | None) -> dict[str, frozenset[str]]:
    """Tool or event name → the argument names a condition on it may use, where the schema lists them.

    An event carries the arguments of the call that emitted it: its names are the union over the
    scenario's tools that emit it, and it is left unchecked when any of them has an open schema.
    """
    if catalog is None:
        return {}
    arguments: dict[str, frozenset[str]] = {}
    open_names: set[str] = set()
    for tool_name in scenario.tools:
        tool = catalog.tools.get(tool_name)
        if tool is None:
            continue
        declared = declared_arguments(tool.parameters)
        for name in {tool_name, *tool.event_names()}:
            if declared is None:
                open_names.add(name)
            else:
                arguments[name] = arguments.get(name, frozenset()) | declared
    return {name: names for name, names in arguments.items() if name not in open_names}


def known_assertion_names(scenario: Scenario, catalog: ToolCatalog | None) -> frozenset[str]:
    """Bare names an assertion of `scenario` may use besides the built-in ones.

    The scenario's tools and the events they emit (rule events included), as
    `polygon_core.assertions` defines them; conversation data (`state`, `knowledge_base`, ...) is
    known to the checker itself.
    """
    names: set[str] = set(scenario.tools)
    if catalog is not None:
        for tool_name in scenario.tools:
            tool = catalog.tools.get(tool_name)
            if tool is not None:
                names.update(tool.event_names())
    return frozenset(names)
