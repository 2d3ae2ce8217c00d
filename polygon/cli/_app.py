"""`polygon`: run suites, inspect results, compare versions. Thin over the flows and use cases.

Every command is a plain function in a `_cmd_<area>.py` module (importable, callable, found by
tools); this module is the one place that names them and registers them, in `--help` order. A new
command is a function in its area's module plus one line in `COMMANDS` (or in a group below).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import typer

from . import (
    _cmd_analyze,
    _cmd_calibrate,
    _cmd_compare,
    _cmd_deploy,
    _cmd_files,
    _cmd_import,
    _cmd_personas,
    _cmd_prompt,
    _cmd_replay,
    _cmd_run,
    _cmd_runs,
    _cmd_scoring,
    _cmd_serve,
    _cmd_server,
    _cmd_sources,
    _cmd_sweep,
)
from ._base import RegistryHelpCommand, console, err, friendly

__all__ = ["COMMANDS", "GROUPS", "app", "console", "err", "friendly", "main"]

#: name → function, top-level commands in `--help` order.
COMMANDS: dict[str, Callable[..., Any]] = {
    "demo": _cmd_run.demo,
    "run": _cmd_run.run,
    "runs": _cmd_runs.list_runs,
    "show": _cmd_runs.show,
    "compare": _cmd_compare.compare,
    "rescore": _cmd_scoring.rescore,
    "probe": _cmd_scoring.probe,
    "replay": _cmd_replay.replay,
    "sweep": _cmd_sweep.sweep,
    "calibrate": _cmd_calibrate.calibrate,
    "import": _cmd_import.import_,
    "grade-calls": _cmd_import.grade_calls,
    "analyze-prompt": _cmd_analyze.analyze_prompt_cmd,
    "validate": _cmd_files.validate,
    "schema": _cmd_files.schema,
    "serve": _cmd_serve.serve,
    "deploy": _cmd_deploy.deploy,
}

#: group name → (help, {subcommand name → function}).
GROUPS: dict[str, tuple[str, dict[str, Callable[..., Any]]]] = {
    "personas": ("Simulated callers generated from an agent's prompt.", {
        "generate": _cmd_personas.generate,
        "list": _cmd_personas.list_personas,
        "export": _cmd_personas.export,
        "import": _cmd_personas.import_,
        "pin": _cmd_personas.pin,
    }),
    "prompt": ("Prompt versions and their re-evaluation.", {"commit": _cmd_prompt.commit}),
    "db": ("Database maintenance.", {"upgrade": _cmd_files.db_upgrade}),
    "sources": ("Where production calls come from (webhooks, S3).", {"validate": _cmd_sources.validate}),
    "server": ("A long-lived local Prefect server: every command uses it instead of a temporary one.", {
        "start": _cmd_server.start, "stop": _cmd_server.stop, "status": _cmd_server.status}),
}


def build_app() -> typer.Typer:
    """The `polygon` Typer app with every command of COMMANDS and GROUPS."""
    root = typer.Typer(add_completion=False, no_args_is_help=True,
                       help="Polygon: grade whole conversations of voice and chat agents.")
    for name, fn in COMMANDS.items():
        root.command(name, cls=RegistryHelpCommand)(fn)
    for group, (help_text, commands) in GROUPS.items():
        sub = typer.Typer(no_args_is_help=True, help=help_text)
        for name, fn in commands.items():
            sub.command(name, cls=RegistryHelpCommand)(fn)
        root.add_typer(sub, name=group)
    return root


app = build_app()


def main() -> None:
    """Console-script entry point."""
    app(prog_name="polygon")


if __name__ == "__main__":  # pragma: no cover
    main()
