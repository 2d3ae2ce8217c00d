"""Key validation shared by every store, so a key valid in one store is valid in all."""

from __future__ import annotations

from pathlib import PurePosixPath


def check_key(key: str) -> str:
    """Return ``key`` normalised (no ``./``, no doubled ``/``) or raise ValueError.

    Keys are relative POSIX paths: no absolute paths, no ``..`` (which could escape a local
    root), no backslashes or NULs (which mean different things on different systems).
    """
    if not isinstance(key, str) or not key.strip():
        raise ValueError("artifact key must be a non-empty string")
    if "\\" in key or "\x00" in key:
        raise ValueError(f"artifact key {key!r} must use '/' separators and no NUL characters")
    path = PurePosixPath(key)
    first = path.parts[0] if path.parts else ""
    # A leading `C:` is a drive on Windows: it would escape a local root there.
    if path.is_absolute() or (len(first) >= 2 and first[0].isalpha() and first[1] == ":"):
        raise ValueError(f"artifact key {key!r} must be a relative path")
    if ".." in path.parts:
        raise ValueError(f"artifact key {key!r} must not contain '..'")
    normalised = path.as_posix()
    if normalised in ("", ".") or key.endswith("/"):
        raise ValueError(f"artifact key {key!r} must name a file, not a folder")
    return normalised


def check_prefix(prefix: str) -> str:
    """Validate a listing prefix: like a key, but may be empty and may end with ``/``."""
    if prefix == "":
        return ""
    if prefix.startswith("/"):
        raise ValueError(f"artifact prefix {prefix!r} must be a relative path")
    trailing = "/" if prefix.endswith("/") else ""
    return check_key(prefix.rstrip("/")) + trailing
