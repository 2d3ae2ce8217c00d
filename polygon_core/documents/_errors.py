"""The errors Polygon reports about a user's files: each names the file, the line and the field."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")

PathPart = str | int

# Keys that read naturally after a dot; anything else (spaces, dots, non-string keys) is quoted in
# brackets so a path can always be read back unambiguously.
_PLAIN_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*$")


def format_path(path: Sequence[PathPart]) -> str | None:
    """Render a data path as `persona.difficulty`, `tools[1]` or `context["a b"]`; `()` → None."""
    out = ""
    for part in path:
        if isinstance(part, int) and not isinstance(part, bool):
            out += f"[{part}]"
        elif isinstance(part, str) and _PLAIN_KEY.match(part):
            out += f".{part}" if out else part
        else:
            out += f"[{json.dumps(part, ensure_ascii=False, default=str)}]"
    return out or None


class PolygonFileError(Exception):
    """One problem in one file, rendered on one line as `{file}:{line}: {field}: {message}`.

    `line` is 1-based; `line` and `field` are None when they do not apply (a missing file has no
    line, a YAML syntax error has no field).
    """

    def __init__(
        self,
        file: str,
        message: str,
        *,
        line: int | None = None,
        field: str | None = None,
    ) -> None:
        # Messages come from YAML, pydantic and user-written validators; a newline in one would
        # break the one-line contract that editors and CI annotations rely on.
        self.file = str(file)
        self.line = line
        self.field = field
        self.message = " ".join(str(message).split())
        super().__init__(str(self))

    def __str__(self) -> str:
        parts = [self.file if self.line is None else f"{self.file}:{self.line}"]
        if self.field:
            parts.append(self.field)
        parts.append(self.message)
        return ": ".join(parts)

    def __repr__(self) -> str:
        return (
            f"PolygonFileError(file={self.file!r}, line={self.line!r}, field={self.field!r}, "
            f"message={self.message!r})"
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PolygonFileError):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def _key(self) -> tuple[str, int | None, str | None, str]:
        return (self.file, self.line, self.field, self.message)


class FileErrors(Exception):
    """Every problem found while loading or validating files; `str()` has one line per error.

    Loaders raise this (never a bare PolygonFileError) so a caller catches one type and can show
    all problems at once instead of making the user fix them one run at a time.
    """

    def __init__(self, errors: Iterable[PolygonFileError]) -> None:
        self.errors: list[PolygonFileError] = dedupe(errors)
        if not self.errors:
            raise ValueError("FileErrors needs at least one error")
        super().__init__(str(self))

    def __str__(self) -> str:
        return "\n".join(str(e) for e in self.errors)

    def __iter__(self) -> Iterator[PolygonFileError]:
        return iter(self.errors)

    def __len__(self) -> int:
        return len(self.errors)


def dedupe(errors: Iterable[PolygonFileError]) -> list[PolygonFileError]:
    """Drop repeated errors (the same file reached twice), keeping the first occurrence's order."""
    seen: set[PolygonFileError] = set()
    out: list[PolygonFileError] = []
    for error in errors:
        if error not in seen:
            seen.add(error)
            out.append(error)
    return out


def raises_file_errors(function: Callable[P, R]) -> Callable[P, R]:
    """Make a loader raise FileErrors for a single PolygonFileError too: callers catch one type."""

    @functools.wraps(function)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return function(*args, **kwargs)
        except PolygonFileError as exc:
            raise FileErrors([exc]) from None

    return wrapper
