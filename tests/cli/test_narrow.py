"""`polygon demo` in an 80-column terminal and a CI log: no table cell wrapped past 3 lines,
progress as plain lines, model usage that adds up to the run; `run --scenario` runs a subset."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polygon.cli import app
from polygon_core.demo import demo_dir

pytestmark = [pytest.mark.prefect, pytest.mark.usefixtures("prefect_harness")]
runner = CliRunner()


@pytest.fixture(scope="module")
def demo(prefect_harness: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """`polygon demo --seeds 1 -o demo.xml` once, on an 80-column console, stdout and stderr not terminals."""
    from polygon.cli import _app

    base = tmp_path_factory.mktemp("narrow")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("POLYGON_HOME", str(base / ".polygon"))
        for var in ("POLYGON_DATABASE_URL", "POLYGON_ARTIFACTS_URL"):
            mp.delenv(var, raising=False)
        # The private field, not the `width` property: undoing a property patch would set the width
        # read before it (80 off a terminal) for good, and later tests in this process would inherit it.
        mp.setattr(_app.console, "_width", 80)
        result = runner.invoke(app, ["demo", "--seeds", "1", "-o", str(base / "demo.xml")])
        assert result.exit_code == 0, result.output  # `run` and `demo` report; `compare` is the gate
        yield {"out": result.stdout, "err": result.stderr, "home": str(base / ".polygon"),
               "xml": str(base / "demo.xml")}


def _box_row_heights(out: str) -> list[tuple[str, int]]:
    """(first line, height) of every row of every box-drawn table in `out`."""
    rows: list[tuple[str, int]] = []
    for line in out.splitlines():
        if line.startswith("├"):
            rows.append(("", 0))  # a drawn row separator: the next line starts a row
        if not line.startswith("│"):
            continue
        first_cell = line.split("│")[1]
        if first_cell.strip() or not rows or rows[-1][1] == 0:
            rows.append((line, 1))
        else:
            rows[-1] = (rows[-1][0], rows[-1][1] + 1)
    return [r for r in rows if r[1]]


def test_no_table_cell_is_wrapped_past_three_lines_at_80_columns(demo: dict[str, str]) -> None:
    out = demo["out"]
    assert max(len(line) for line in out.splitlines()) <= 80
    rows = _box_row_heights(out)
    assert len(rows) > 30  # scorecards, scenarios, differences and probes are all tables
    tall = [r for r in rows if r[1] > 3]
    assert tall == []
    # The divergences do not fit as a table at 80 columns: one block per scenario instead.
    assert "First divergent turn:" in out and "▸ billing-dispute-v3" in out
    assert "  seed: 0 · turn: first 2, consequential 4 · reasons: wording, tool_calls" in out


def test_model_usage_adds_up_to_the_run(demo: dict[str, str]) -> None:
    from polygon import usecases

    stores = usecases.open_stores()
    for run in stores.repo.list_runs(limit=2):
        convs = stores.repo.list_conversations(run.id)
        assert len(convs) == 6
        for role in ("agent", "caller"):
            calls = sum(c.usage[role].calls for c in convs)
            tokens_in = sum(c.usage[role].input_tokens for c in convs)
            block = demo["out"].split(f"Model usage of {run.id}")[1]
            line = next(x for x in block.splitlines() if x.strip().startswith(role))
            assert line.split()[:4] == [role, "offline", str(calls), f"~{tokens_in}"]
            assert calls > 7  # the figures follow the run (they once read 7 calls for any run)


def test_progress_is_plain_lines_with_rate_and_time_left(demo: dict[str, str]) -> None:
    lines = [x for x in demo["err"].splitlines() if x.startswith("simulated ")]
    assert lines and all(re.fullmatch(r"simulated \d+/12 conversations \(\d+%\)(, [\d.]+/s, about \d+ (s|min) left)?",
                                      x) for x in lines)
    assert lines[-1].startswith("simulated 12/12 conversations (100%)")
    assert "\r" not in demo["err"] and "\x1b[" not in demo["err"]  # no bar redrawn in the log


def test_demo_writes_the_junit_file_it_was_asked_for(demo: dict[str, str]) -> None:
    import xml.etree.ElementTree as ET

    import xmlschema

    xmlschema.XMLSchema(str(Path(__file__).parents[1] / "fixtures" / "junit-10.xsd")).validate(demo["xml"])
    root = ET.parse(demo["xml"]).getroot()
    case = next(c for c in root.iter("testcase") if c.get("name").startswith("composite (overall)"))
    assert case.find("failure").get("type") == "worse beyond noise"
    assert f"JUnit report: {demo['xml']}" in " ".join(demo["out"].split())


def test_run_with_scenario_globs_runs_only_those(demo: dict[str, str]) -> None:
    agent = demo_dir() / "agents" / "agent_v1.yaml"
    result = runner.invoke(app, ["run", str(demo_dir() / "suite"), "--agent", str(agent), "--seeds", "1",
                                 "--scenario", "*-charge*", "--scenario", "address-change", "--json"])
    assert result.exit_code == 0, result.output
    (summary,) = json.loads(result.stdout)["runs"]
    assert summary["conversations"] == 3
    from polygon import usecases

    stores = usecases.open_stores()
    ran = sorted(c.scenario_id for c in stores.repo.list_conversations(summary["run_id"]))
    assert ran == ["address-change", "roaming-charge-explained", "suspicious-duplicate-charge"]
    # The agent's version is the agent's, not the subset's: it pairs with full runs of it.
    full = next(r for r in stores.repo.list_runs(limit=None)
                if r.models["agent"].endswith("DemoAgentV1") and r.id != summary["run_id"])
    assert summary["agent_version"] == full.agent_version


def test_replay_show_runs_and_probe_print_json(demo: dict[str, str]) -> None:
    from polygon import usecases

    stores = usecases.open_stores()
    run = stores.repo.list_runs(limit=1)[0]
    first = stores.repo.list_conversations(run.id)[0].conversation_id
    replayed = runner.invoke(app, ["replay", first, "--run", run.id, "--json"])
    assert replayed.exit_code == 0, replayed.output
    data = json.loads(replayed.stdout)
    assert (data["run_id"], data["conversation_id"], data["identical"], data["differences"]) == (
        run.id, first, True, [])
    listed = json.loads(runner.invoke(app, ["runs", "--json"]).stdout)["runs"]
    assert {r["run_id"] for r in listed} >= {run.id} and all(r["status"] == "complete" for r in listed)
    shown = json.loads(runner.invoke(app, ["show", run.id, "--json"]).stdout)
    assert shown["scorecard"]["run_id"] == run.id and len(shown["conversations"]) == shown["scorecard"]["conversations"]
    probed = runner.invoke(app, ["probe", run.id, "--json"])
    assert probed.exit_code == 0, probed.output
    answers = json.loads(probed.stdout)
    assert (answers["run_id"], answers["failed"], answers["exit_code"]) == (run.id, [], 0)
    assert {p["probe_id"] for p in answers["probes"]} >= {"verified_identity_before_action"}
