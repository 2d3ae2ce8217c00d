"""What a scheduled grading of production exports says about its import: each rejected line's
reason (bounded), the Prefect artifact's text, and the failure of a window whose every call was
rejected (nothing was graded, and a green run would hide it)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["MAX_REJECTIONS_SHOWN", "AllCallsRejectedError", "all_production_rejected", "production_import_markdown",
           "production_rejections"]

#: Rejected lines whose reasons are logged and published; the rest are counted.
MAX_REJECTIONS_SHOWN = 20


class AllCallsRejectedError(Exception):
    """Every call read from the production source was rejected: nothing of it can be graded."""


def production_rejections(imported: Mapping[str, Any], limit: int = MAX_REJECTIONS_SHOWN) -> list[str]:
    """The first `limit` rejection reasons of an import summary, then how many more there are."""
    errors = [str(e) for e in imported.get("errors", [])]
    lines = errors[:limit]
    if len(errors) > limit:
        lines.append(f"… and {len(errors) - limit} more")
    return lines


def all_production_rejected(source: str, imported: Mapping[str, Any], fmt: str | None, *,
                            format_option: str = "`polygon deploy --production-format`") -> AllCallsRejectedError | None:
    """The error to fail the run with when every call read was rejected (None otherwise, or when
    nothing was read); it names the first reason and where the format came from, and the option
    that sets one where it was asked (`format_option`: the deployment's, or the command's)."""
    read, rejected = int(imported.get("read", 0)), int(imported.get("rejected", 0))
    if read == 0 or rejected < read:
        return None
    first = next(iter(imported.get("errors", [])), "no reason recorded")
    how = (f"read as {fmt}" if fmt else
           f"each file read in the format its name says; {format_option} sets one")
    return AllCallsRejectedError(f"every call read from {source} was rejected ({rejected} of {read}, {how}); "
                                 f"the first: {first}")


def production_import_markdown(source: str, since: str, until: str, imported: Mapping[str, Any], fmt: str | None) -> str:
    """The Prefect artifact of a production source's import: counts and the rejected lines' reasons."""
    lines = [f"# Production calls imported from {source}", "",
             f"Window graded: {since} to {until}; format: {fmt or 'from each file name'}.", "",
             "| read | new | duplicates | rejected |", "|---:|---:|---:|---:|",
             f"| {imported.get('read', 0)} | {imported.get('imported', 0)} | {imported.get('duplicates', 0)} "
             f"| {imported.get('rejected', 0)} |"]
    reasons = production_rejections(imported)
    if reasons:
        lines += ["", f"Rejected (first {MAX_REJECTIONS_SHOWN}):", *[f"- {r}" for r in reasons]]
    lines += ["", "Counts are of the calls (lines, array items or rows) in the files under the source; a "
              "duplicate is a call already imported under the same id."]
    return "\n".join(lines) + "\n"
