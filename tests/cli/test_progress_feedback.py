"""Feedback on long work (issue #32, item 12): `compare`, `sweep` and `calibrate` show progress on
stderr as `run` does (plain lines in a CI log, a bar on a terminal), so `--json` on stdout stays one
clean object; `run`'s bar shows the time left."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import pytest
import yaml
from rich.console import Console
from rich.progress import Progress, TimeRemainingColumn
from typer.testing import CliRunner

from polygon.cli import _progress, app
from polygon_core.demo import demo_dir
from tests.cli.test_show_compare_pages import scale

runner = CliRunner()


def _lines(text: str, prefix: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith(prefix)]


def test_compare_of_2000_pairs_prints_progress_lines_on_stderr_and_clean_json(polygon_home: Path) -> None:
    polygon_home.mkdir(parents=True)
    base, cand = scale.fill(polygon_home, 2000)
    result = runner.invoke(app, ["compare", base, cand, "--json"])
    assert result.exit_code in (0, 1), result.output
    assert len(json.loads(result.stdout)["divergence_sets"][0]["items"]) == 2000  # stdout: the JSON alone
    lines = result.stderr.splitlines()
    assert lines and all(line.startswith("compare: ") for line in lines), lines
    assert lines[-1].startswith("compare: 2000/2000 pairs (100%), ")
    counts = [int(line.split()[1].split("/")[0]) for line in lines]
    assert counts == sorted(counts) and len(lines) <= 11  # a line a tenth at most, and the last


def test_the_run_bar_shows_the_time_left(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[Progress] = []
    real = _progress._bar
    monkeypatch.setattr(_progress, "_bar", lambda err, label: made.append(real(err, label)) or made[-1])
    terminal = Console(file=io.StringIO(), force_terminal=True, width=100)
    with _progress.watch(terminal, 3, lambda: 3, enabled=True):
        pass
    (bar,) = made
    assert [type(c).__name__ for c in bar.columns] == ["TextColumn", "BarColumn", "MofNCompleteColumn",
                                                       "TimeElapsedColumn", "TimeRemainingColumn"]
    assert any(isinstance(c, TimeRemainingColumn) for c in bar.columns)


def test_a_tally_of_steps_prints_each_steps_last_count_in_a_log() -> None:
    out = io.StringIO()
    log = Console(file=out, force_terminal=False, width=200)
    tally = _progress.Tally("calibrate: judged", "conversations")
    with _progress.follow(log, tally):
        for done in range(1, 4):
            tally(done, 3)
        for done in range(1, 10):  # the next step starts before the watcher looks: the first still ends on 3/3
            tally(done, 9, "calibrate: bootstrapped", "rows")
    text = out.getvalue()
    assert [line.split(" (")[0] for line in text.splitlines()][-2:] == ["calibrate: judged 3/3 conversations",
                                                                       "calibrate: bootstrapped 9/9 rows"]
    assert _lines(text, "calibrate: bootstrapped")[-1].startswith("calibrate: bootstrapped 9/9 rows (100%)")


def _sweep_spec(tmp_path: Path) -> Path:
    rel = os.path.relpath(demo_dir(), tmp_path)
    body: dict[str, Any] = {"name": "told", "agent": f"{rel}/agents/agent_v1.yaml", "suite": f"{rel}/suite",
                            "seeds": [0], "strategy": "grid", "parameters": {"noise": [0.0, 0.2]},
                            "scenarios": ["address-change"], "tokens_per_turn_estimate": 1}
    path = tmp_path / "sweep.yaml"
    path.write_text(yaml.safe_dump(body), encoding="utf-8")
    return path


@pytest.mark.prefect
@pytest.mark.usefixtures("prefect_harness")
def test_sweep_prints_progress_lines_on_stderr_and_clean_json(polygon_home: Path, tmp_path: Path) -> None:
    result = runner.invoke(app, ["sweep", str(_sweep_spec(tmp_path)), "--json"])
    assert result.exit_code == 0, result.output
    assert len(json.loads(result.stdout)["leaderboard"]) == 2
    lines = _lines(result.stderr, "sweep: ")
    assert lines and lines[-1].startswith("sweep: 2/2 conversations (100%)"), result.stderr
