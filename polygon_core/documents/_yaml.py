"""Reading YAML with the line of every key and item kept, so errors can point into the file.

PyYAML's `compose()` gives a node tree with positions; we construct the data from that tree and keep
an index from data path (`("persona", "goal")`, `("tools", 1)`) to line numbers.

Scalars follow YAML 1.2's core schema rather than PyYAML's YAML 1.1 defaults: `no`, `on`, `yes` stay
strings (a forbidden phrase `no` must not turn into False), `1:30` is not sexagesimal 90, `010` is
ten, and unquoted dates stay strings so the agent sees exactly the text the author wrote.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from yaml.composer import Composer
from yaml.constructor import ConstructorError, SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from yaml.parser import Parser
from yaml.reader import Reader, ReaderError
from yaml.resolver import BaseResolver
from yaml.scanner import Scanner

from ._errors import PathPart, PolygonFileError, format_path
from ._limits import MAX_FILE_BYTES, LimitedComposer, LimitExceeded

_DataPath = tuple[PathPart, ...]


class _CoreResolver(BaseResolver):
    """Implicit tags of the YAML 1.2 core schema (plus `<<` merge keys, which people use)."""


_CoreResolver.add_implicit_resolver(
    "tag:yaml.org,2002:null", re.compile(r"^(?:~|null|Null|NULL|)$"), ["~", "n", "N", ""]
)
_CoreResolver.add_implicit_resolver(
    "tag:yaml.org,2002:bool",
    re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
    list("tTfF"),
)
# int before float: the first matching resolver wins and "12" matches both patterns.
_CoreResolver.add_implicit_resolver(
    "tag:yaml.org,2002:int",
    re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$"),
    list("-+0123456789"),
)
_CoreResolver.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
    ),
    list("-+0123456789."),
)
_CoreResolver.add_implicit_resolver("tag:yaml.org,2002:merge", re.compile(r"^(?:<<)$"), ["<"])


class _Loader(LimitedComposer, Reader, Scanner, Parser, Composer, SafeConstructor, _CoreResolver):
    def __init__(self, stream: str) -> None:
        self.init_limits()
        Reader.__init__(self, stream)
        Scanner.__init__(self)
        Parser.__init__(self)
        Composer.__init__(self)
        SafeConstructor.__init__(self)
        _CoreResolver.__init__(self)


def _construct_int(loader: SafeConstructor, node: ScalarNode) -> int:
    # PyYAML's own int constructor reads `010` as octal 8 (YAML 1.1); core schema says decimal.
    text = str(loader.construct_scalar(node))
    try:
        if text.startswith("0o"):
            return int(text[2:], 8)
        if text.startswith("0x"):
            return int(text[2:], 16)
        return int(text.replace("_", ""), 10)
    except ValueError:
        raise ConstructorError(None, None, f"invalid integer {text!r}", node.start_mark) from None


# The stubs bind add_constructor's class to the constructor base alone, not to a composite loader.
_Loader.add_constructor("tag:yaml.org,2002:int", _construct_int)  # type: ignore[type-var]


@dataclass(frozen=True)
class _Position:
    line: int  # where the node itself starts
    key_line: int | None  # where its key is, for a mapping entry


@dataclass(frozen=True)
class YamlDocument:
    """Parsed YAML data plus the line of every key and list item in it.

    `data` holds plain Python values (dict, list, str, int, float, bool, None). Paths are tuples of
    mapping keys and list indexes, the same shape as a pydantic error's `loc`.
    """

    file: str
    data: Any
    root_line: int = 1
    _positions: dict[_DataPath, _Position] = field(default_factory=dict, repr=False)

    def has(self, path: Sequence[PathPart]) -> bool:
        """Whether `path` names a key or item present in the file."""
        return tuple(path) in self._positions

    def line_of(self, path: Sequence[PathPart]) -> int:
        """Line of `path`, or of its deepest ancestor present in the file (for a missing field).

        A mapping entry reports its key's line rather than its value's: for `persona:` followed by
        an indented block, or a `prompt: |` block scalar, the key is where the reader looks.
        """
        path = tuple(path)
        while path:
            position = self._positions.get(path)
            if position is not None:
                return position.key_line or position.line
            path = path[:-1]
        return self.root_line

    def error(self, path: Sequence[PathPart], message: str) -> PolygonFileError:
        """A PolygonFileError for `path` in this file."""
        return PolygonFileError(
            self.file, message, line=self.line_of(path), field=format_path(tuple(path))
        )


def parse_yaml(text: str, file: str) -> YamlDocument:
    """Parse one YAML document from `text`; `file` is the name used in errors.

    Raises PolygonFileError for invalid YAML (with the 1-based line of the problem), for a key
    repeated in one mapping (PyYAML would silently keep the last one) and for a document beyond the
    loader's limits (size, depth, alias expansion, recursive aliases: see `_limits`). An empty
    document gives `data=None`; callers decide whether that is allowed.
    """
    if len(text) > MAX_FILE_BYTES:
        raise PolygonFileError(file, _too_large(), line=text[:MAX_FILE_BYTES].count("\n") + 1)
    try:
        loader = _Loader(text)  # the reader rejects control characters up front
    except ReaderError as exc:
        raise _reader_error(exc, text, file) from None
    try:
        node = loader.get_single_node()
        if node is None:
            return YamlDocument(file=file, data=None)
        _check_duplicate_keys(loader, node, file)
        data = loader.construct_document(node)
        positions: dict[_DataPath, _Position] = {}
        _index(loader, node, (), None, positions, set())
        return YamlDocument(
            file=file, data=data, root_line=node.start_mark.line + 1, _positions=positions
        )
    except LimitExceeded as exc:
        raise PolygonFileError(file, exc.message, line=exc.line) from None
    except RecursionError:
        # The limits keep every recursion shallow; this is a last line of defence, never a crash.
        raise PolygonFileError(file, "nested too deeply to read") from None
    except yaml.MarkedYAMLError as exc:
        raise _syntax_error(exc, file) from None
    except ReaderError as exc:
        raise _reader_error(exc, text, file) from None
    except yaml.YAMLError as exc:
        raise PolygonFileError(file, f"invalid YAML: {exc}") from None
    finally:
        loader.dispose()


def _reader_error(exc: ReaderError, text: str, file: str) -> PolygonFileError:
    # Reader errors carry a character offset instead of a mark.
    line = text[: exc.position].count("\n") + 1
    code = exc.character if isinstance(exc.character, int) else ord(exc.character[:1] or "?")
    return PolygonFileError(file, f"invalid YAML: character U+{code:04X} is not allowed", line=line)


def read_yaml(path: Path, display: str | None = None) -> YamlDocument:
    """Read and parse the YAML file at `path`; errors name it as `display` (default: `path`)."""
    name = display if display is not None else str(path)
    return parse_yaml(read_text(path, name), name)


def _too_large() -> str:
    return f"the file is larger than {MAX_FILE_BYTES:,} bytes, the limit for Polygon files"


def read_text(path: Path, display: str | None = None) -> str:
    """Read a UTF-8 text file (a leading BOM is dropped), turning OS errors into file errors.

    At most `MAX_FILE_BYTES` are read: a larger file is refused, naming the line where the limit
    falls, without loading the rest of it.
    """
    name = display if display is not None else str(path)
    try:
        with path.open("rb") as stream:
            raw = stream.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise PolygonFileError(name, "no such file") from None
    except IsADirectoryError:
        raise PolygonFileError(name, "is a folder, expected a file") from None
    except OSError as exc:
        raise PolygonFileError(name, f"cannot read the file: {exc.strerror or exc}") from None
    if len(raw) > MAX_FILE_BYTES:
        raise PolygonFileError(name, _too_large(), line=raw[:MAX_FILE_BYTES].count(b"\n") + 1)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise PolygonFileError(
            name, f"not valid UTF-8 text (byte 0x{raw[exc.start]:02x})", line=line
        ) from None


def describe(value: Any) -> str:
    """A short YAML-flavoured description of a value for messages: `'five'`, `null`, `a list`."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        text = value if len(value) <= 40 else value[:37] + "..."
        return repr(text)
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, (list, tuple)):
        return "a list"
    return type(value).__name__


def _key_value(loader: _Loader, key: Node) -> Any:
    # Only scalar keys can be addressed by a path; `? [a, b]` keys are unhashable for PyYAML anyway.
    if not isinstance(key, ScalarNode):
        return None
    return loader.construct_object(key)


def _check_duplicate_keys(loader: _Loader, node: Node, file: str) -> None:
    # Runs on the composed tree before construction, while `<<` merge keys are still visible: a key
    # that overrides a merged one is intended and must not be reported.
    stack: list[tuple[Node, _DataPath]] = [(node, ())]
    seen: set[int] = set()
    while stack:
        current, path = stack.pop()
        if id(current) in seen:  # aliases make the tree a graph, possibly a cyclic one
            continue
        seen.add(id(current))
        if isinstance(current, MappingNode):
            first: dict[Any, int] = {}
            for key_node, value_node in current.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    stack.append((value_node, path))
                    continue
                key = _key_value(loader, key_node)
                stack.append((value_node, (*path, key)))
                if not isinstance(key_node, ScalarNode):
                    continue
                line = key_node.start_mark.line + 1
                try:
                    if key in first:
                        raise PolygonFileError(
                            file,
                            f"duplicate key {describe(key)} (first defined on line {first[key]})",
                            line=line,
                            field=format_path((*path, key)),
                        )
                    first[key] = line
                except TypeError:  # unhashable key: the constructor reports it
                    continue
        elif isinstance(current, SequenceNode):
            stack.extend((item, (*path, index)) for index, item in enumerate(current.value))


def _index(
    loader: _Loader,
    node: Node,
    path: _DataPath,
    key_line: int | None,
    out: dict[_DataPath, _Position],
    active: set[int],
) -> None:
    # After construction `<<` merges have been flattened into node.value (merged pairs first), so
    # inserting in order lets a key written in this mapping win over a merged one, as in the data.
    out[path] = _Position(line=node.start_mark.line + 1, key_line=key_line)
    if id(node) in active:  # a recursive alias: index it once, do not descend forever
        return
    active.add(id(node))
    if isinstance(node, MappingNode):
        for key_node, value_node in node.value:
            key = _key_value(loader, key_node)
            try:
                hash(key)
            except TypeError:
                continue
            _index(loader, value_node, (*path, key), key_node.start_mark.line + 1, out, active)
    elif isinstance(node, SequenceNode):
        for index, item in enumerate(node.value):
            _index(loader, item, (*path, index), None, out, active)
    active.discard(id(node))


_UNCLOSED = {
    "while parsing a flow sequence": "'[' is never closed",
    "while parsing a flow mapping": "'{' is never closed",
    "while scanning a quoted scalar": "quoted string is never closed",
}


def _syntax_error(exc: yaml.MarkedYAMLError, file: str) -> PolygonFileError:
    problem = (exc.problem or "invalid YAML").strip()
    problem_line = exc.problem_mark.line + 1 if exc.problem_mark else None
    context_line = exc.context_mark.line + 1 if exc.context_mark else None
    context = (exc.context or "").strip()

    # An unclosed bracket or quote is only noticed lines later; the line that needs fixing is
    # where it was opened, so report that one and say where the parser gave up.
    if context in _UNCLOSED and context_line is not None:
        detail = f"{problem} on line {problem_line}" if problem_line else problem
        return PolygonFileError(
            file, f"invalid YAML: {_UNCLOSED[context]} ({detail})", line=context_line
        )
    if context == "expected a single document in the stream":
        return PolygonFileError(
            file,
            "invalid YAML: the file holds more than one document ('---'); expected one",
            line=problem_line,
        )
    if problem.startswith("expected <block end>"):
        message = "bad indentation: this line does not line up with the lines above it"
    elif problem == "mapping values are not allowed here":
        message = (
            "mapping values are not allowed here (quote a value that contains ': ', "
            "or check the indentation)"
        )
    elif "'\\t'" in problem:
        message = "a tab character; YAML indentation must use spaces"
    else:
        message = problem
    return PolygonFileError(file, f"invalid YAML: {message}", line=problem_line or context_line)


def require_mapping(doc: YamlDocument, what: str) -> dict[str, Any]:
    """The document's top level as a mapping, or a clear error naming what the file should be."""
    if doc.data is None:
        raise PolygonFileError(doc.file, f"the file is empty; expected {what} (a YAML mapping)")
    if not isinstance(doc.data, dict):
        raise PolygonFileError(
            doc.file,
            f"expected {what} (a YAML mapping of fields) at the top level, "
            f"got {describe(doc.data)}",
            line=doc.root_line,
        )
    return doc.data
