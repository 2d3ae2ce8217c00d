"""`polygon init`: a starter suite, tool library and Python agent from your prompt, validated, with the next steps."""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from ._base import console, err, friendly
from ._cmd_run import polygon_command

if TYPE_CHECKING:  # the CLI imports the use cases when a command runs
    from polygon import usecases


def _shown(path: Path) -> str:
    """A path as the user types it from here: relative when under the current folder."""
    absolute = path.absolute()
    try:
        return str(absolute.relative_to(Path.cwd()))
    except ValueError:
        return str(absolute)


@friendly
def init(folder: Annotated[Path, typer.Argument(help="folder to write into (created if missing)")] = Path("."),
         prompt: Annotated[Path | None, typer.Option(
             "--prompt", "-p", help="your agent's prompt, a text file (English or Russian); without it, a "
                                    "bicycle repair shop's example prompt is written to prompt.txt")] = None,
         force: Annotated[bool, typer.Option("--force", help="overwrite files that exist")] = False,
         count: Annotated[int, typer.Option(min=1, max=50, help="scenarios to write")] = 6,
         ) -> None:
    """Write a small working suite, tool library and Python agent for your domain from your prompt
    (offline: no key), validate them and print the next three commands."""
    from polygon import usecases

    report = usecases.init_folder(folder, prompt, force=force, count=count)
    starter = report.starter
    source = _shown(prompt) if prompt is not None else "the example prompt (a bicycle repair shop)"
    console.print(f"Wrote {len(report.written)} files from {source}: {len(starter.scenarios)} scenarios, "
                  f"tools {', '.join(starter.tools)}", highlight=False, soft_wrap=True)
    for path in report.written:
        console.print(f"  {_shown(path)}", highlight=False, soft_wrap=True)
    for error in report.errors:  # never expected: the files were just written to pass
        err.print(f"[red]error:[/] {escape(str(error))}", markup=True, highlight=False, soft_wrap=True)
    for warning in report.warnings:
        err.print(f"[yellow]warning:[/] {escape(str(warning))}", markup=True, highlight=False, soft_wrap=True)
    if report.errors or report.run_id is None:
        raise typer.Exit(2)
    console.print("validated: the suite and the agent file are valid", highlight=False)
    _next_steps(report)


def _next_steps(report: usecases.InitReport) -> None:
    """The three commands to type next, as typed from here (`.venv/bin/polygon` when `polygon` is
    not on PATH, as the demo's closing lines)."""
    exe = polygon_command()
    suite, agent = shlex.quote(_shown(report.suite)), shlex.quote(_shown(report.agent))
    steps = [("check the files (nothing runs):", f"{exe} validate {suite} {agent}"),
             (f"run your agent on the {len(report.starter.scenarios)} scenarios (offline):",
              f"{exe} run {suite} --agent {agent} --run-id {report.run_id}"),
             ("read the first conversation turn by turn:",
              f"{exe} show {report.run_id} {report.first_conversation}")]
    console.print("\nNext steps:", highlight=False)
    for why, command in steps:
        console.print(f"# {why}\n{command}", highlight=False, soft_wrap=True)  # never broken: copied whole
    console.print(f"(then edit {_shown(report.agent.with_suffix('.py'))}, and run again without --run-id: "
                  "a run id names one version of the agent)", highlight=False, soft_wrap=True)
    if exe != "polygon":  # the shell would not find a bare `polygon` here
        console.print(f"(or `source {os.path.dirname(exe)}/activate` first, then type `polygon …`)",
                      highlight=False, soft_wrap=True)

