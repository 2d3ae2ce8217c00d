"""Checks of a tool library's stubs that need more than its schema: what a run would trip over.

Every rule condition must parse and use only `args`, `state` and the built-in functions; every
template must compile, hold no constant already beyond the sandbox's limits, and read only the
arguments the tool's schema declares (where it lists them). Each problem points
at the line of the offending `when`, `response` or `record` value.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any

from ..documents import PathPart, PolygonFileError, YamlDocument
from ..models import ToolDef
from ..stubs import TemplateRenderer, check_rule_expression, declared_arguments, has_template, unknown_argument

_Path = tuple[PathPart, ...]


def stub_errors(doc: YamlDocument, name: str, tool: ToolDef) -> list[PolygonFileError]:
    """Problems of tool `name`'s rules and templates, each at its own line in `doc`."""
    base: _Path = ("tools", name)
    errors: list[PolygonFileError] = []
    for where, condition in tool.conditions():
        problem = check_rule_expression(condition)
        if problem:
            errors.append(doc.error((*base, *where), f"rule condition: {problem}"))
    known = declared_arguments(tool.parameters)
    for path, text in _templates(base, tool):
        problem = _template_problem(text) or (unknown_argument(text, known) if known else None)
        if problem:
            errors.append(doc.error(path, problem))
    return errors


@functools.lru_cache(maxsize=1024)
def _template_problem(text: str) -> str | None:
    # Compiling a Jinja template costs milliseconds, and a suite is validated again by every run
    # and every flow task that loads it; the verdict depends on the text alone.
    return TemplateRenderer().check(text)


def _templates(base: _Path, tool: ToolDef) -> Iterator[tuple[_Path, str]]:
    # The values the stub renders (its kind says which: a template tool's response, rule
    # responses, state records and matches). A fixed response is returned as written, so braces
    # in it are not a template.
    for body in tool.rendered():
        if body.template and isinstance(body.value, str):
            yield (*base, *body.path), body.value
        else:
            yield from _strings((*base, *body.path), body.value)


def _strings(path: _Path, value: Any) -> Iterator[tuple[_Path, str]]:
    if isinstance(value, str):
        if has_template(value):
            yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings((*path, key), item)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _strings((*path, index), item)
