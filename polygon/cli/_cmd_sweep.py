"""`polygon sweep SPEC.yaml`: run a parameter sweep and print its leaderboard."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from ._base import console, friendly, quiet_prefect


@friendly
def sweep(spec: Annotated[Path, typer.Argument(help="sweep spec YAML")],
          json_out: Annotated[bool, typer.Option("--json", help="print one JSON object")] = False) -> None:
    """Run a sweep: each point an immutable profile, budgeted, ranked on a leaderboard."""
    from polygon import usecases as sweep_adapter

    loaded = sweep_adapter.load_sweep(spec)  # file errors before anything starts
    sweep_adapter.planned_conversations(loaded)
    quiet_prefect()
    from polygon.flows import run_sweep

    report = run_sweep(spec_path=str(spec.resolve()))
    if json_out:
        print(json.dumps(report, indent=2, default=str))
        return
    table = Table(title=f"Sweep {report['sweep']}: leaderboard (mean, then stability, then speed)")
    for col in ("rank", "point", "mean [95% CI]", "spread across seeds", "latency/turn ms", "tokens", "run"):
        table.add_column(col, overflow="fold")
    for i, r in enumerate(report["leaderboard"], start=1):
        table.add_row(str(i), r["label"], f"{r['mean_composite']} [{r['ci_low']}, {r['ci_high']}]",
                      str(r["spread_across_seeds"]), str(r["median_latency_per_turn_ms"]),
                      f"{r['tokens']}{' (estimated)' if r['tokens_estimated'] else ''}", r["run_id"])
    console.print(table)
    if report.get("matrix_top"):
        from polygon_core.compare import MatrixRow

        from ._render import matrix_table

        rows = [MatrixRow.model_validate(r) for r in report["matrix_top"]]
        console.print(matrix_table(rows, [r["label"] for r in report["leaderboard"][:3]]))
    for item in report["refused"]:
        console.print(f"[yellow]refused[/] {item['label']}: {item['reason']}")
    if report["stopped_early"]:
        console.print(f"[red]stopped early[/]: {report['stopped_early']}")
