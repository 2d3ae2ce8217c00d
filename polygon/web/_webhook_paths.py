"""Containment of the paths a webhook names: each must resolve inside a configured root.

A signed webhook still comes from outside (a leaked secret, a compromised CI job), and the paths it
carries are opened by the workers the emitted event starts. So `../` escapes, absolute paths
elsewhere and symlinks that lead out of the checkout are refused before any event is emitted.
The check is lexical plus ``Path.resolve()``: a path need not exist yet (a push may add a file the
server's checkout does not have), but every existing symlink on it is followed.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

__all__ = ["OutsideRootsError", "check_inside", "inside_roots"]


class OutsideRootsError(ValueError):
    """A payload path resolves outside every webhook root. The message names the field only."""

    def __init__(self, field: str) -> None:
        super().__init__(f"{field} is outside the webhook roots (POLYGON_WEBHOOK_ROOTS)")
        self.field = field


def inside_roots(path: str, roots: Iterable[Path]) -> bool:
    """Whether `path` (relative to a root, or absolute) resolves inside one of `roots` (resolved).

    A relative path is tried against each root in turn; an absolute one must lie inside one.
    """
    if not path or "\x00" in path:
        return False
    for root in roots:
        try:
            resolved = (root / path).resolve()
        except (OSError, RuntimeError, ValueError):  # a symlink loop, a name too long for the OS
            continue
        if resolved == root or resolved.is_relative_to(root):
            return True
    return False


def check_inside(fields: Iterable[tuple[str, str | None]], roots: list[Path]) -> None:
    """Raise OutsideRootsError for the first (field name, path) outside `roots`; None paths pass."""
    for field, path in fields:
        if path is not None and not inside_roots(path, roots):
            raise OutsideRootsError(field)
