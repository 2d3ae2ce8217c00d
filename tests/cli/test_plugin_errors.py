"""A broken plugin (an installed entry point that fails to import) is one line from the CLI, naming
the plugin, its distribution and the cause, and a non-zero exit: never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from polygon.cli import app
from polygon_core.adapters.providers import _registry

runner = CliRunner()


@pytest.fixture
def broken_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A distribution whose `polygon.providers` entry point names a module that raises on import,
    installed on sys.path, and the provider registry as before its first lookup."""
    monkeypatch.setattr(_registry.PROVIDERS, "entries", dict(_registry.PROVIDERS.loaded()))
    monkeypatch.setattr(_registry.PROVIDERS, "_builtins_loaded", False)
    site = tmp_path / "site"
    info = site / "broken_provider-1.0.dist-info"
    info.mkdir(parents=True)
    (site / "broken_provider.py").write_text("raise RuntimeError('acme SDK missing\\nsecond line')\n",
                                             encoding="utf-8")
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-provider\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[polygon.providers]\nacme = broken_provider\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(site))


def test_a_broken_plugin_is_one_line_and_exit_2(broken_plugin: None, polygon_home: Path) -> None:
    # A folder of calls (a source name nobody configured is refused before any model is read).
    result = runner.invoke(app, ["grade-calls", str(polygon_home), "--judge-model", "openai:gpt-4o-mini"])
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.stderr == ("error: provider plugin 'acme' (broken_provider, distribution 'broken-provider', "
                             "entry point group 'polygon.providers') failed to load: acme SDK missing second "
                             "line (fix or uninstall it)\n")


def test_help_that_lists_providers_still_shows_and_names_the_broken_plugin(broken_plugin: None) -> None:
    result = runner.invoke(app, ["run", "--help"], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    assert "model of the judge: (unknown: provider plugin 'acme' (broken_provider, distribution " \
           "'broken-provider', entry point group 'polygon.providers') failed to load: acme SDK missing second " \
           "line (fix or uninstall it)), optionally @<base URL>" in " ".join(result.output.split())
