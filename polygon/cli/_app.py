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
    _cmd_init,
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
from ._examples import epilog

__all__ = ["COMMANDS", "GROUPS", "app", "console", "err", "friendly", "main"]

#: name → function, top-level commands in `--help` order.
COMMANDS: dict[str, Callable[..., Any]] = {
    "demo": _cmd_run.demo,
    "init": _cmd_init.init,
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


#: `-h` as well as `--help`, on every command (subcommands inherit their group's context settings).
_HELP = {"help_option_names": ["-h", "--help"]}


def version_line() -> str:
    """`polygon --version`: the package's version, the stored-format versions and the default rubric."""
    from polygon_core import __version__
    from polygon_core.models import FORMAT_VERSIONS
    from polygon_core.scoring import DEFAULT_RUBRIC_VERSION

    formats = ", ".join(f"{kind} {number}" for kind, number in FORMAT_VERSIONS.items())
    return f"polygon {__version__} (formats: {formats}; rubric {DEFAULT_RUBRIC_VERSION})"


def _show_version(value: bool) -> None:
    if value:
        typer.echo(version_line())
        raise typer.Exit()


def _root_options(
    version: bool = typer.Option(False, "--version", callback=_show_version, is_eager=True,
                                 help="Print the version (and the file-format and rubric versions) and exit."),
) -> None:
    """Polygon: grade whole conversations of voice and chat agents."""


def build_app() -> typer.Typer:
    """The `polygon` Typer app with every command of COMMANDS and GROUPS."""
    root = typer.Typer(add_completion=False, no_args_is_help=True, context_settings=_HELP,
                       help="Polygon: grade whole conversations of voice and chat agents.",
                       epilog=epilog("run"))
    root.callback()(_root_options)
    for name, fn in COMMANDS.items():
        root.command(name, cls=RegistryHelpCommand, epilog=epilog(name))(fn)
    for group, (help_text, commands) in GROUPS.items():
        sub = typer.Typer(no_args_is_help=True, help=help_text, context_settings=_HELP,
                          epilog=epilog(f"{group} {next(iter(commands))}"))
        for name, fn in commands.items():
            sub.command(name, cls=RegistryHelpCommand, epilog=epilog(f"{group} {name}"))(fn)
        root.add_typer(sub, name=group)
    return root


app = build_app()


def main() -> None:
    """Console-script entry point."""
    app(prog_name="polygon")


if __name__ == "__main__":  # pragma: no cover
    main()
