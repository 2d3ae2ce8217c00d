"""`polygon rescore` and `polygon probe`: judge or probe a stored run again, without re-running it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from ._base import JSON_HELP, console, err, foreground_flows, friendly, quiet_prefect
from ._fit import fit

# `{…}`: filled from the registries when the help is shown (`_base.REGISTRY_TOKENS`).
_BATCH_HELP = ("send the pass through the provider's batch API ({batch_providers}): half the price; waits "
               "for the batch, polling every POLYGON_BATCH_POLL_SECONDS")


def _paths(suite: Path | None, agent: Path | None) -> tuple[str | None, str | None]:
    """The suite and agent given on the command line (None: the run's manifest)."""
    return (str(suite.resolve()) if suite else None, str(agent.resolve()) if agent else None)


def _run_batch(spec: Any) -> Any:
    """Run the batch-judge flow (submit, wait, collect); a re-run resumes the submitted batch."""
    from polygon import usecases

    quiet_prefect()
    from polygon.flows import batch_judge

    every = usecases.open_stores().settings.batch_poll_seconds
    status = err.status(f"batch {spec.kind} pass of {spec.run_id} with {spec.model}: waiting for the "
                        f"provider (polling every {every:g} s; interrupt and re-run to resume)")
    with status, foreground_flows():
        return batch_judge(spec)


@friendly
def rescore(
    run_id: Annotated[str, typer.Argument(help="run id (or a unique prefix)")],
    rubric: Annotated[str, typer.Option(help="rubric version to judge under ({rubrics})")],
    judge: Annotated[str | None, typer.Option(
        help="judge model: offline (the heuristic judge) or e.g. openai:<model>; "
             "compact:openai:<model>@<URL> asks a small local model in the compact format "
             "(default: POLYGON_JUDGE_MODEL)")] = None,
    repeats: Annotated[int, typer.Option(help="judge calls per conversation; median of k")] = 1,
    suite: Annotated[Path | None, typer.Option(help="suite folder (default: the run's manifest)")] = None,
    agent: Annotated[Path | None, typer.Option(help="agent YAML (default: the run's manifest)")] = None,
    json_out: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False,
    batch: Annotated[bool, typer.Option("--batch", help=_BATCH_HELP)] = False,
) -> None:
    """Add judgments under a rubric version to a stored run; earlier judgments stay as they are."""
    from polygon import usecases

    from . import _render
    from ._failures import failure_line, stop_on_failures

    stores = usecases.open_stores()
    suite_path, agent_path = _paths(suite, agent)
    judge_model = judge or stores.settings.judge_model
    if batch:
        result = _run_batch(usecases.rescore_batch_pass(
            stores, run_id, kind="judge", model=judge_model, rubric_version=rubric, repeats=repeats,
            suite_path=suite_path, agent_path=agent_path))
    else:
        result = usecases.rescore_run(stores, run_id, rubric_version=rubric, judge_model=judge_model,
                                      repeats=repeats, suite_path=suite_path, agent_path=agent_path)
    card = usecases.scorecard(stores, result.run_id, rubric_version=result.rubric_version,
                              judge=result.judge_model)
    # A fitted judge stored with --force says so wherever it judges (as `show` does), else None.
    warning = usecases.fitted_judge_warning(stores, result.judge_model)
    if json_out:
        print(json.dumps({"run_id": result.run_id, "rubric_version": result.rubric_version,
                          "judge": result.judge_model, "added": result.added,
                          "skipped": result.skipped, "unscored": result.unscored,
                          "failed": result.failed, "judge_errors": result.errors,
                          "agent_failures": result.agent_failures, "verdicts": card.verdicts,
                          "mean_composite": card.mean_composite, "gates": card.gates,
                          "judge_warning": warning, "exit_code": 1 if failure_line([card]) else 0}, indent=2))
        stop_on_failures(err, [card])
        return
    console.print(f"{result.run_id}: {result.added} judgment(s) added under rubric "
                  f"{result.rubric_version} by {result.judge_model}"
                  + (f"; {len(result.skipped)} already judged, kept as they were"
                     if result.skipped else "")
                  + (f"; {len(result.unscored)} never scored (provider or simulator error)"
                     if result.unscored else "")
                  + (f"; {len(result.agent_failures)} broken call(s), failed without judging"
                     if result.agent_failures else "")
                  + (f"; {len(result.failed)} not judged: the judge failed"
                     if result.failed else ""), highlight=False)
    console.print(fit(console, _render.scorecards_table([card])))
    if warning:
        console.print(f"[yellow]{escape(warning)}[/]", markup=True, highlight=False)
    console.print(f"See `polygon show {result.run_id} --rubric {result.rubric_version} "
                  f"--judge {result.judge_model}`.", highlight=False)
    stop_on_failures(err, [card])


@friendly
def probe(
    run_id: Annotated[str, typer.Argument(help="run id (or a unique prefix)")],
    probes: Annotated[Path | None, typer.Option(help="probe library YAML (default: the bundled one)")] = None,
    model: Annotated[str | None, typer.Option(
        help="probe model: offline (heuristic) or e.g. openai:<model>; compact:<that> for a small local model "
             "(default: POLYGON_PROBE_MODEL)")] = None,
    suite: Annotated[Path | None, typer.Option(help="suite folder (default: the run's manifest)")] = None,
    agent: Annotated[Path | None, typer.Option(help="agent YAML (default: the run's manifest)")] = None,
    batch: Annotated[bool, typer.Option("--batch", help=_BATCH_HELP)] = False,
    json_out: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False,
) -> None:
    """Answer behaviour probes on a stored run (own pass; composites and verdicts untouched)."""
    from polygon import usecases

    from . import _render

    if probes is not None and not probes.is_file():
        raise ValueError(f"{probes}: no such probe file")
    stores = usecases.open_stores()
    suite_path, agent_path = _paths(suite, agent)
    probe_model = model or stores.settings.probe_model
    probes_path = str(probes.resolve()) if probes else None
    if batch:
        result = _run_batch(usecases.rescore_batch_pass(
            stores, run_id, kind="probe", model=probe_model, probes_path=probes_path,
            suite_path=suite_path, agent_path=agent_path))
    else:
        result = usecases.probe_run(stores, run_id, probes_path=probes_path, probe_model=probe_model,
                                    suite_path=suite_path, agent_path=agent_path)
    card = usecases.scorecard(stores, result.run_id, probe_model=result.judge_model)  # the answers just made
    total = len(usecases.conversation_records(stores, result.run_id))
    failed = result.failed or sorted(result.errors)  # a batch pass stores its failures as `errors` only
    if json_out:
        print(json.dumps({"run_id": result.run_id, "probe_model": result.judge_model, "added": result.added,
                          "failed": failed, "probe_errors": result.errors, "conversations": total,
                          "probes": [p.model_dump(mode="json") for p in card.probes],
                          "exit_code": 1 if failed else 0}, indent=2))
    else:
        console.print(f"{result.run_id}: {result.added} probe answer(s) by {result.judge_model}",
                      highlight=False)
        console.print(fit(console, _render.probes_table([card])))
    if failed:
        first = result.errors.get(failed[0], "no reason recorded")
        err.print(f"[red]error:[/] probe answerer {escape(result.judge_model)} failed on {len(failed)} of "
                  f"{total} conversations: {escape(first)}", markup=True, highlight=False, soft_wrap=True)
        raise typer.Exit(1)
