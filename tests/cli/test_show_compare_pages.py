"""`polygon show` and `compare` on stored runs larger than a page: a page by default, --all for every row.

The runs are the scale benchmark's synthetic ones (benchmarks/show_compare_scale.py), at 120
conversations: every tenth of the candidate's takes another tool argument at turn 3.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import xmlschema
from typer.testing import CliRunner

from polygon import usecases
from polygon.cli import app
from polygon.usecases._results import _latency
from polygon.usecases._scorecards import judge_for, probe_answer_tally, rows_of, scorecard_of
from polygon_core.compare import Comparison, ConfigurationResults, compare_configurations
from polygon_core.reports import junit_xml

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


def _loaded_comparison(stores: usecases.Stores, run_ids: list[str]) -> Comparison:
    """The comparison made in core from every transcript and judgment of the runs, loaded."""
    runs = [r for r in (stores.repo.get_run(rid) for rid in run_ids) if r is not None]
    labels = usecases.run_labels(runs)
    configs = []
    for run in runs:
        convs = [usecases.load_conversation(stores, run.id, rec.conversation_id)
                 for rec in stores.repo.list_conversations(run.id)]
        rows = list(rows_of(stores, run.id, "v1", judge_for(stores, run, "v1", None),
                            latencies={c.id: _latency(c) for c in convs}))
        configs.append(ConfigurationResults(
            label=labels[run.id], run=run, card=scorecard_of(stores, run, label=labels[run.id], rows=rows), rows=rows,
            answers=probe_answer_tally(stores, run.id), conversations=convs, judgments=stores.repo.judgments(run.id)))
    return compare_configurations(configs)


def test_streamed_comparison_equals_the_one_built_from_every_loaded_transcript(stored: list[str]) -> None:
    stores = usecases.open_stores()
    streamed = usecases.compare_runs(stores, stored)
    loaded = _loaded_comparison(stores, stored)
    assert streamed.report_json() == loaded.report_json()
    # Each case's time and each gate's turn and detail come from the stream, as from the transcripts.
    assert junit_xml(streamed) == junit_xml(loaded)
    assert "gate assertion at turn 3: verified_before_refund" in junit_xml(streamed)
    assert not streamed.conversations["baseline@a1a1a1"] and len(loaded.conversations["baseline@a1a1a1"]) == 120
    assert streamed.cards[0].latency_ms == loaded.cards[0].latency_ms == 250.0  # seed 0: 250 ms a turn


# Every tenth conversation diverges (k = 0, 10, ..., 110); both sides of those first, then the rest
# by scenario (seed 0 throughout) up to 50: scenarios 1-9, 11-19, 21-29, 31-39, 41 and 42.
_EMBEDDED = sorted({*range(0, 120, 10), *(k for k in range(43) if k % 10)})


def test_a_report_that_shows_transcripts_keeps_fifty_a_run_divergent_ones_first(stored: list[str]) -> None:
    comp = usecases.compare_runs(usecases.open_stores(), stored, transcripts=True)
    for label in ("baseline@a1a1a1", "candidate@b2b2b2"):
        assert sorted(int(c.scenario_id.split("-")[1]) for c in comp.conversations[label]) == _EMBEDDED
        assert sorted(j.conversation_id for j in comp.judgments[label]) == \
            sorted(c.id for c in comp.conversations[label])
    assert len(comp.rows["candidate@b2b2b2"]) == 120  # the rows, and every figure, are still the whole runs'


def test_html_of_large_runs_shows_fifty_transcripts_a_run_and_says_how_to_read_the_rest(
        stored: list[str], tmp_path: Path) -> None:
    html, xml = tmp_path / "r.html", tmp_path / "r.xml"
    assert runner.invoke(app, ["compare", *stored, "-o", str(html), "-o", str(xml)]).exit_code == 1
    page = html.read_text(encoding="utf-8")
    assert page.count("<details class='conv'") == 100
    assert ("50 of 120 transcripts of baseline@a1a1a1 shown (divergent and failing conversations first); "
            "70 left out. <code>polygon show scale-baseline --all</code> lists every conversation; to read one, "
            "run <code>polygon serve</code> and open <code>/runs/scale-baseline/conversations/CONVERSATION_ID"
            "</code>.") in page
    assert page.count(": diverges at turn 3 (") == 12  # every divergent pair has both transcripts
    assert ("Not listed: 0 more divergent pair(s) and 70 identical pair(s). <code>polygon compare scale-baseline "
            "scale-candidate --json</code> lists every pair") in page
    xmlschema.XMLSchema(str(Path(__file__).parents[1] / "fixtures" / "junit-10.xsd")).validate(str(xml))
    root = ET.parse(xml).getroot()  # JUnit still has a case per conversation
    assert [len(s.findall("testcase")) for s in root.iter("testsuite")][2:] == [120, 120]


def test_html_lists_a_bounded_number_of_the_divergent_pairs_left_out_and_counts_the_rest(
        stored: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from polygon.usecases import _compare
    from polygon_core.reports import _html, comparison_html

    # Two transcripts a run (`EMBEDDED_TRANSCRIPTS` is `_embedded`'s default, bound when it was
    # defined, so the cap is passed in) and three pairs listed a line each.
    monkeypatch.setattr(_compare, "_embedded", functools.partial(_compare._embedded, cap=2))
    monkeypatch.setattr(_html, "LISTED_DIVERGENCES", 3)
    comp = usecases.compare_runs(usecases.open_stores(), stored, transcripts=True)
    assert [len(comp.conversations[label]) for label in ("baseline@a1a1a1", "candidate@b2b2b2")] == [2, 2]
    page = comparison_html(comp)
    # Of the 12 divergent pairs: the 2 kept shown both sides, 3 listed, the other 7 counted.
    assert sorted(c.scenario_id for c in comp.conversations["candidate@b2b2b2"]) == ["scenario-0000", "scenario-0050"]
    assert page.count("<span class='muted'>(transcripts not in this report)</span></li>") == 3
    assert [f"<li>scenario-00{k}0 seed 0: diverges at turn 3 (tool_calls); first consequential turn 3 (tool_calls) "
            "<span class='muted'>(transcripts not in this report)</span></li>" in page for k in (1, 2, 3, 4)] == \
        [True, True, True, False]  # the first three left out, by (scenario, seed)
    assert page.count(": diverges at turn 3 (") == 5
    assert ("<p class='muted'>Not listed: 7 more divergent pair(s) and 108 identical pair(s). <code>polygon compare "
            "scale-baseline scale-candidate --json</code> lists every pair (<code>divergence_sets</code>).</p>") in page


def test_show_lists_criteria_in_the_rubrics_order_heaviest_first(polygon_home: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    # As the judge prompt lists them (rubric v1's order), not alphabetically (dialogue_quality first).
    from polygon.cli import _app

    monkeypatch.setattr(_app.console, "_width", 200)
    polygon_home.mkdir(parents=True)
    run_id = scale.fill(polygon_home, 4)[0]
    result = runner.invoke(app, ["show", run_id])
    assert result.exit_code == 0, result.output
    shown = [name for line in result.output.splitlines() for name in scale.CRITERIA
             if line.strip("│ ").startswith(name + " ")]
    assert shown == ["goal_completion", "instruction_adherence", "tool_use_quality", "factuality",
                     "dialogue_quality", "robustness", "safety_compliance", "persona_tone"]
