"""Stateful stubs: read, append and update records at a dotted path of the environment state."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from ..models import StateOp
from ._errors import StubError
from ._templates import TemplateRenderer

_MISSING = object()


def _segments(path: str) -> list[str]:
    parts = path.split(".")
    if not path or any(not part for part in parts):
        raise StubError(f"bad state path {path!r}")
    return parts


def _step(container: Any, part: str) -> Any:
    if isinstance(container, Mapping):
        return container.get(part, _MISSING)
    if isinstance(container, list) and part.lstrip("-").isdigit():
        index = int(part)
        return container[index] if -len(container) <= index < len(container) else _MISSING
    return _MISSING


def get_path(state: Mapping[str, Any], path: str) -> Any:
    """The value at dotted `path` (list items by integer index), or `None` when absent."""
    value: Any = state
    for part in _segments(path):
        value = _step(value, part)
        if value is _MISSING:
            return None
    return value


def _list_at(state: dict[str, Any], path: str) -> list[Any]:
    """The list at `path`, creating it (and missing parent mappings) when absent."""
    parts = _segments(path)
    container: Any = state
    for part in parts[:-1]:
        child = _step(container, part)
        if child is _MISSING:
            if not isinstance(container, dict):
                raise StubError(f"state path {path!r}: {part!r} is not a mapping key")
            child = container[part] = {}
        container = child
    last = parts[-1]
    target = _step(container, last)
    if target is _MISSING:
        if not isinstance(container, dict):
            raise StubError(f"state path {path!r}: {last!r} is not a mapping key")
        target = container[last] = []
    if not isinstance(target, list):
        raise StubError(f"state path {path!r} holds {type(target).__name__}, not a list")
    return target


def _normal(value: Any) -> Any:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return value.strip()
    return value


def values_match(actual: Any, expected: Any) -> bool:
    """Loose equality for `match`: 49, 49.0 and "49.00" match; strings compare stripped."""
    if actual == expected:
        return True
    try:
        return bool(_normal(actual) == _normal(expected))
    except TypeError:
        return False


class StateEngine:
    """Applies one tool's `StateOp` to the shared (mutable) environment state."""

    def __init__(self, renderer: TemplateRenderer) -> None:
        self._renderer = renderer

    def apply(self, op: StateOp, state: dict[str, Any], args: Mapping[str, Any]) -> Any:
        """Run `op` and return the tool's answer.

        * read: the value at `path` (a copy); with `match`, the list of matching records;
        * append: `{"ok": True, "record": <the stored record>}`;
        * update: `{"ok": True, "updated": <number of records changed>}`.
        """
        context = {"args": args, "state": state}
        if op.op == "read":
            value = get_path(state, op.path)
            if op.match:
                criteria = self._criteria(op, context)
                records = value if isinstance(value, list) else [] if value is None else [value]
                return [copy.deepcopy(r) for r in records if self._matches(r, criteria)]
            return copy.deepcopy(value)
        if op.op == "append":
            record = self._renderer.render_deep(op.record or {}, context)
            _list_at(state, op.path).append(record)
            return {"ok": True, "record": copy.deepcopy(record)}
        # update
        criteria = self._criteria(op, context)
        changes = self._renderer.render_deep(op.record or {}, context)
        target = get_path(state, op.path)
        records = target if isinstance(target, list) else [] if target is None else [target]
        updated = 0
        for record in records:
            if isinstance(record, dict) and self._matches(record, criteria):
                record.update(copy.deepcopy(changes))
                updated += 1
        return {"ok": True, "updated": updated}

    def _criteria(self, op: StateOp, context: Mapping[str, Any]) -> dict[str, Any]:
        return {
            field: self._renderer.render_value(template, context)
            for field, template in (op.match or {}).items()
        }

    @staticmethod
    def _matches(record: Any, criteria: Mapping[str, Any]) -> bool:
        if not criteria:
            return True
        if not isinstance(record, Mapping):
            return False
        return all(
            field in record and values_match(record[field], expected)
            for field, expected in criteria.items()
        )
