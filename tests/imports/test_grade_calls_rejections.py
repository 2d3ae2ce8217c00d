"""`polygon grade-calls` says why calls were rejected (as `import` does, bounded), fails a window
whose every call read was rejected (it printed "no calls … in the window", exit 0), and refuses a
source that is no location, never imported and not configured (a typo graded nothing, exit 0)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polygon.cli import app
from polygon_core.imports import sample_path

runner = CliRunner()
WINDOW = ["--since", "2024-05-06", "--until", "2024-05-07"]


def _lines(text: str) -> list[str]:
    return [" ".join(ln.split()) for ln in text.splitlines() if ln.strip()]


@pytest.mark.prefect
@pytest.mark.usefixtures("prefect_harness")
def test_every_call_rejected_is_exit_1_with_the_reasons_above_it(polygon_home: Path, tmp_path: Path) -> None:
    folder = tmp_path / "exports"
    folder.mkdir()
    # A Vapi export under a name that does not say so: read as Polygon's format, every call rejected.
    shutil.copy(sample_path("vapi"), folder / "week.json")
    imported = runner.invoke(app, ["import", str(folder / "week.json"), "--format", "polygon", "--json"])
    reasons = json.loads(imported.stdout)["errors"]
    assert len(reasons) >= 1
    graded = runner.invoke(app, ["grade-calls", str(folder), *WINDOW])
    assert graded.exit_code == 1, graded.output
    read = len(reasons)
    assert _lines(graded.stdout) == [f"imported 0 of {read} (0 duplicates, {read} rejected)"]
    assert _lines(graded.stderr) == [
        *(f"skipped: {r}" for r in reasons),
        f"error: every call read from {folder} was rejected ({read} of {read}, each file read in the format its "
        f"name says; --format sets one); the first: {reasons[0]}"]
    # --json prints the result and exits 1 alike.
    as_json = runner.invoke(app, ["grade-calls", str(folder), *WINDOW, "--json"])
    assert as_json.exit_code == 1 and json.loads(as_json.stdout)["import"]["rejected"] == read


def test_a_source_that_is_nowhere_is_exit_2_naming_the_known_ones(polygon_home: Path,
                                                                  monkeypatch: pytest.MonkeyPatch,
                                                                  tmp_path: Path) -> None:
    imported = runner.invoke(app, ["import", str(sample_path("polygon")), "--format", "polygon", "--source", "support"])
    assert imported.exit_code == 0, imported.output
    sources = tmp_path / "sources.yaml"
    sources.write_text("sources:\n  line1:\n    platform: vapi\n    secret_env: LINE1_SECRET\n", encoding="utf-8")
    monkeypatch.setenv("POLYGON_SOURCES", str(sources))
    refused = runner.invoke(app, ["grade-calls", "nosuchsource", *WINDOW])
    assert refused.exit_code == 2, refused.output
    assert _lines(refused.stderr) == [
        "error: no source 'nosuchsource': not a folder, file or s3:// prefix, never imported and not in "
        "POLYGON_SOURCES (known sources: line1, support); `polygon import FILE --format F --source nosuchsource` "
        "imports one"]
