"""The retry condition of the tasks that read the user's files (agents, suites, sweep specs,
sources files, call exports).

A file that is missing or does not validate (PolygonFileError, FileErrors) fails the same way on
every try: retrying it only delays the failure and buries its file:line reason under retries.
Anything else (a dropped connection, a store that did not answer) is still retried.
"""

from __future__ import annotations

from typing import Any

from polygon_core.files import FileErrors, PolygonFileError

__all__ = ["BAD_INPUT", "retry_unless_bad_input"]

#: The errors of a bad input file: never retried.
BAD_INPUT: tuple[type[BaseException], ...] = (FileErrors, PolygonFileError)


def retry_unless_bad_input(_task: Any, _task_run: Any, state: Any) -> bool:
    """Prefect's `retry_condition_fn`: False (fail now) when the failure, or what caused it, is a
    bad input file."""
    error: BaseException | None = state.result(raise_on_failure=False)
    seen: set[int] = set()
    while isinstance(error, BaseException) and id(error) not in seen:
        if isinstance(error, BAD_INPUT):
            return False
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return True
