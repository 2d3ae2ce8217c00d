"""`polygon runs` and `polygon show`: what is stored, and one run in full."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

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
    found = [(r, usecases.stored_summary(stores, r.id) or {}) for r in usecases.list_runs(stores, limit=limit)]
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
        # A version is 8 characters and tells runs of one agent apart: never folded.
        table.add_column(col, overflow="fold", no_wrap=col == "version")
    for r, summary in found:
        v = summary.get("verdicts", {})
        mean = summary.get("mean_composite")
        table.add_row(r.id, (r.created_at or "")[:19], r.suite, r.agent_name, r.agent_version[:8],
                      r.rubric_version, r.status, "—" if mean is None else f"{mean:.1f}",
                      f"{v.get('pass', 0)}/{v.get('warn', 0)}/{v.get('fail', 0)}")
    # The version tells a v1 run from a v2 run of one agent: a narrow terminal loses the columns the
    # run id already says (created: its timestamp) or that rarely differ (rubric, suite, status) first.
    console.print(fit(console, table, drop=("created", "rubric", "suite", "status")))


PAGE = 50  # conversations `polygon show` lists without --all
_CHUNK = 1_000  # rows per table with --all: one table of 100,000 rows would be held whole to render


Origins = Callable[[list[Any]], dict[str, Any]]


def _origins_of(stores: Any, run: Any) -> Origins:
    """Rows → conversation id → origin (a production call's source and platform call id): one
    ledger lookup per table of rows; a synthetic run has none and costs no query."""
    from polygon import usecases

    if run.source != "production":
        return lambda rows: {}
    return lambda rows: usecases.call_origins(stores, [r.conversation_id for r in rows])


def _show_json(card: Any, rows: Any, origins: Origins, parts: list[Any] | None) -> dict[str, Any]:
    from polygon import usecases

    out: list[dict[str, Any]] = []
    batch: list[Any] = []
    for row in [*rows, None]:  # None flushes the last batch
        if row is not None:
            batch.append(row)
        if batch and (row is None or len(batch) == _CHUNK):
            found = origins(batch)
            out.extend({**r.model_dump(mode="json"), "why": usecases.failed_text(r),
                        "origin": o.as_dict() if (o := found.get(r.conversation_id)) else None} for r in batch)
            batch = []
    return {"scorecard": card.model_dump(mode="json"), "conversations": out,
            # What the agent version hashes (None: a run made before parts were recorded, or imported).
            "version_parts": None if parts is None else [p.model_dump(mode="json") for p in parts]}


def _provenance_json(run: Any) -> dict[str, Any] | None:
    """What made the run (`Run.provenance`: Polygon's and its packages' versions, the formats it
    wrote); None for a run stored before Polygon recorded it."""
    return None if run.provenance is None else run.provenance.model_dump(mode="json")


def _made_by(run: Any) -> str:
    """One line: the versions a run was made with, or that it was stored before they were recorded."""
    made = run.provenance
    if made is None:
        return "made by: not recorded (stored before Polygon recorded versions)"
    packages = ", ".join(f"{name} {version}" for name, version in made.packages.items())
    formats = ", ".join(f"{kind} {version}" for kind, version in made.formats.items())
    return f"made by: Polygon {made.polygon} ({packages}); formats: {formats}"


def _rows_table(rows: list[Any], title: str, origins: Origins) -> Table:
    from polygon import usecases

    found = origins(rows)
    table = Table(title=title)
    table.add_column("conversation", no_wrap=True)
    if found:  # a production call: the platform's call id finds it where it was made
        table.add_column("call (source: id)", overflow="fold")
    for col in ("caller", "end", "composite", "verdict", "gates", "failed assertions / why"):
        table.add_column(col, overflow="fold")
    for row in rows:
        origin = found.get(row.conversation_id)
        call = [f"{origin.source}: {origin.external_id}" if origin else "—"] if found else []
        table.add_row(row.conversation_id, *call, row.caller_type, row.end_reason,
                      "—" if row.composite is None else f"{row.composite:.1f}", row.verdict or "—",
                      ", ".join(row.gates) or "", usecases.failed_text(row))
    return table


def _print_rows(rows: Any, total: int, every: bool, origins: Origins) -> None:
    """A page of conversations, or (`every`) all of them in tables of `_CHUNK`, never all held at once."""
    batch: list[Any] = []
    shown = 0
    for row in rows:
        batch.append(row)
        if len(batch) == _CHUNK:
            shown += len(batch)
            console.print(fit(console, _rows_table(batch, f"Conversations {shown - len(batch) + 1}–{shown}",
                                                   origins), drop=("caller",)))
            batch = []
    if batch or not shown:
        shown += len(batch)
        console.print(fit(console, _rows_table(batch, "Conversations" if every or shown == total else
                                               f"Conversations 1–{shown} of {total} (by id)", origins),
                          drop=("caller",)))
    if not every and shown < total:
        console.print(f"{total - shown} more conversation(s): --all lists every one, --json prints them all",
                      highlight=False)


@friendly
def show(run_id: Annotated[str, typer.Argument(help="run id (or a unique prefix)")],
         conversation: Annotated[str | None, typer.Argument(
             help="one conversation of the run (id or a unique prefix): its transcript and assertions; on a "
                  "call also its metrics and each turn's times")] = None,
         audio: Annotated[Path | None, typer.Option(
             "--audio", help="with CONVERSATION, a call: write its stereo WAV (caller left, agent right) to "
                             "this file")] = None,
         rubric: Annotated[str | None, typer.Option(help="rubric version to show (default: the run's)")] = None,
         judge: Annotated[str | None, typer.Option(
             help="whose judgments to show (default: the run's own judge, else the latest)")] = None,
         probe_model: Annotated[str | None, typer.Option(
             help="whose probe answers to count (default: the run's own answerer, else the latest)")] = None,
         json_out: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False,
         every: Annotated[bool, typer.Option("--all", help=f"list every conversation (default: the first {PAGE})")]
         = False,
         ) -> None:
    """Show one run: scorecard and its conversations (one rubric version, one judge), the first 50
    by id unless --all; the scorecard is computed once, in SQL, however large the run. A run of
    calls adds its interaction panel. With CONVERSATION, that one conversation in full."""
    from polygon import usecases

    from . import _render

    if conversation is not None:
        from ._show_conversation import show_conversation

        show_conversation(run_id, conversation, json_out=json_out, audio=audio)
        return
    if audio is not None:
        raise ValueError("--audio needs a CONVERSATION: `polygon show RUN CONVERSATION --audio call.wav`")
    stores = usecases.open_stores()
    if rubric is not None:
        from polygon_core.scoring import get_rubric

        get_rubric(rubric)  # an unknown version is a user error naming the known ones
    view = usecases.run_view(stores, run_id, rubric_version=rubric, judge=judge, probe_model=probe_model,
                             limit=None if every or json_out else PAGE)
    card = view.card
    parts = usecases.run_version_parts(stores, view.run.id)
    line = usecases.line_text(usecases.run_manifest(stores, view.run.id).get("line"))
    if json_out:
        print(json.dumps({**_show_json(card, view.rows, _origins_of(stores, view.run), parts),
                          "provenance": _provenance_json(view.run),
                          # how the run was made: its channel, calls' conditions and recogniser model
                          "channel": line["channel"], "conditions": line["conditions"],
                          "stt_model": line["stt_model"],
                          # a fitted judge stored with --force says so here too (None otherwise)
                          "judge_warning": usecases.fitted_judge_warning(stores, card.judge_model)}, indent=2))
        return
    if view.run.status != "complete":  # a part-way run's card looks whole: say so above it
        stored, planned = usecases.run_progress(stores, view.run)
        console.print(f"[yellow]run {escape(view.run.id)} is {escape(view.run.status)}[/]: {stored} of "
                      f"{'an unknown number of' if planned is None else planned} planned conversations "
                      "stored; the scorecard covers only those", markup=True, highlight=False, soft_wrap=True)
    console.print(fit(console, _render.scorecards_table([card])))
    _render.print_panel(console, [card])  # a run of calls: its interaction panel and what made it
    if len(view.judges) > 1:
        others = ", ".join(sorted(set(view.judges) - {card.judge_model}))
        console.print(f"(also judged under {card.rubric_version} by {others}: see --judge)", highlight=False)
    _print_rows(view.rows, view.total, every, _origins_of(stores, view.run))
    console.print(fit(console, _render.probes_table([card])))
    if len(view.answerers) > 1:
        others = ", ".join(sorted(set(view.answerers) - {card.models["probe"]}))
        console.print(f"(probes also answered by {others}: see --probe-model)", highlight=False)
    _render.print_provenance(console, [card])
    if parts is not None:
        from polygon_core.files import describe_parts

        console.print(f"agent version {view.run.agent_version} hashes: {describe_parts(parts)}",
                      highlight=False, soft_wrap=True)
    if line["text"]:  # a run made before the line was recorded says nothing
        console.print(f"[dim]{escape(line['text'])}[/]", markup=True, highlight=False, soft_wrap=True)
    console.print(f"[dim]{escape(_made_by(view.run))}[/]", markup=True, highlight=False, soft_wrap=True)
