"""The `polygon` command line."""

from __future__ import annotations

import gc
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._app import app
    from ._infra import infrastructure_error

__all__ = ["CLI_GC_THRESHOLD", "app", "infrastructure_error", "main"]

# A command imports Prefect, the SDKs and Polygon (hundreds of thousands of long-lived objects):
# with the default thresholds the cyclic collector runs hundreds of times while they load, each
# pass walking them again. Collections are rarer for the command's life (its start-up is a good
# part of a short run's CPU); a run's conversation loop sets its own (`usecases.run_bounded`).
CLI_GC_THRESHOLD = (50_000, 20, 20)


def main() -> None:
    """Console-script entry point (`[project.scripts]`): the command, with the collector tuned from
    before its imports to its end, and put back after. Importing `polygon.cli` (the web server, tests,
    a library) tunes nothing."""
    before = gc.get_threshold()
    gc.set_threshold(*CLI_GC_THRESHOLD)
    try:
        from ._app import main as run_command  # the imports the thresholds are for

        run_command()
    finally:
        gc.set_threshold(*before)


def __getattr__(name: str) -> Any:
    """`app` (the Typer application), imported on first use so that `main` tunes the collector first;
    `infrastructure_error` (the rule the web app answers 503 by), without importing the commands."""
    if name == "app":
        from ._app import app

        return app
    if name == "infrastructure_error":
        from ._infra import infrastructure_error

        return infrastructure_error
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
