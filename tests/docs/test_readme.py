"""The README starts small and stays true (issue 31): at most 250 lines; every page in docs/ linked
from it; every relative link in it and in docs/ resolving, anchors included; and every command in
its shell blocks real. A `make` command names targets of the Makefile (not run: each is minutes);
a `polygon` command parses (its command, options and arguments exist, checked by Click's own
parser without running anything) and, when it needs no stored run and no Prefect server, runs for
real with an empty POLYGON_HOME; any other shell line runs as written. Commands run from a folder
holding what the README tells a newcomer to make (its `.venv` the venv running these tests, the
agent files of docs/agents.md), so each one runs as typed."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from typer._click.exceptions import ClickException  # Typer 0.29 carries its own copy of Click
from typer.core import TyperGroup

from polygon.cli import app
from tests.conftest import REPO
from tests.docs.test_agents_doc import doc_files

README = REPO / "README.md"
DOCS = REPO / "docs"
MAX_LINES = 250
SHELL_BLOCKS = {"bash", "sh", "shell", "console"}
FENCE = re.compile(r"^\s*```")
HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
LINK = re.compile(r"\[[^\]]*\]\(([^()\s]+)\)")
INLINE_CODE = re.compile(r"(`+).*?\1")
PLACEHOLDER = re.compile(r"^[A-Z][A-Z0-9_]*$")  # RUN, CONVERSATION, RUN_A: a value only a run gives
#: `polygon` commands that run here, needing neither a stored run nor a Prefect server; the others
#: (run, show, compare, …) parse only: a run starts a Prefect server (7-28 s) and simulates, and
#: tests/docs/test_agents_doc.py and the CLI tests run them on the same files.
RUN_HERE = {"validate", "runs", "schema"}


def pages() -> list[Path]:
    """The README and every Markdown page in docs/."""
    return [README, *sorted(DOCS.rglob("*.md"))]


def prose(text: str, *, code: bool = False) -> list[str]:
    """The lines of a Markdown text outside fenced code blocks, inline code taken out unless `code`."""
    lines: list[str] = []
    fenced = False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            lines.append(line if code else INLINE_CODE.sub("", line))
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation but `-` and `_` dropped, spaces → `-`."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading anchor of a Markdown file (a repeated heading's copies get -1, -2, … as on GitHub)."""
    seen: dict[str, int] = {}
    found: set[str] = set()
    for line in prose(path.read_text(encoding="utf-8"), code=True):
        match = HEADING.match(line)
        if match:
            base = slug(match.group(2))
            found.add(base if base not in seen else f"{base}-{seen[base]}")
            seen[base] = seen.get(base, 0) + 1
    return found


def relative_links(path: Path) -> list[str]:
    """The targets of a page's Markdown links that are neither web addresses nor mail."""
    targets = [t for line in prose(path.read_text(encoding="utf-8")) for t in LINK.findall(line)]
    return [t for t in targets if not re.match(r"^[a-z][a-z0-9+.-]*:", t)]


def broken(page: Path, target: str) -> str | None:
    """Why a relative link of `page` does not resolve (None when it does)."""
    file, _, anchor = target.partition("#")
    resolved = (page.parent / file).resolve() if file else page
    if not resolved.exists():
        return f"{page.name}: {target}: no such file"
    if anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
        return f"{page.name}: {target}: no heading with that anchor"
    return None


def test_the_readme_is_at_most_250_lines() -> None:
    assert len(README.read_text(encoding="utf-8").splitlines()) <= MAX_LINES


def test_every_docs_page_is_linked_from_the_readme() -> None:
    linked = {(REPO / t.partition("#")[0]).resolve() for t in relative_links(README) if t.partition("#")[0]}
    files = {p.resolve() for p in DOCS.rglob("*") if p.is_file()}
    assert sorted(str(p.relative_to(REPO)) for p in files - linked) == []


def test_the_guide_to_your_own_agent_is_on_the_first_screen() -> None:
    first_screen = "\n".join(README.read_text(encoding="utf-8").splitlines()[:25])
    assert "](docs/agents.md)" in first_screen


@pytest.mark.parametrize("page", pages(), ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_resolves(page: Path) -> None:
    assert [why for t in relative_links(page) if (why := broken(page, t))] == []


def test_the_link_checker_finds_a_missing_file_and_a_missing_anchor(tmp_path: Path) -> None:
    page = tmp_path / "a.md"
    page.write_text("# A title, with `code`\n\n## Twice\n\n## Twice\n", encoding="utf-8")
    assert anchors(page) == {"a-title-with-code", "twice", "twice-1"}
    (tmp_path / "b.md").write_text("# B\n", encoding="utf-8")
    assert [broken(page, t) for t in ("#twice-1", "b.md", "b.md#b", "./b.md")] == [None] * 4
    assert broken(page, "#twice-2") == "a.md: #twice-2: no heading with that anchor"
    assert broken(page, "b.md#a") == "a.md: b.md#a: no heading with that anchor"
    assert broken(page, "c.md") == "a.md: c.md: no such file"
    page.write_text("[x](c.md) `[y](d.md)` [web](https://e.org/f.md)\n```\n[z](g.md)\n```\n", encoding="utf-8")
    assert relative_links(page) == ["c.md"]


# --- the README's commands ----------------------------------------------------------------------


def readme_commands() -> list[str]:
    """Each command line of the README's shell blocks, continuation lines joined, in order."""
    commands: list[str] = []
    block: str | None = None
    pending = ""
    for line in README.read_text(encoding="utf-8").splitlines():
        opening = re.match(r"^\s*```(\w*)\s*$", line)
        if opening and block is None:
            block = opening.group(1)
            continue
        if opening:
            block = None
            continue
        if block not in SHELL_BLOCKS:
            continue
        pending += line.strip()
        if pending.endswith("\\"):
            pending = pending[:-1] + " "
            continue
        if pending and not pending.startswith("#"):
            commands.append(pending)
        pending = ""
    return commands


def make_targets() -> set[str]:
    """The Makefile's targets."""
    text = (REPO / "Makefile").read_text(encoding="utf-8")
    return set(re.findall(r"^([A-Za-z][\w.-]*)\s*:(?!=)", text, re.M))


def parse(words: list[str]) -> list[str]:
    """The command path `polygon WORDS` names, parsed by Click as the console script would parse it
    (unknown commands and options, missing or extra arguments and bad values raise), run nothing."""
    command: Any = typer.main.get_command(app)
    ctx = command.make_context("polygon", list(words))
    path: list[str] = []
    while isinstance(command, TyperGroup):
        name, command, rest = command.resolve_command(ctx, [*ctx._protected_args, *ctx.args])
        assert name is not None and command is not None
        path.append(name)
        ctx = command.make_context(name, rest, parent=ctx)
    return path


@pytest.fixture
def newcomer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder as the README's newcomer has it: `.venv` (the venv running these tests) and the agent
    files docs/agents.md shows; the current directory for the duration of the test."""
    (tmp_path / ".venv").symlink_to(Path(sys.executable).parents[1], target_is_directory=True)
    for name, body in doc_files().items():
        (tmp_path / name).write_text(body, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def check(line: str, folder: Path) -> tuple[str, str | None]:
    """How the README command `line` was checked ("make", "parsed", "ran") and why it failed (or None)."""
    words = shlex.split(line, comments=True)
    env = {**os.environ, "POLYGON_HOME": str(folder / "home")}
    if words[0] == "make":
        unknown = [w for w in words[1:] if "=" not in w and not w.startswith("-") and w not in make_targets()]
        return "make", (f"not a Makefile target: {unknown}" if unknown else None)
    if words[0] in ("polygon", ".venv/bin/polygon"):
        try:
            path = parse(words[1:])
        except (ClickException, typer.Exit) as exc:
            return "parsed", f"does not parse: {exc!r}"
        if path[0] not in RUN_HERE or any(PLACEHOLDER.match(w) for w in words[1:]):
            return "parsed", None
        exe = words[0] if words[0].startswith(".venv/") else str(Path(sys.executable).with_name("polygon"))
        argv = [exe, *words[1:]]
    else:
        argv = ["bash", "-c", line]
    out = subprocess.run(argv, cwd=folder, env=env, capture_output=True, text=True, timeout=120, check=False)
    return "ran", (None if out.returncode == 0 else f"exit {out.returncode}: {out.stderr[-500:]}")


def test_the_first_block_is_the_two_commands_and_ci_runs_the_same_test_command() -> None:
    commands = readme_commands()
    assert commands[:2] == ["make demo    # set up, then run the bundled demo: two agent versions on six "
                            "scenarios, compared",
                            "make test    # set up with the dev extras, then run the test suite (what CI runs)"]
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert "make test" in ci


def test_every_command_in_the_readme_runs_or_parses(newcomer: Path) -> None:
    results = [(line, *check(line, newcomer)) for line in readme_commands()]
    assert [(line, why) for line, _how, why in results if why] == []
    ran = [line.split("#")[0].strip() for line, how, _why in results if how == "ran"]
    assert ran == [
        "cp -r \"$(.venv/bin/python -c 'from polygon_core.demo import demo_dir; print(demo_dir())')/suite\" my-suite",
        ".venv/bin/polygon validate my-suite/ billing_agent.yaml",
        ".venv/bin/polygon runs",
    ]
    assert (newcomer / "my-suite" / "suite.yaml").is_file()


def test_a_command_with_an_unknown_option_or_command_is_caught(newcomer: Path) -> None:
    assert check("make tests", newcomer) == ("make", "not a Makefile target: ['tests']")
    how, why = check(".venv/bin/polygon run my-suite/ --agnet x.yaml", newcomer)
    assert how == "parsed" and why is not None and "--agnet" in why
    how, why = check("polygon shwo RUN", newcomer)
    assert how == "parsed" and why is not None and "shwo" in why
    how, why = check("polygon show RUN CONVERSATION EXTRA", newcomer)
    assert how == "parsed" and why is not None and "EXTRA" in why
    assert check("polygon compare RUN_A RUN_B -o report.html", newcomer) == ("parsed", None)
