"""`polygon personas list` and `polygon runs` in an 80-column terminal: every column readable, and the
agent version kept (it tells a v1 run from a v2 run of one agent)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polygon import usecases
from polygon.cli import app
from polygon_core.demo import demo_dir
from polygon_core.models import Run

runner = CliRunner()


@pytest.fixture
def narrow(polygon_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    from polygon.cli import _base

    # The private field, not the `width` property (see tests/cli/test_narrow.py).
    monkeypatch.setattr(_base.console, "_width", 80)
    return polygon_home


def _lines(out: str) -> list[str]:
    return [line.rstrip() for line in out.splitlines()]


def test_personas_list_prints_one_block_per_persona(narrow: Path, tmp_path: Path) -> None:
    for name in ("agent_v1.yaml", "prompt_v1.txt"):
        shutil.copy(demo_dir() / "agents" / name, tmp_path / name)
    agent = tmp_path / "agent_v1.yaml"
    made = runner.invoke(app, ["personas", "generate", "--agent", str(agent), "--count", "2"])
    assert made.exit_code == 0, made.output
    listed = runner.invoke(app, ["personas", "list", "--agent", str(agent)])
    assert listed.exit_code == 0, listed.output
    assert _lines(listed.stdout) == [
        "Personas",
        "▸ late-fees-busy-refusal-d2-f780a0d1",
        "  agent: northwind-billing · prompt: 5d3ee5978139 · status: active · type: busy",
        "  · outcome: refusal · diff: 2 · goal: get late fees refunded",
        "▸ refund-duplicate-charge-cooperative-success-d1-b80f140c",
        "  agent: northwind-billing · prompt: 5d3ee5978139 · status: active · type:",
        "  cooperative · outcome: success · diff: 1 · goal: get duplicate charges",
        "  refunded",
    ]


def test_runs_keeps_the_version_that_tells_two_runs_apart(narrow: Path) -> None:
    stores = usecases.open_stores()
    for rid, version, at in (("run-20261201-101500-a1b2c3", "3f9a1c2b7d4e5f60718293a4", "2026-12-01T10:15:00"),
                             ("run-20261201-102000-d4e5f6", "9c8b7a6f5e4d3c2b1a098765", "2026-12-01T10:20:00")):
        usecases.create_run(stores, Run(id=rid, suite="northwind-demo", agent_name="northwind-billing",
                                        agent_version=version, rubric_version="v1", seeds=[0], created_at=at))
        stores.repo.set_run_status(rid, "complete", {"mean_composite": 71.25,
                                                     "verdicts": {"pass": 3, "warn": 2, "fail": 1}})
    listed = runner.invoke(app, ["runs"])
    assert listed.exit_code == 0, listed.output
    assert _lines(listed.stdout) == [
        "                                      Runs",
        "┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━┳━━━━━━━━━┓",
        "┃                            ┃          ┃          ┃          ┃      ┃ pass/wa ┃",
        "┃ run                        ┃ agent    ┃ version  ┃ status   ┃ mean ┃ rn/fail ┃",
        "┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━╇━━━━━━━━━┩",
        "│ run-20261201-102000-d4e5f6 │ northwin │ 9c8b7a6f │ complete │ 71.2 │ 3/2/1   │",
        "│                            │ d-billin │          │          │      │         │",
        "│                            │ g        │          │          │      │         │",
        "│ run-20261201-101500-a1b2c3 │ northwin │ 3f9a1c2b │ complete │ 71.2 │ 3/2/1   │",
        "│                            │ d-billin │          │          │      │         │",
        "│                            │ g        │          │          │      │         │",
        "└────────────────────────────┴──────────┴──────────┴──────────┴──────┴─────────┘",
    ]
