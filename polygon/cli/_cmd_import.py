"""`polygon import` and `polygon grade-calls`: production transcripts in, graded runs out."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from ._base import console, err, foreground_flows, friendly, quiet_prefect

# `{…}` in a help: filled from the registries when the help is shown (`_base.REGISTRY_TOKENS`).


@friendly
def import_(files: Annotated[list[str], typer.Argument(help="files (or s3:// URIs) to import")],
            fmt: Annotated[str | None, typer.Option(
                "--format", "-f", help="{formats} (default: what the file name says, as grade-calls "
                                    "guesses it)")] = None,
            source: Annotated[str | None, typer.Option(
                help="source name: the idempotency scope (default: the format)")] = None,
            agent: Annotated[Path | None, typer.Option(
                help="agent YAML that answered these calls (its name and version)")] = None,
            suite: Annotated[Path | None, typer.Option(
                help="suite the agent is run on synthetically (same version hash)")] = None,
            speaker_map: Annotated[str | None, typer.Option(
                help="extra speaker labels: LABEL=caller,OTHER=agent")] = None,
            json_out: Annotated[bool, typer.Option("--json", help="print one JSON object")] = False,
            ) -> None:
    """Import production transcripts (redacted before storage); re-importing adds nothing."""
    from polygon import usecases
    from polygon_core.imports import FORMATS, parse_speaker_map

    if fmt is not None and fmt not in FORMATS:
        raise ValueError(f"unknown --format {fmt!r}; expected one of: {', '.join(FORMATS)}")
    mapping = parse_speaker_map(speaker_map)
    for f in files:
        if not f.startswith("s3://") and not Path(f).is_file():
            raise FileNotFoundError(f"{f}: no such file")
    # Without --format, each file's name must say its format (one line, exit 2, when one does not).
    fmt, source = usecases.import_formats(files, fmt, source)
    stores = usecases.open_stores()
    summary = usecases.import_calls(
        stores, files, fmt, source=source,
        agent_path=str(agent.resolve()) if agent else None,
        suite_path=str(suite.resolve()) if suite else None, speaker_map=mapping)
    if json_out:
        print(json.dumps(summary.model_dump()))
    else:
        console.print(f"read {summary.read}, imported {summary.imported}, duplicates "
                      f"{summary.duplicates}, rejected {summary.rejected}")
        for line in summary.errors:
            err.print(f"[yellow]skipped:[/] {escape(line)}", markup=True, highlight=False, soft_wrap=True)
    if summary.rejected and not summary.imported and not summary.duplicates:
        raise typer.Exit(2)


@friendly
def grade_calls(source: Annotated[str, typer.Argument(
                    help="an imported source name, a folder, or an s3:// prefix")],
                since: Annotated[str | None, typer.Option(help="first day (YYYY-MM-DD)")] = None,
                until: Annotated[str | None, typer.Option(help="last day, included")] = None,
                fmt: Annotated[str | None, typer.Option(
                    "--format", "-f", help="{formats} (default: what each file's name says)")] = None,
                agent: Annotated[Path | None, typer.Option(help="agent YAML")] = None,
                suite: Annotated[Path | None, typer.Option(help="suite, for the agent version")] = None,
                rubric: Annotated[str | None, typer.Option(
                    help="rubric version (default: POLYGON_RUBRIC, else v1; a graded window keeps its own)")] = None,
                judge_model: Annotated[str | None, typer.Option(
                    help="judge: {model_forms}, optionally @<base URL>; compact:<that> asks a small "
                         "local model in the compact format (default: POLYGON_JUDGE_MODEL)")] = None,
                probe_model: Annotated[str | None, typer.Option(
                    help="probe answerer, as --judge-model (default: POLYGON_PROBE_MODEL)")] = None,
                batch_judging: Annotated[bool, typer.Option(
                    "--batch-judging", help="judge and probe through the provider's batch API "
                    "(half price; waits for the batch)")] = False,
                json_out: Annotated[bool, typer.Option("--json", help="print one JSON object")] = False,
                ) -> None:
    """Grade a source's calls in a date window as production runs (the Prefect flow)."""
    from polygon import usecases

    usecases.parse_window(since, until)  # bad dates fail here, before Prefect starts
    stores = usecases.open_stores()
    usecases.check_call_source(stores, source)  # a typo is exit 2 naming the known sources, not "no calls"
    settings = stores.settings
    for name, role in ((judge_model, "judge"), (probe_model, "probe answerer")):
        if name:
            usecases.check_model_name(stores, name, role)  # a bad name or a missing key: one line, exit 2
    models = [judge_model or settings.judge_model, probe_model or settings.probe_model]
    if batch_judging and all(m in usecases.OFFLINE_NAMES for m in models):
        raise ValueError("--batch-judging needs a model judge or probe answerer (--judge-model / "
                         f"--probe-model {usecases.batch_model_forms()}); the offline ones have nothing to batch")
    # A graded window resumes with its own rubric and models: another one named is refused here, in one line.
    usecases.check_regrade(stores, source, since, until, judge_model=judge_model, probe_model=probe_model,
                           rubric_version=rubric)
    quiet_prefect()
    from polygon.flows import grade_production_calls

    with foreground_flows():
        result = grade_production_calls(
            source=source, since=since, until=until, fmt=fmt,
            agent_path=str(agent.resolve()) if agent else None,
            suite_path=str(suite.resolve()) if suite else None, rubric_version=rubric,
            judge_model=judge_model, probe_model=probe_model, batch_judging=batch_judging)
    from polygon_core.compare import Scorecard

    from ._failures import stop_on_failures

    cards = [Scorecard.model_validate(c) for c in result["runs"]]
    imp = result["import"]
    # Every call read rejected: nothing was graded, and "no calls in the window" would read as green.
    rejected_all = usecases.all_production_rejected(source, imp, fmt, format_option="--format")
    if json_out:
        print(json.dumps(result))
        stop_on_failures(err, cards)
        _stop_if_rejected(rejected_all)
        return
    if imp["read"]:
        console.print(f"imported {imp['imported']} of {imp['read']} "
                      f"({imp['duplicates']} duplicates, {imp['rejected']} rejected)")
    for line in usecases.production_rejections(imp):  # as `polygon import` says them, the first 20
        err.print(f"[yellow]skipped:[/] {escape(line)}", markup=True, highlight=False, soft_wrap=True)
    _stop_if_rejected(rejected_all)
    if not result["runs"]:
        console.print(f"no calls of {source!r} in the window")
    for card in result["runs"]:
        v = card["verdicts"]
        mean = card["mean_composite"]
        # Every number says how it was made: the rubric and the judge behind the mean and verdicts.
        console.print(f"{card['run_id']}: {card['conversations']} calls, mean "
                      f"{'—' if mean is None else f'{mean:.1f}'}, pass/warn/fail "
                      f"{v['pass']}/{v['warn']}/{v['fail']} (rubric {card['rubric_version']}, "
                      f"judge {card['judge_model']})", highlight=False, soft_wrap=True)
    stop_on_failures(err, cards)


def _stop_if_rejected(error: Exception | None) -> None:
    """Exit 1 with one `error:` line when every call read was rejected (the reasons are above it)."""
    if error is not None:
        err.print(f"[red]error:[/] {escape(str(error))}", markup=True, highlight=False, soft_wrap=True)
        raise typer.Exit(1)
