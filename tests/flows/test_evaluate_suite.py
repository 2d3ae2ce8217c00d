"""The whole pipeline end to end through the CLI and the evaluate_suite flow (offline)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polygon.cli import app
from polygon_core.demo import demo_dir

pytestmark = [pytest.mark.prefect, pytest.mark.usefixtures("prefect_harness")]
runner = CliRunner()
SUITE = demo_dir() / "suite"
V1 = demo_dir() / "agents" / "agent_v1.yaml"
V2 = demo_dir() / "agents" / "agent_v2.yaml"


def _run(*args: str) -> dict:
    result = runner.invoke(app, ["run", str(SUITE), "--agent", str(V1), "--agent", str(V2), *args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _transcripts(home: Path, run_id: str) -> dict[str, bytes]:
    folder = home / "artifacts" / "runs" / run_id / "conversations"
    return {p.name: p.read_bytes() for p in sorted(folder.glob("*.json"))}


def test_run_json_and_stored_results(polygon_home: Path) -> None:
    out = _run("--seeds", "2")
    assert [r["agent"] for r in out["runs"]] == ["northwind-billing", "northwind-billing"]
    v1, v2 = out["runs"]
    assert v1["conversations"] == v2["conversations"] == 12
    assert v1["verdicts"] == {"pass": 12, "warn": 0, "fail": 0}
    assert v2["verdicts"]["fail"] >= 4 and v2["gates"].get("safety", 0) >= 4
    assert v1["models"]["judge"] == "offline-heuristic"
    assert (polygon_home / "polygon.db").exists()
    assert len(_transcripts(polygon_home, v1["run_id"])) == 12


def test_same_seeds_give_byte_identical_transcripts(polygon_home: Path) -> None:
    first = _run("--seeds", "1")["runs"]
    second = _run("--seeds", "1")["runs"]
    for a, b in zip(first, second, strict=False):
        assert a["run_id"] != b["run_id"]
        ta, tb = _transcripts(polygon_home, a["run_id"]), _transcripts(polygon_home, b["run_id"])
        assert ta and ta == tb


def test_v2_breaks_identity_assertion_with_turn(polygon_home: Path) -> None:
    from polygon import usecases

    v1, v2 = _run("--seeds", "1")["runs"]
    stores = usecases.open_stores()
    def assertion(run_id: str) -> dict[str, object]:
        rec = next(r for r in stores.repo.list_conversations(run_id) if r.scenario_id == "billing-dispute-v3")
        return {a.name: (a.status, a.turn) for a in rec.assertions}
    assert {k: s for k, (s, _) in assertion(v1["run_id"]).items()} == {
        "goal_met": "pass", "no_policy_breach": "pass", "no_hallucinated_policy": "pass"}
    status, turn = assertion(v2["run_id"])["no_policy_breach"]
    assert status == "fail" and turn == 4


def test_compare_and_show_print_scorecards_matrix_and_divergence(
        polygon_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from polygon.cli import _app

    monkeypatch.setattr(_app.console, "_width", 220)
    v1, v2 = _run("--seeds", "1")["runs"]
    result = runner.invoke(app, ["compare", v1["run_id"], v2["run_id"]], terminal_width=200)
    # v2 is worse beyond noise and fires the safety gate: compare exits 1 so CI can block it.
    assert result.exit_code == 1, result.output
    text = result.stdout
    assert "Scorecards" in text and "First divergent turn" in text
    # Rows are ordered by spread: a scenario where v1 and v2 differ comes before identical ones.
    assert text.index("late-fee-demand") < text.index("address-change")
    shown = runner.invoke(app, ["show", v2["run_id"][:-1]], terminal_width=200)
    assert shown.exit_code == 0, shown.output
    assert "no_policy_breach (turn 4)" in shown.stdout


def test_runs_on_postgres(polygon_home: Path, postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POLYGON_DATABASE_URL", postgres_url)
    up = runner.invoke(app, ["db", "upgrade"])
    assert up.exit_code == 0, up.output
    _v1, _v2 = _run("--seeds", "1")["runs"]
    import sqlalchemy as sa

    engine = sa.create_engine(postgres_url)
    with engine.connect() as conn:
        count = conn.execute(sa.text("select count(*) from polygon_conversation")).scalar_one()
        judged = conn.execute(sa.text("select count(*) from polygon_judgment")).scalar_one()
    engine.dispose()
    assert count == judged == 12


def test_arena_scenario_as_written_runs(polygon_home: Path, tmp_path: Path) -> None:
    import shutil

    from tests.cli.test_cli_errors import ARENA

    root = tmp_path / "arena"
    (root / "scenarios").mkdir(parents=True)
    shutil.copy(SUITE / "tools.yaml", root / "tools.yaml")
    (root / "scenarios" / "billing.yaml").write_text(ARENA, encoding="utf-8")
    result = runner.invoke(app, ["run", str(root), "--agent", str(V1), "--json"])
    assert result.exit_code == 0, result.output
    (run,) = json.loads(result.stdout)["runs"]
    assert run["conversations"] == 1 and sum(run["verdicts"].values()) == 1
