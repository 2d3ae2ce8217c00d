"""`polygon show` and `compare` on stored runs larger than a page: a page by default, --all for every row.

The runs are the scale benchmark's synthetic ones (benchmarks/show_compare_scale.py), at 120
conversations: every tenth of the candidate's takes another tool argument at turn 3.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polygon import usecases
from polygon.cli import app

_SPEC = importlib.util.spec_from_file_location(
    "show_compare_scale", Path(__file__).resolve().parents[2] / "benchmarks" / "show_compare_scale.py")
assert _SPEC is not None and _SPEC.loader is not None
scale = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(scale)
runner = CliRunner()


@pytest.fixture
def stored(polygon_home: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    from polygon.cli import _app

    # A wide console: the assertions read whole note lines (the private field, so the patch undoes).
    monkeypatch.setattr(_app.console, "_width", 200)
    polygon_home.mkdir(parents=True)
    return scale.fill(polygon_home, 120)


def test_show_prints_the_scorecard_and_the_first_page_then_says_how_many_more(stored: list[str]) -> None:
    result = runner.invoke(app, ["show", stored[0]])
    assert result.exit_code == 0, result.output
    assert "Conversations 1–50 of 120 (by id)" in result.output
    assert "70 more conversation(s): --all lists every one, --json prints them all" in result.output
    ids = sorted(r.conversation_id for r in usecases.open_stores().repo.list_conversations(stored[0]))
    assert ids[49] in result.output and ids[50] not in result.output


def test_show_all_and_json_list_every_conversation(stored: list[str]) -> None:
    every = runner.invoke(app, ["show", stored[0], "--all"])
    assert every.exit_code == 0 and "more conversation(s)" not in every.output
    ids = sorted(r.conversation_id for r in usecases.open_stores().repo.list_conversations(stored[0]))
    assert all(cid in every.output for cid in ids)
    out = json.loads(runner.invoke(app, ["show", stored[0], "--json"]).stdout)
    assert [c["conversation_id"] for c in out["conversations"]] == ids
    assert out["scorecard"]["conversations"] == 120 and out["scorecard"]["scored"] == 120


def test_compare_pages_its_long_tables_but_its_verdict_and_json_are_whole(stored: list[str]) -> None:
    result = runner.invoke(app, ["compare", *stored])
    assert result.exit_code == 1  # the candidate fires gates
    assert "scenarios: the 50 of largest spread shown of 120" in result.output
    # The pairs that part are listed, the identical ones counted.
    assert "divergences baseline@a1a1a1 vs candidate@b2b2b2: 12 shown of 120 pairs (12 part, 108 identical)" \
        in result.output
    whole = json.loads(runner.invoke(app, ["compare", *stored, "--json"]).stdout)
    (dset,) = whole["divergence_sets"]
    assert len(dset["items"]) == 120 and sum(1 for d in dset["items"] if d["turn"] is not None) == 12
    assert {d["turn"] for d in dset["items"] if d["turn"] is not None} == {3}
    assert len(whole["matrix"]) == 120
    assert runner.invoke(app, ["compare", *stored, "--all"]).output.count("--all lists every row") == 0


def test_streamed_comparison_equals_the_one_built_from_every_loaded_transcript(stored: list[str]) -> None:
    stores = usecases.open_stores()
    streamed = usecases.compare_runs(stores, stored)
    loaded = usecases.compare_runs(stores, stored, transcripts=True)
    assert streamed.report_json() == loaded.report_json()
    assert not streamed.conversations["baseline@a1a1a1"] and len(loaded.conversations["baseline@a1a1a1"]) == 120
    assert streamed.cards[0].latency_ms == loaded.cards[0].latency_ms == 250.0  # seed 0: 250 ms a turn
