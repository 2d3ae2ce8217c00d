"""Turning pydantic's ValidationError into file errors: a line, a field path, a plain message."""

from __future__ import annotations

import difflib
import re
import types
import typing
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar, Union

from pydantic import BaseModel, Tag, ValidationError

from ..models import TAG_PREFIX
from ._errors import FileErrors, PathPart, PolygonFileError
from ._yaml import YamlDocument, describe

M = TypeVar("M", bound=BaseModel)

# What each pydantic type error expected, in words a scenario author uses.
_EXPECTED: dict[str, str] = {
    "int_type": "an integer",
    "int_parsing": "an integer",
    "int_from_float": "an integer",
    "float_type": "a number",
    "float_parsing": "a number",
    "string_type": "a string",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "list_type": "a list",
    "tuple_type": "a list",
    "set_type": "a list",
    "dict_type": "a mapping",
    "model_type": "a mapping",
    "model_attributes_type": "a mapping",
    "none_required": "null",
}

_BOUNDS: dict[str, str] = {
    "greater_than_equal": "must be at least {ge}",
    "greater_than": "must be greater than {gt}",
    "less_than_equal": "must be at most {le}",
    "less_than": "must be less than {lt}",
    "multiple_of": "must be a multiple of {multiple_of}",
}


def validate_document(doc: YamlDocument, model: type[M]) -> M:
    """Validate the document's data as `model`, raising FileErrors on failure.

    Every pydantic error becomes one PolygonFileError pointing at the line of the offending key.
    """
    try:
        return model.model_validate(doc.data)
    except ValidationError as exc:
        raise FileErrors(errors_from_validation(exc, doc, model)) from None


def errors_from_validation(
    exc: ValidationError, doc: YamlDocument, model: type[BaseModel]
) -> list[PolygonFileError]:
    """Map each error of `exc` (raised validating `doc.data` as `model`) onto the file."""
    grouped: dict[tuple[PathPart, ...], list[tuple[dict[str, Any], bool]]] = {}
    for error in exc.errors(include_url=False):
        path, truncated = _data_path(doc.data, error)
        grouped.setdefault(path, []).append((dict(error), truncated))

    out: list[PolygonFileError] = []
    for path, errors in grouped.items():
        union_branches = [e for e, truncated in errors if truncated]
        if len(union_branches) > 1:
            # One value failed every member of a union (`str | int | float | bool`): pydantic
            # reports each member; the author needs one line saying what would have been accepted.
            out.append(_union_error(doc, path, union_branches))
            others = [e for e, truncated in errors if not truncated]
        else:
            others = [e for e, _ in errors]
        for other in others:
            out.append(_one_error(doc, path, other, model))
    out.sort(key=lambda e: e.line or 0)
    return out


def _data_path(data: Any, error: Mapping[str, Any]) -> tuple[tuple[PathPart, ...], bool]:
    # pydantic's loc mixes data keys with schema labels (union member names such as 'str' or
    # 'function-after[...]', and '[key]' for a bad dict key); keep the prefix present in the data.
    # A tagged union's member tag (a tool's `kind=rules`) is no key of the file: it is skipped.
    loc = tuple(part for part in error["loc"] if not _is_tag(part))
    path: list[PathPart] = []
    current = data
    for i, part in enumerate(loc):
        if (isinstance(current, dict) and part in current) or (
            isinstance(current, list)
            and isinstance(part, int)
            and not isinstance(part, bool)
            and 0 <= part < len(current)
        ):
            current = current[part]
        else:
            if error["type"] == "missing" and i == len(loc) - 1 and isinstance(current, dict):
                return (*path, part), False
            return tuple(path), part != "[key]"
        path.append(part)
    return tuple(path), False


def _is_tag(part: Any) -> bool:
    return isinstance(part, str) and part.startswith(TAG_PREFIX)


def _one_error(
    doc: YamlDocument, path: tuple[PathPart, ...], error: dict[str, Any], model: type[BaseModel]
) -> PolygonFileError:
    kind = error["type"]
    value = error.get("input")
    ctx = error.get("ctx") or {}
    loc = tuple(error["loc"])  # tags kept: `_allowed_fields` picks the tagged member by them

    if kind == "missing":
        return doc.error(path, f"missing required field {loc[-1]!r}")
    if kind == "extra_forbidden":
        return doc.error(path, _unknown_field(str(loc[-1]), _allowed_fields(model, loc[:-1])))
    if loc and loc[-1] == "[key]":
        wanted = _EXPECTED.get(kind, "a string")
        return doc.error(path, f"expected keys to be {wanted}, got the key {describe(value)}")
    if kind in _EXPECTED:
        message = f"expected {_EXPECTED[kind]}, got {describe(value)}"
        if kind == "string_type" and isinstance(value, (int, float, bool)):
            message += " (put it in quotes to use it as text)"
        return doc.error(path, message)
    if kind == "literal_error":
        expected = str(ctx.get("expected", ""))
        message = f"expected {expected}, got {describe(value)}"
        choices = re.findall(r"'([^']*)'", expected)
        return doc.error(path, message + _suggestion(value, choices))
    if kind in _BOUNDS:
        return doc.error(path, f"{_BOUNDS[kind].format(**ctx)}, got {describe(value)}")
    if kind == "string_too_short":
        if ctx.get("min_length") == 1:
            return doc.error(path, "must not be empty")
        return doc.error(path, f"must have at least {ctx.get('min_length')} characters")
    if kind == "string_too_long":
        return doc.error(path, f"must have at most {ctx.get('max_length')} characters")
    if kind == "too_short":
        return doc.error(path, f"must have at least {ctx.get('min_length')} item(s)")
    if kind == "too_long":
        return doc.error(path, f"must have at most {ctx.get('max_length')} item(s)")
    if kind == "string_pattern_mismatch":
        return doc.error(
            path, f"{describe(value)} does not match the required pattern {ctx.get('pattern')}"
        )
    if kind in ("value_error", "assertion_error"):
        message = str(ctx.get("error") or "") or re.sub(
            r"^(Value error|Assertion failed), ", "", str(error.get("msg", "invalid value"))
        )
        return doc.error(_refine_path(doc, path, message), message)
    msg = str(error.get("msg", "invalid value"))
    return doc.error(path, f"{msg[:1].lower()}{msg[1:]}, got {describe(value)}")


def _union_error(
    doc: YamlDocument, path: tuple[PathPart, ...], errors: list[dict[str, Any]]
) -> PolygonFileError:
    expected: list[str] = []
    for error in errors:
        phrase = _EXPECTED.get(error["type"])
        if phrase == "true or false":  # "a number or true or false" reads badly in a list
            phrase = "a boolean"
        if phrase and phrase not in expected:
            expected.append(phrase)
    value = errors[0].get("input")
    if not expected:
        return doc.error(path, f"invalid value {describe(value)}")
    wanted = expected[0] if len(expected) == 1 else ", ".join(expected[:-1]) + " or " + expected[-1]
    return doc.error(path, f"expected {wanted}, got {describe(value)}")


def _refine_path(
    doc: YamlDocument, path: tuple[PathPart, ...], message: str
) -> tuple[PathPart, ...]:
    # A model-level validator reports at the model (`persona`, or the whole file); when its message
    # names exactly one of the keys the author wrote there, point at that key's line instead.
    target = _get(doc.data, path)
    if not isinstance(target, dict):
        return path
    keys = [k for k in target if isinstance(k, str)]
    for pattern in (r"[`'\"]{key}[`'\"]", r"(?<![\w-]){key}(?![\w-])"):
        named = [k for k in keys if re.search(pattern.format(key=re.escape(k)), message)]
        if len(named) == 1:
            return (*path, named[0])
        if named:
            break
    return path


def _get(data: Any, path: Sequence[PathPart]) -> Any:
    for part in path:
        data = data[part]
    return data


def _unknown_field(name: str, allowed: list[str] | None) -> str:
    message = f"unknown field {name!r}"
    if not allowed:
        return message
    return message + _suggestion(name, allowed) + f" (expected one of: {', '.join(allowed)})"


def _suggestion(value: Any, choices: Sequence[str]) -> str:
    if not isinstance(value, str) or not choices:
        return ""
    match = difflib.get_close_matches(value, list(choices), n=1, cutoff=0.6)
    if not match:
        lowered = {c.lower(): c for c in choices}
        match = [lowered[value.lower()]] if value.lower() in lowered else []
    return f"; did you mean {match[0]!r}?" if match else ""


def _allowed_fields(model: type[BaseModel], loc: Sequence[PathPart]) -> list[str] | None:
    """Field names of the model found at `loc` inside `model`, in declaration order."""
    target = _type_at(model, loc)
    if not (isinstance(target, type) and issubclass(target, BaseModel)):
        return None
    return [info.alias or name for name, info in target.model_fields.items()]


def _type_at(annotation: Any, loc: Sequence[PathPart]) -> Any:
    for part in loc:
        annotation = _strip_optional(annotation)
        origin = typing.get_origin(annotation)
        args = typing.get_args(annotation)
        if _is_tag(part):
            annotation = _tagged_member(annotation, str(part))
        elif isinstance(annotation, type) and issubclass(annotation, BaseModel):
            info = annotation.model_fields.get(str(part))
            if info is None:
                return None
            annotation = info.annotation
        elif origin in (list, tuple, set, Sequence) and args and isinstance(part, int):
            annotation = args[0]
        elif origin in (dict, Mapping) and len(args) == 2:
            annotation = args[1]
        else:
            return None
    return _strip_optional(annotation)


def _tagged_member(union: Any, tag: str) -> Any:
    """The member of a tagged union (`Annotated[X, Tag(tag)] | ...`) carrying `tag`, else None."""
    for member in typing.get_args(union):
        if typing.get_origin(member) is typing.Annotated and any(
            isinstance(meta, Tag) and meta.tag == tag for meta in typing.get_args(member)[1:]
        ):
            return typing.get_args(member)[0]
    return None


def _strip_optional(annotation: Any) -> Any:
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _strip_optional(typing.get_args(annotation)[0])
    if origin in (Union, types.UnionType):
        members = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(members) == 1:
            return _strip_optional(members[0])
    return annotation
