"""`polygon runs` and `polygon show`: what is stored, and one run in full."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich.table import Table

from . import _render
from ._base import JSON_HELP, console, err, friendly
from ._fit import fit

_EMPTY_HINT = ("no runs are stored in {where} yet: try `polygon demo` (offline, about a minute), or "
               "`polygon run SUITE --agent AGENT.yaml`; POLYGON_HOME or POLYGON_DATABASE_URL choose another store")


def _run_json(run: Any, summary: dict[str, Any]) -> dict[str, Any]:
    return {"run_id": run.id, "created_at": run.created_at, "suite": run.suite, "agent": run.agent_name,
            "agent_version": run.agent_version, "rubric_version": run.rubric_version, "status": run.status,
            "source": run.source, "models": run.models, "mean_composite": summary.get("mean_composite"),
            "verdicts": summary.get("verdicts", {})}


@friendly
def list_runs(limit: Annotated[int, typer.Option(help="how many, newest first")] = 20,
              json_out: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False) -> None:
    """List stored runs, newest first."""
    from polygon import usecases

    stores = usecases.open_stores()
    found = [(r, stores.repo.get_run_summary(r.id) or {}) for r in stores.repo.list_runs(limit=limit)]
    if json_out:
        print(json.dumps({"runs": [_run_json(r, s) for r, s in found]}, indent=2))
        return
    if not found:
        # An empty table says nothing about why: say where we looked and how to fill it.
        err.print(_EMPTY_HINT.format(where=stores.settings.resolved_database_url()), highlight=False,
                  soft_wrap=True)
        return
    table = Table(title="Runs")
    table.add_column("run", no_wrap=True)
    for col in ("created", "suite", "agent", "version", "rubric", "status", "mean", "pass/warn/fail"):
        table.add_column(col, overflow="fold")
    for r, summary in found:
        v = summary.get("verdicts", {})
        mean = summary.get("mean_composite")
        table.add_row(r.id, (r.created_at or "")[:19], r.suite, r.agent_name, r.agent_version[:8],
                      r.rubric_version, r.status, "—" if mean is None else f"{mean:.1f}",
                      f"{v.get('pass', 0)}/{v.get('warn', 0)}/{v.get('fail', 0)}")
    console.print(fit(console, table, drop=("created", "version", "rubric")))


def _failed_text(row: Any, rec: Any) -> str:
    failed = ", ".join(f"{a.name}" + (f" (turn {a.turn})" if a.turn is not None else "")
                       for a in rec.assertions if a.status in ("fail", "error"))
    if row.status in ("agent_failure", "judge_error"):
        failed = f"{row.status}: {row.reason}" + (f"; {failed}" if failed else "")
    return failed


def _show_json(card: Any, rows: list[Any], records: list[Any]) -> dict[str, Any]:
    return {"scorecard": card.model_dump(mode="json"),
            "conversations": [{**row.model_dump(mode="json"), "why": _failed_text(row, rec)}
                              for row, rec in zip(rows, records, strict=False)]}


@friendly
def show(run_id: Annotated[str, typer.Argument(help="run id (or a unique prefix)")],
         rubric: Annotated[str | None, typer.Option(help="rubric version to show (default: the run's)")] = None,
         judge: Annotated[str | None, typer.Option(
             help="whose judgments to show (default: the run's own judge, else the latest)")] = None,
         json_out: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False,
         ) -> None:
    """Show one run: scorecard and per-conversation results (one rubric version, one judge)."""
    from polygon import usecases

    stores = usecases.open_stores()
    run = stores.repo.get_run(run_id)
    if run is None:
        raise ValueError(f"no run {run_id!r} is stored (see `polygon runs`)")
    if rubric is not None:
        from polygon_core.scoring import get_rubric

        get_rubric(rubric)  # an unknown version is a user error naming the known ones
    card = usecases.scorecard(stores, run.id, rubric_version=rubric, judge=judge)
    judges = {j.judge_model for j in stores.repo.judgments(run.id, card.rubric_version)}
    if judge is not None and judge not in judges:
        raise ValueError(f"run {run.id} has no judgments by {judge!r} under rubric {card.rubric_version}; "
                         f"judged by: {', '.join(sorted(judges)) or 'nobody yet'}")
    rows = usecases.result_rows(stores, run.id, rubric, judge=card.judge_model)
    records = stores.repo.list_conversations(run.id)
    if json_out:
        print(json.dumps(_show_json(card, rows, records), indent=2))
        return
    console.print(fit(console, _render.scorecards_table([card])))
    if len(judges) > 1:
        others = ", ".join(sorted(judges - {card.judge_model}))
        console.print(f"(also judged under {card.rubric_version} by {others}: see --judge)", highlight=False)
    table = Table(title="Conversations")
    table.add_column("conversation", no_wrap=True)
    for col in ("caller", "end", "composite", "verdict", "gates", "failed assertions / why"):
        table.add_column(col, overflow="fold")
    for row, rec in zip(rows, records, strict=False):
        table.add_row(row.conversation_id, row.caller_type, row.end_reason,
                      "—" if row.composite is None else f"{row.composite:.1f}", row.verdict or "—",
                      ", ".join(row.gates) or "", _failed_text(row, rec))
    console.print(fit(console, table, drop=("caller",)))
    console.print(fit(console, _render.probes_table([card])))
    _render.print_provenance(console, [card])
