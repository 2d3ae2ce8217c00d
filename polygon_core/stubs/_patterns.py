"""Tool-argument validation whose `pattern` keywords run in linear time (RE2), whatever the input.

A tool's JSON Schema is user input, and so are the arguments checked against it: an agent's call,
or an imported call from a platform's export. Python's `re` backtracks, so a pattern such as
`^(a+)+$` against 40 characters stalls a run for minutes. Polygon matches `pattern` and
`patternProperties` with RE2 instead (no backtracking: time linear in the input), and refuses at
load time a pattern RE2 cannot run (backreferences, lookarounds), naming it. See docs/design.md,
"Hostile input".
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from typing import Any

import re2
from jsonschema import Draft202012Validator, ValidationError, validators

__all__ = ["UnsupportedPatternError", "pattern_problems", "tool_validator"]

# RE2's own memory cap per compiled pattern (bytes): a pattern whose automaton is bigger is refused.
_MAX_MEMORY = 8 << 20


def _options() -> Any:
    options = re2.Options()
    options.log_errors = False  # errors come back as exceptions; RE2 must not print to stderr
    options.max_mem = _MAX_MEMORY
    return options


class UnsupportedPatternError(ValueError):
    """A schema pattern RE2 cannot compile (the message names the pattern and the reason)."""


@functools.lru_cache(maxsize=1024)
def _compiled(pattern: str) -> Any:
    try:
        return re2.compile(pattern, options=_options())
    except re2.error as exc:
        reason = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        raise UnsupportedPatternError(
            f"pattern {pattern!r} cannot be matched in linear time ({reason}); Polygon matches "
            "tool-schema patterns with RE2, which has no backreferences or lookarounds") from None


def _problem(pattern: str) -> str | None:
    try:
        _compiled(pattern)
    except UnsupportedPatternError as exc:
        return str(exc)
    return None


# jsonschema matches patternProperties keys for unevaluatedProperties with Python's backtracking `re`.
_UNEVALUATED = ("unevaluatedProperties beside patternProperties is not supported in tool schemas (its "
                "key matching cannot run in linear time); use additionalProperties")


def _has_key(schema: Any, key: str) -> bool:
    if isinstance(schema, Mapping):
        return key in schema or any(_has_key(v, key) for v in schema.values())
    return isinstance(schema, list) and any(_has_key(v, key) for v in schema)


def pattern_problems(schema: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], str]]:
    """(path in the schema, message) for every `pattern` / `patternProperties` RE2 cannot run."""
    found: list[tuple[tuple[Any, ...], str]] = []
    if isinstance(schema, Mapping):
        for key, value in schema.items():
            here = (*path, key)
            if key == "pattern" and isinstance(value, str):
                problem = _problem(value)
                if problem:
                    found.append((here, problem))
            elif key == "unevaluatedProperties" and _has_key(schema, "patternProperties"):
                found.append((here, _UNEVALUATED))
            elif key == "patternProperties" and isinstance(value, Mapping):
                found.extend((here, p) for p in map(_problem, map(str, value)) if p)
                for sub_key, sub in value.items():
                    found.extend(pattern_problems(sub, (*here, sub_key)))
            else:
                found.extend(pattern_problems(value, here))
    elif isinstance(schema, list):
        for index, item in enumerate(schema):
            found.extend(pattern_problems(item, (*path, index)))
    return found


def _pattern(validator: Any, pattern: str, instance: Any, _schema: Any) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and not _compiled(pattern).search(instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(validator: Any, properties: Mapping[str, Any], instance: Any,
                        _schema: Any) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in properties.items():
        compiled = _compiled(pattern)
        for key, value in instance.items():
            if compiled.search(key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(validator: Any, additional: Any, instance: Any,
                           schema: Mapping[str, Any]) -> Iterator[ValidationError]:
    # jsonschema's own version joins the patternProperties keys into one Python regex: RE2 here.
    if not validator.is_type(instance, "object"):
        return
    properties = schema.get("properties", {})
    patterns = [_compiled(p) for p in schema.get("patternProperties", {})]
    extras = sorted((k for k in instance if k not in properties and not any(p.search(k) for p in patterns)),
                    key=str)
    if validator.is_type(additional, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], additional, path=extra)
    elif additional is False and extras:
        if "patternProperties" in schema:
            verb = "does" if len(extras) == 1 else "do"
            yield ValidationError(f"{', '.join(map(repr, extras))} {verb} not match any of the regexes: "
                                  f"{', '.join(map(repr, sorted(schema['patternProperties'])))}")
        else:
            verb = "was" if len(extras) == 1 else "were"
            yield ValidationError(f"Additional properties are not allowed "
                                  f"({', '.join(map(repr, extras))} {verb} unexpected)")


_LinearValidator = validators.extend(
    Draft202012Validator, {"pattern": _pattern, "patternProperties": _pattern_properties,
                           "additionalProperties": _additional_properties})


def tool_validator(schema: Mapping[str, Any]) -> Any:
    """A Draft 2020-12 validator for tool arguments, with formats checked and patterns run by RE2.

    The schema must have passed `pattern_problems` (the loaders and `check_tool` make sure of it).
    """
    return _LinearValidator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
