"""`polygon compare`: scorecards, matrix, divergences, noise-aware differences; a CI gate."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from ._app import console, friendly


def register(app: typer.Typer) -> None:
    """Add the compare command."""

    @app.command()
    @friendly
    def compare(
        run_ids: Annotated[list[str], typer.Argument(help="two or more run ids (or unique prefixes)")],
        baseline: Annotated[str | None, typer.Option(help="the baseline run (default: the first)")] = None,
        json_out: Annotated[bool, typer.Option("--json", help="print the comparison as one JSON object")] = False,
        junit: Annotated[Path | None, typer.Option(help="write JUnit XML: a test case per conversation")] = None,
        html: Annotated[Path | None, typer.Option(help="write a self-contained HTML report")] = None,
    ) -> None:
        """Compare runs against a baseline; exit 1 when a candidate is worse beyond noise or a gate fires.

        Exit codes: 0 no candidate is worse beyond noise and no gate fired in a candidate; 1 the
        change should be blocked (reasons are printed); 2 bad input (unknown run, mixed rubric versions).
        """
        from polygon import usecases
        from polygon_core.reports import comparison_html, junit_xml

        from . import _render

        if baseline is not None and baseline not in run_ids:
            run_ids = [baseline, *run_ids]
        if len(run_ids) < 2:
            raise ValueError("compare needs at least two run ids (a baseline and a candidate)")
        stores = usecases.open_stores()
        comp = usecases.compare_runs(stores, run_ids, baseline=baseline)
        if junit is not None:
            junit.parent.mkdir(parents=True, exist_ok=True)
            junit.write_text(junit_xml(comp), encoding="utf-8")
        if html is not None:
            html.parent.mkdir(parents=True, exist_ok=True)
            from polygon.usecases import analysis_for_run

            # The candidate's (last run's) prompt analysis, with its highlights, beside the results.
            found = analysis_for_run(stores, comp.cards[-1].run_id)
            lines = dict(zip((c.run_id for c in comp.cards), _render.calibration_lines(comp.cards), strict=True))
            html.write_text(comparison_html(comp, analysis=found.to_json() if found else None,
                                            prompt=found.prompt if found else None, calibrations=lines),
                            encoding="utf-8")
        if json_out:
            print(json.dumps({**comp.report_json(), "exit_code": comp.ci.exit_code}, indent=2))
        else:
            _render.print_comparison(console, comp)
            for kind, path in (("JUnit", junit), ("HTML", html)):
                if path is not None:
                    console.print(f"{kind} report: {path}", highlight=False)
        if comp.ci.exit_code:
            raise typer.Exit(comp.ci.exit_code)
