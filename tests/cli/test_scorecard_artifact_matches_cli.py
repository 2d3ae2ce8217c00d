"""The Prefect scorecard artifact shows what `polygon show` shows for the same card: the same rows
and cells, pass^k bounded (not 334 values), and the run's latency, which the finished run stores
from its transcripts (issue #32, item 11)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from rich.console import Console
from typer.testing import CliRunner

from polygon import usecases
from polygon.cli import app
from polygon.cli._render import scorecards_table
from polygon_core.compare import compare_configurations
from polygon_core.demo import demo_dir
from polygon_core.reports import scorecard_table
from tests.core.compare_fixtures import demo_pair

SUITE, V1 = str(demo_dir() / "suite"), str(demo_dir() / "agents" / "agent_v1.yaml")


def _cli_rows(card) -> list[tuple[str, str]]:
    table = scorecards_table([card])
    names, values = (list(column.cells) for column in table.columns)
    return [(name.strip(), value) for name, value in zip(names, values, strict=True)]


def test_the_artifact_rows_are_the_cli_rows_for_the_same_card() -> None:
    card = compare_configurations(demo_pair()).cards[1].model_copy(
        update={"pass_hat_k": {k: 1 / k for k in range(1, 335)}, "latency_ms": 190.0})
    artifact = [(str(r["metric"]).removeprefix("criterion "), r["value"]) for r in scorecard_table(card)]
    assert artifact == _cli_rows(card)
    shown = dict(artifact)
    assert shown["pass^k over seeds"] == ("k=1 1.00, k=2 0.50, k=3 0.33, k=4 0.25, … k=334 0.00 "
                                          "(334 values; --json lists all)")
    assert shown["mean agent latency (ms)"] == "190.0"


def test_a_finished_run_stores_its_latency_and_show_gives_it(polygon_home: Path) -> None:
    stores = usecases.open_stores()
    run = usecases.new_run(V1, SUITE, seeds=[0, 1], run_id="lat", roles={}, caches=stores.caches)
    usecases.create_run(stores, run, suite_path=SUITE, agent_path=V1)
    for seed in (0, 1):
        asyncio.run(usecases.evaluate_conversation(stores, "lat", "billing-dispute-v3", seed))
    card = usecases.finish_run(stores, "lat")  # the card the flow publishes as its artifact
    compared = usecases.compare_runs(stores, ["lat"]).cards[0]  # what `polygon run` prints after the run
    assert card.latency_ms == compared.latency_ms == 190.0
    shown = json.loads(CliRunner().invoke(app, ["show", "lat", "--json"]).stdout)
    assert shown["scorecard"]["latency_ms"] == 190.0
    text = Console(width=200, record=True)
    text.print(scorecards_table([usecases.run_view(stores, "lat").card]))
    assert "│ mean agent latency (ms)     │                          190.0 │" in text.export_text()
    assert next(r["value"] for r in scorecard_table(card) if r["metric"] == "mean agent latency (ms)") == "190.0"
