"""`polygon rescore` and `polygon probe`: judge or probe a stored run again, without re-running it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from ._app import _render, console, friendly


def register(app: typer.Typer) -> None:
    """Add the rescore and probe commands."""

    @app.command()
    @friendly
    def rescore(
        run_id: Annotated[str, typer.Argument(help="run id (or a unique prefix)")],
        rubric: Annotated[str, typer.Option(help="rubric version to judge under (v1, v2)")],
        judge: Annotated[str | None, typer.Option(
            help="judge model: offline (the heuristic judge) or e.g. openai:<model> "
                 "(default: POLYGON_JUDGE_MODEL)")] = None,
        repeats: Annotated[int, typer.Option(help="judge calls per conversation; median of k")] = 1,
        suite: Annotated[Path | None, typer.Option(help="suite folder (default: the run's manifest)")] = None,
        agent: Annotated[Path | None, typer.Option(help="agent YAML (default: the run's manifest)")] = None,
        json_out: Annotated[bool, typer.Option("--json", help="print one JSON object")] = False,
    ) -> None:
        """Add judgments under a rubric version to a stored run; earlier judgments stay as they are."""
        from polygon_core.adapters import pipeline
        from polygon_core.adapters.pipeline._grade import rescore_run

        stores = pipeline.open_stores()
        result = rescore_run(stores, run_id, rubric_version=rubric,
                             judge_model=judge or stores.settings.judge_model, repeats=repeats,
                             suite_path=str(suite.resolve()) if suite else None,
                             agent_path=str(agent.resolve()) if agent else None)
        card = pipeline.scorecard(stores, result.run_id, rubric_version=result.rubric_version)
        if json_out:
            print(json.dumps({"run_id": result.run_id, "rubric_version": result.rubric_version,
                              "judge": result.judge_model, "added": result.added,
                              "skipped": result.skipped, "unscored": result.unscored,
                              "failed": result.failed, "verdicts": card.verdicts,
                              "mean_composite": card.mean_composite, "gates": card.gates}, indent=2))
            return
        console.print(f"{result.run_id}: {result.added} judgment(s) added under rubric "
                      f"{result.rubric_version} by {result.judge_model}"
                      + (f"; {len(result.skipped)} already judged, kept as they were"
                         if result.skipped else "")
                      + (f"; {len(result.unscored)} never scored (provider or simulator error)"
                         if result.unscored else "")
                      + (f"; {len(result.failed)} not judged: the judge model failed"
                         if result.failed else ""), highlight=False)
        console.print(_render.scorecards_table([card]))
        console.print(f"See `polygon show {result.run_id} --rubric {result.rubric_version}`.",
                      highlight=False)

    @app.command()
    @friendly
    def probe(
        run_id: Annotated[str, typer.Argument(help="run id (or a unique prefix)")],
        probes: Annotated[Path | None, typer.Option(help="probe library YAML (default: the bundled one)")] = None,
        model: Annotated[str | None, typer.Option(
            help="probe model: offline (heuristic) or e.g. openai:<model> "
                 "(default: POLYGON_PROBE_MODEL)")] = None,
        suite: Annotated[Path | None, typer.Option(help="suite folder (default: the run's manifest)")] = None,
        agent: Annotated[Path | None, typer.Option(help="agent YAML (default: the run's manifest)")] = None,
    ) -> None:
        """Answer behaviour probes on a stored run (own pass; composites and verdicts untouched)."""
        from polygon_core.adapters import pipeline
        from polygon_core.adapters.pipeline._grade import probe_run

        if probes is not None and not probes.is_file():
            raise ValueError(f"{probes}: no such probe file")
        stores = pipeline.open_stores()
        result = probe_run(stores, run_id, probes_path=str(probes) if probes else None,
                           probe_model=model or stores.settings.probe_model,
                           suite_path=str(suite.resolve()) if suite else None,
                           agent_path=str(agent.resolve()) if agent else None)
        console.print(f"{result.run_id}: {result.added} probe answer(s) by {result.judge_model}",
                      highlight=False)
        console.print(_render.probes_table([pipeline.scorecard(stores, result.run_id)]))
