"""Help pages (issue 31): `-h` and `--help` on every command, an example at the foot of each page that
names that command with options it has, and `polygon --version`."""

from __future__ import annotations

import shlex
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from polygon.cli import app
from polygon.cli._app import COMMANDS, GROUPS
from polygon.cli._examples import EXAMPLES
from polygon_core import __version__

runner = CliRunner()
ALL = [*COMMANDS, *(f"{group} {sub}" for group, (_help, subs) in GROUPS.items() for sub in subs)]


def _command(words: list[str]) -> Any:
    """The click command `words` name (None when they name none)."""
    command: Any = typer.main.get_command(app)
    for word in words:
        command = getattr(command, "commands", {}).get(word)
        if command is None:
            return None
    return command


def test_every_command_has_an_example_and_every_example_a_command() -> None:
    assert sorted(EXAMPLES) == sorted(ALL)


@pytest.mark.parametrize("name", ALL)
def test_dash_h_shows_the_page_with_its_example(name: str) -> None:
    short = runner.invoke(app, [*name.split(), "-h"], env={"COLUMNS": "80"})
    long = runner.invoke(app, [*name.split(), "--help"], env={"COLUMNS": "80"})
    assert (short.exit_code, long.exit_code) == (0, 0), short.output
    assert short.output == long.output
    lines = [line.strip() for line in short.output.splitlines()]
    head = "Example:" if len(EXAMPLES[name]) == 1 else "Examples:"
    assert head in lines
    for example in EXAMPLES[name]:
        assert example in lines  # on a line of its own, unwrapped at 80 columns


@pytest.mark.parametrize("name", ALL)
def test_each_example_names_its_command_and_options_it_has(name: str) -> None:
    for example in EXAMPLES[name]:
        words = shlex.split(example, comments=True)
        assert words[0] == "polygon"
        assert words[1:1 + len(name.split())] == name.split()
        command = _command(name.split())
        assert command is not None
        options = {opt for param in command.params for opt in (*param.opts, *param.secondary_opts)}
        assert [w for w in words if w.startswith("-") and w not in options] == []


def test_a_group_page_has_an_example_of_its_first_command() -> None:
    out = runner.invoke(app, ["server", "-h"], env={"COLUMNS": "80"})
    assert out.exit_code == 0
    assert "polygon server start" in [line.strip() for line in out.output.splitlines()]


def test_version_names_the_package_formats_and_rubric() -> None:
    out = runner.invoke(app, ["--version"])
    assert out.exit_code == 0
    assert out.output == f"polygon {__version__} (formats: transcript 1, judgment 1, report 1; rubric v1)\n"
