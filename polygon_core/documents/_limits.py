"""Resource limits of Polygon's YAML loader: size, nesting depth and alias expansion.

A scenario, agent or tool file is small hand-written data, so the limits are far above any real
file and far below what would hang the process. They are enforced while PyYAML composes the node
tree, before anything recurses or expands:

* a document of more than `MAX_NODES` values is refused as soon as the composer reaches that many;
* a file larger than `MAX_FILE_BYTES` is refused before it is parsed (read in bounded chunks, so a
  huge file is never loaded into memory);
* nesting deeper than `MAX_DEPTH` (brackets, braces or indented blocks) is refused as soon as the
  composer reaches that depth: PyYAML's composer and constructor recurse once per level, so 20,000
  nested brackets would otherwise end in a RecursionError;
* aliases are counted as what they expand to: a document whose values, once every alias is
  expanded, exceed `MAX_EXPANDED_NODES` values or `MAX_EXPANDED_CHARS` characters of text is
  refused (an alias bomb of nine aliases per level, ten levels deep, expands to 3.5 billion
  values; the validators and the serialisers downstream walk the expanded tree);
* an alias to a mapping or list that contains it (a recursive alias) is refused: Polygon's data is
  JSON-shaped, and a cycle would crash serialisation in the middle of a run.
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.events import AliasEvent, CollectionStartEvent
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

MAX_FILE_BYTES = 1024 * 1024
"""Largest YAML file (and prompt file) read, in bytes: 1 MiB."""

MAX_DEPTH = 100
"""Deepest nesting of mappings and lists, counted after aliases are expanded."""

MAX_NODES = 20_000
"""Most values (scalars, mappings and lists) written in one document. This is what bounds the time
a file takes to read: PyYAML's pure-Python parser (kept for its error messages) spends 50-90 µs per
value on a busy 2-core machine, so reaching the limit costs under 2 s."""

MAX_EXPANDED_NODES = 100_000
"""Most values in one document after aliases are expanded (what the validators walk)."""

MAX_EXPANDED_CHARS = 4 * 1024 * 1024
"""Most characters of scalar text in one document after aliases are expanded."""


class LimitExceeded(yaml.YAMLError):
    """A document broke one of the loader's limits; `line` is the 1-based line where it did."""

    def __init__(self, message: str, line: int | None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


def _line(mark: Any) -> int | None:
    return mark.line + 1 if mark is not None else None


class LimitedComposer:
    """A mixin for a PyYAML loader (before `Composer` in the bases) that enforces the limits.

    Every composed node's expanded size (values, characters) and depth are recorded by node id as
    the composer finishes it; an alias contributes the recorded figures of its anchor, so the cost
    of expansion is known without expanding anything.
    """

    def init_limits(self) -> None:
        """Reset the counters (call from the loader's `__init__`)."""
        self._depth = 0
        self._composed = 0
        self._open_anchors: set[str] = set()
        self._figures: dict[int, tuple[int, int, int]] = {}  # id → (values, chars, depth)

    def compose_node(self, parent: Node | None, index: Any) -> Node:
        """Compose one node, refusing it when it breaks a limit (see the module docstring)."""
        event = self.peek_event()  # type: ignore[attr-defined]
        if isinstance(event, AliasEvent) and event.anchor in self._open_anchors:
            raise LimitExceeded(
                f"recursive alias *{event.anchor}: it refers to a mapping or list that contains "
                "it (Polygon's data cannot hold a cycle)",
                _line(event.start_mark),
            )
        if self._depth >= MAX_DEPTH:
            raise LimitExceeded(
                f"nested more than {MAX_DEPTH} levels deep (the limit for Polygon files)",
                _line(event.start_mark),
            )
        if not isinstance(event, AliasEvent):
            self._composed += 1
            if self._composed > MAX_NODES:
                raise LimitExceeded(
                    f"holds more than {MAX_NODES:,} values (the limit for Polygon files)",
                    _line(event.start_mark),
                )
        opened = event.anchor if isinstance(event, CollectionStartEvent) else None
        if opened is not None:
            self._open_anchors.add(opened)
        self._depth += 1
        try:
            node: Node = super().compose_node(parent, index)  # type: ignore[misc]
        finally:
            self._depth -= 1
            if opened is not None:
                self._open_anchors.discard(opened)
        if id(node) not in self._figures:
            self._record(node)
        return node

    def _record(self, node: Node) -> None:
        values, chars, depth = 1, 0, 1
        if isinstance(node, ScalarNode):
            chars = len(node.value)
        else:
            children: list[Node] = []
            if isinstance(node, SequenceNode):
                children = list(node.value)
            elif isinstance(node, MappingNode):
                children = [part for pair in node.value for part in pair]
            for child in children:
                child_values, child_chars, child_depth = self._figures[id(child)]
                values += child_values
                chars += child_chars
                depth = max(depth, child_depth + 1)
        where = _line(node.start_mark)
        if values > MAX_EXPANDED_NODES:
            raise LimitExceeded(
                f"expands to more than {MAX_EXPANDED_NODES:,} values once aliases are expanded "
                "(an alias bomb?); write the data out or use fewer aliases",
                where,
            )
        if chars > MAX_EXPANDED_CHARS:
            raise LimitExceeded(
                f"expands to more than {MAX_EXPANDED_CHARS // (1024 * 1024)} MiB of text once "
                "aliases are expanded (an alias bomb?)",
                where,
            )
        if depth > MAX_DEPTH:
            raise LimitExceeded(
                f"nested more than {MAX_DEPTH} levels deep once aliases are expanded "
                "(the limit for Polygon files)",
                where,
            )
        self._figures[id(node)] = (values, chars, depth)
