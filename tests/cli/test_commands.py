"""The command table: every command importable and registered in one place; `runs` and `show`
in JSON and with a hint when nothing is stored; `personas list --stale` against an agent file;
`--scenario` refusals; `-o` refusals before anything runs."""

from __future__ import annotations

import importlib
import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polygon.cli import app
from polygon.cli._app import COMMANDS, GROUPS
from polygon.cli._running import select_scenarios
from polygon_core.demo import demo_dir

runner = CliRunner()
SUITE = demo_dir() / "suite"


def test_every_command_is_a_module_level_function_registered_once() -> None:
    registered = {c.name: c.callback for c in app.registered_commands}
    assert sorted(registered) == sorted(COMMANDS)
    for name, fn in [*COMMANDS.items(), *((n, f) for _h, cmds in GROUPS.values() for n, f in cmds.items())]:
        module = importlib.import_module(fn.__module__)
        # Importable by its own name from its own module: tools (and tests) can find and call it.
        assert getattr(module, fn.__name__) is fn, name
        assert "<locals>" not in fn.__qualname__, name
    assert sorted(g.name for g in app.registered_groups) == sorted(GROUPS)


def test_runs_with_nothing_stored_says_where_it_looked_and_what_to_do(polygon_home: Path) -> None:
    result = runner.invoke(app, ["runs"])
    assert result.exit_code == 0 and result.stdout == ""
    hint = " ".join(result.stderr.split())
    assert hint.startswith(f"no runs are stored in sqlite:///{polygon_home}/polygon.db yet: try `polygon demo`")
    result = runner.invoke(app, ["runs", "--json"])
    assert result.exit_code == 0 and json.loads(result.stdout) == {"runs": []}


def test_show_json_names_an_unknown_run_as_bad_input(polygon_home: Path) -> None:
    result = runner.invoke(app, ["show", "run-nope", "--json"])
    assert result.exit_code == 2 and result.stdout == ""
    assert "no run 'run-nope' is stored (see `polygon runs`)" in result.stderr


def test_scenario_globs_select_in_suite_order_and_a_miss_is_named() -> None:
    assert select_scenarios(SUITE, []) is None
    assert select_scenarios(SUITE, ["*-charge*", "address-change"]) == [
        "address-change", "suspicious-duplicate-charge", "roaming-charge-explained"]
    with pytest.raises(ValueError, match=r"--scenario 'billing-dispute-v9': no scenario id of suite .* matches "
                                         r"\(its scenarios: billing-dispute-v3, address-change, "):
        select_scenarios(SUITE, ["billing-dispute-v9"])
    with pytest.raises(ValueError, match=r"--scenario 'refund-\*': no glob of suite"):
        select_scenarios(SUITE, ["address-*", "refund-*"])


def test_run_refuses_an_unknown_scenario_before_any_run_exists(polygon_home: Path) -> None:
    agent = demo_dir() / "agents" / "agent_v1.yaml"
    result = runner.invoke(app, ["run", str(SUITE), "--agent", str(agent), "--scenario", "nope-*"])
    assert result.exit_code == 2 and "Traceback" not in result.stderr
    assert " ".join(result.stderr.split()).startswith("error: --scenario 'nope-*': no glob of suite")
    assert json.loads(runner.invoke(app, ["runs", "--json"]).stdout) == {"runs": []}


def test_run_refuses_an_unknown_output_extension_before_anything_runs(polygon_home: Path) -> None:
    agent = demo_dir() / "agents" / "agent_v1.yaml"
    result = runner.invoke(app, ["run", str(SUITE), "--agent", str(agent), "-o", "report.docx"])
    assert result.exit_code == 2
    assert "-o report.docx: unknown extension '.docx'; expected one of .htm, .html, .json, .markdown, .md, .xml" \
        in " ".join(result.stderr.split())


def test_run_refuses_an_output_path_that_is_a_folder_before_anything_runs(polygon_home: Path,
                                                                          tmp_path: Path) -> None:
    # It used to run and store the run, then end in an IsADirectoryError traceback.
    folder = tmp_path / "adir.html"
    folder.mkdir()
    agent = demo_dir() / "agents" / "agent_v1.yaml"
    result = runner.invoke(app, ["run", str(SUITE), "--agent", str(agent), "-o", str(folder)])
    assert result.exit_code == 2 and "Traceback" not in result.stderr
    assert " ".join(result.stderr.split()) == f"error: -o {folder}: is a folder; expected a file path"
    assert json.loads(runner.invoke(app, ["runs", "--json"]).stdout) == {"runs": []}


def test_personas_list_stale_compares_against_the_agent_file(polygon_home: Path, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from polygon.cli import _app

    monkeypatch.setattr(_app.console, "_width", 300)
    folder = tmp_path / "agent"
    folder.mkdir()
    for name in ("agent_v1.yaml", "prompt_v1.txt"):
        shutil.copy(demo_dir() / "agents" / name, folder / name)
    agent = folder / "agent_v1.yaml"
    made = runner.invoke(app, ["personas", "generate", "--agent", str(agent), "--count", "3"])
    assert made.exit_code == 0, made.output
    prompt = folder / "prompt_v1.txt"
    prompt.write_text(prompt.read_text().replace("Keep answers short", "Keep answers brief"))
    # By name, nothing has looked at the prompt yet: nothing is stale.
    by_name = runner.invoke(app, ["personas", "list", "--stale", "--agent", "northwind-billing"], terminal_width=300)
    assert by_name.exit_code == 0 and "northwind-billing" not in by_name.stdout
    # By file, the prompt is read and the three personas of the old prompt show as stale.
    by_file = runner.invoke(app, ["personas", "list", "--stale", "--agent", str(agent)], terminal_width=300)
    assert by_file.exit_code == 0, by_file.output
    assert "marked 3 persona(s) stale" in " ".join(by_file.stderr.split())
    rows = [line for line in by_file.stdout.splitlines() if "northwind-billing" in line]
    assert len(rows) == 3 and all("stale" in line for line in rows)
