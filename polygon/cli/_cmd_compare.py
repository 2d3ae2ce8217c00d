"""`polygon compare`: scorecards, matrix, divergences, noise-aware differences; a CI gate."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from ._base import console, err, friendly
from ._failures import stop_on_failures
from ._outputs import OUTPUT_HELP, check_outputs, needs_transcripts, write_outputs


@friendly
def compare(
    run_ids: Annotated[list[str], typer.Argument(help="two or more run ids (or unique prefixes)")],
    baseline: Annotated[str | None, typer.Option(help="the baseline run (default: the first)")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="print the comparison as one JSON object")] = False,
    output: Annotated[list[Path] | None, typer.Option("--output", "-o", help=OUTPUT_HELP)] = None,
    junit: Annotated[Path | None, typer.Option(
        help="write JUnit XML (a case per comparison verdict, gate and conversation); as -o FILE.xml")] = None,
    html: Annotated[Path | None, typer.Option(help="write a self-contained HTML report; as -o FILE.html")] = None,
    every: Annotated[bool, typer.Option("--all", help="print every scenario, difference and pair (default: "
                                        "a page of each long table)")] = False,
    rubric: Annotated[str | None, typer.Option(
        help="compare the judgments stored under this rubric version (default: the runs' own, which must "
             "be one; `polygon rescore RUN --rubric V` adds another's)")] = None,
    judge: Annotated[str | None, typer.Option(
        help="compare this judge's judgments in every run (default: each run's own judge, else its latest)")]
        = None,
) -> None:
    """Compare runs against a baseline; exit 1 when a candidate is worse beyond noise or a gate fires.

    Exit codes: 0 no candidate is worse beyond noise and no gate fired in a candidate; 1 the
    change should be blocked (a composite, or on runs of calls one of the eight interaction metrics,
    worse beyond noise; a gate fired; reasons are printed; a failing judge is also one `error:` line on
    stderr), a candidate shares no scored scenario and seed with the baseline, or a compared run
    is not complete (one `error:` line: its status and stored/planned conversations); 2 bad input (unknown run, mixed rubric versions without --rubric, a run with no
    judgments under --rubric or by --judge).
    """
    from polygon import usecases

    from . import _render

    outputs = list(output or [])
    check_outputs(outputs)
    if baseline is not None and baseline not in run_ids:
        run_ids = [baseline, *run_ids]
    if len(run_ids) < 2:
        raise ValueError("compare needs at least two run ids (a baseline and a candidate)")
    stores = usecases.open_stores()
    # A run that stopped part-way pairs only what it stored: its "no worse" would be about part of
    # it. Refused (exit 1, as a failing verdict), naming how far it got and how to finish it.
    unfinished = usecases.unfinished_runs(stores, run_ids)
    if unfinished:
        err.print(f"[red]error:[/] {escape(unfinished)}", markup=True, highlight=False, soft_wrap=True)
        raise typer.Exit(1)
    kinds = [*(["JUnit"] if junit else []), *(["HTML"] if html else [])]
    from ._progress import Tally, follow

    # Reading every pair's transcripts is the long part (2,000 pairs: about 16 s): its progress on
    # stderr, a bar on a terminal, plain lines in a CI log; stdout (--json) stays the report alone.
    tally = Tally("compare:", "pairs")
    with follow(err, tally):
        comp = usecases.compare_runs(stores, run_ids, baseline=baseline,
                                     transcripts=needs_transcripts(outputs, *kinds), rubric_version=rubric,
                                     judge=judge, progress=tally)
    # --junit and --html name their format whatever the file is called; -o goes by extension.
    written = [*(write_outputs(stores, comp, [junit], kind="JUnit") if junit else []),
               *(write_outputs(stores, comp, [html], kind="HTML") if html else []),
               *write_outputs(stores, comp, outputs)]
    if json_out:
        print(json.dumps({**comp.report_json(), "exit_code": comp.ci.exit_code}, indent=2))
    else:
        from ._compare_page import page

        shown, notes = (comp, []) if every else page(comp)  # the verdict is the whole comparison's
        _render.print_comparison(console, shown)
        for note in notes:
            console.print(f"[dim]{escape(note)}[/]", markup=True, highlight=False)
        for kind, path in written:
            console.print(f"{kind} report: {path}", highlight=False)
    # A judge that failed on a compared run blocks the change (exit 1) with one line on stderr, as
    # `run` and `rescore` say it; the other reasons to block are the verdict's, printed above.
    # `stop_on_failures` counts over the runs it is given: those the failing judges judged.
    stop_on_failures(err, [card for card in comp.cards if card.judge_errors], kinds=("judge",))
    if comp.ci.exit_code:
        raise typer.Exit(comp.ci.exit_code)
