"""`polygon calibrate`: a judge against people's ratings (docs/calibration.md), or `--fit` a judge to them."""

from __future__ import annotations

import json
from dataclasses import asdict, is_dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich import box
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from ._base import console, err, friendly

# polygon_core.calibration is imported where a calibration is computed or printed: every command
# imports this module to register `calibrate`, and `--help` or a command that prints no report
# needs none of it.
if TYPE_CHECKING:
    from polygon_core.calibration import Calibration, Estimate

#: polygon_core.calibration's DEFAULT_SEED and DEFAULT_RESAMPLES, the options' defaults shown by
#: `--help` (written here so that registering the command imports nothing; a test pins them equal).
DEFAULT_SEED = 0
DEFAULT_RESAMPLES = 1000

_LEFT_OUT = {"no_judgment": "no judgment", "judge_error": "judge error", "agent_failure": "broken call",
             "not_applicable": "not applicable", "not_scored": "not scored"}


def _cell(e: Estimate, *, interval: bool = True) -> str:
    """Value over its interval (two lines keep the table inside 100 columns)."""
    if e.value is None:
        return "—"
    if not interval or e.low is None or e.high is None:
        return f"{e.value:.2f}"
    return f"{e.value:.2f}\n[{e.low:.2f}, {e.high:.2f}]"


def calibration_table(c: Calibration) -> Table:
    """Rows = rated criteria, then overall; n, rho, tau, kappa, exact, within-one, bias."""
    from polygon_core.calibration import OVERALL

    table = Table(box=box.SIMPLE_HEAD, collapse_padding=True, pad_edge=False, show_lines=False)
    table.add_column("criterion", no_wrap=True)
    for name, justify in ( ("n", "right"), ("rho", "right"), ("tau", "right"),
                          ("kappa", "right"), ("exact", "right"), ("within\none", "right"), ("bias", "right")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for row in c.rows:
        table.add_row(Text(row.criterion, style="bold") if row.criterion == OVERALL else row.criterion, str(row.n),
                      _cell(row.rho), _cell(row.tau), _cell(row.kappa), _cell(row.exact, interval=False),
                      _cell(row.within_one, interval=False), _cell(row.bias))
    return table


def _alpha_line(c: Calibration) -> str:
    parts = []
    for row in c.rows:
        value = f"{row.people_alpha:.2f}" if row.people_alpha is not None else f"— ({row.people_alpha_reason})"
        parts.append(f"{row.criterion} {value}")
    return "the people's own agreement, the ceiling (Krippendorff's alpha, ordinal): " + ", ".join(parts)


def _left_out_line(c: Calibration) -> str | None:
    parts = [f"{row.criterion} {sum(row.left_out.values())} ("
             + ", ".join(f"{_LEFT_OUT.get(k, k)} {v}" for k, v in row.left_out.items()) + ")"
             for row in c.rows if row.left_out]
    return "left out (rated, not compared): " + "; ".join(parts) if parts else None


def stored_line(c: Calibration) -> str:
    """The line the calibrated run's scorecard now shows (the record is about its own calls)."""
    from polygon_core.calibration import calibration_line

    return calibration_line(c, "same_run", judge_model=c.judge_model, rubric_version=c.rubric_version,
                            current_prompt_hash=c.judge_prompt_hash)


def labels_lines(c: Calibration) -> list[str]:
    """Which labels: `dataset: support-q3`, `labels: labels.csv, 120 ratings, 2,345 bytes, sha256
    3f2a1c...`, and for the packaged sample where it is shown."""
    if c.labels is None:
        return ["labels: not recorded"]
    f = c.labels
    lines = [f"dataset: {f.dataset}",
             f"labels: {f.file}, {f.ratings} rating{'s' if f.ratings != 1 else ''}, {f.bytes:,} bytes, "
             f"sha256 {f.sha256[:12]}"]
    if f.sample:
        lines.append("shown only on runs of the sample's calls, never as this judge's calibration elsewhere")
    return lines


def print_calibration(c: Calibration) -> None:
    """The header, the table, the people's agreement and what was left out."""
    console.print(f"judge [bold]{escape(c.judge_model)}[/], rubric {escape(c.rubric_version)}, judge prompt "
                  f"{c.judge_prompt_hash}", markup=True, highlight=False)
    console.print(f"run {c.run_id}: {c.conversations} rated conversations, {c.raters} raters", highlight=False)
    for line in labels_lines(c):
        console.print(line, highlight=False, markup=False)
    console.print(f"bootstrap 95% intervals over conversations: {c.resamples} resamples, seed {c.seed}",
                  highlight=False)
    console.print(calibration_table(c))
    console.print(_alpha_line(c), highlight=False)
    left = _left_out_line(c)
    if left:
        console.print(left, highlight=False)
    # One line whatever its length (the data's name is the user's): a terminal wraps it, a script greps it.
    console.print("stored: " + stored_line(c), highlight=False, markup=False, soft_wrap=True)


def _cv_line(report: Any) -> str:
    """Per target: the fitted judge's cross-validated rho [interval], the offline judge's beside it."""
    from polygon_core.calibration import agreement_text

    parts = []
    for target, metrics in report.cv.items():
        offline = report.offline.get(target)
        parts.append(f"{target} {agreement_text(metrics)}"
                     + (f" (offline judge {agreement_text(offline)})" if offline else ""))
    return "cross-validated rho (grouped by conversation, 95% interval): " + ", ".join(parts)


def _fit(stores: Any, labels: Path, run_id: str, rubric: str | None, name: str, seed: int,
         json_out: bool, force: bool) -> None:
    from polygon import usecases

    try:
        fit_and_store = usecases.fit_and_store
    except ImportError:
        raise ValueError("fitting is not available in this version of Polygon") from None
    from polygon_core.calibration import FitRefusedError

    examples = usecases.labelled_conversations(stores, labels, run_id, rubric)
    found = usecases.find_run(stores, run_id)
    version = rubric or (found.rubric_version if found is not None else "v1")
    try:
        report = fit_and_store(stores, examples, name=name, seed=seed, rubric_version=version, force=force)
    except FitRefusedError as exc:  # a judgement on the fit, not bad input: exit 1, one line
        err.print(f"[red]error:[/] {escape(str(exc))}", markup=True, highlight=False, soft_wrap=True)
        raise typer.Exit(1) from None
    data = asdict(report) if is_dataclass(report) else dict(vars(report))
    if json_out:
        print(json.dumps(data, indent=2, default=str))
        return
    console.print(f"fitted judge [bold]{escape(report.model_name)}[/] on {report.n} labelled conversations "
                  f"(training set {report.training_hash})", markup=True, highlight=False, soft_wrap=True)
    console.print(_cv_line(report), highlight=False, soft_wrap=True)
    console.print(f"distinct out-of-fold overall predictions: {report.distinct}", highlight=False)
    if report.warning:
        err.print(f"[yellow]warning:[/] stored with --force: {escape(report.warning)}", markup=True, highlight=False,
                  soft_wrap=True)
    console.print(f"use it wherever a judge is named: --judge {report.model_name}", highlight=False)


@friendly
def calibrate(
    labels: Annotated[Path, typer.Argument(help="people's ratings: CSV or JSON Lines (docs/calibration.md)")],
    run: Annotated[str, typer.Option("--run", help="the run whose conversations were rated (or a prefix)")],
    judge: Annotated[str | None, typer.Option(
        help="judge to calibrate (default: the judge the run's scorecard shows); conversations it has "
             "not judged are judged first")] = None,
    rubric: Annotated[str | None, typer.Option(help="rubric version (default: the run's)")] = None,
    repeats: Annotated[int, typer.Option(help="judge calls per conversation it judges first")] = 1,
    seed: Annotated[int, typer.Option(help="bootstrap seed")] = DEFAULT_SEED,
    resamples: Annotated[int, typer.Option(help="bootstrap resamples")] = DEFAULT_RESAMPLES,
    json_out: Annotated[bool, typer.Option("--json", help="print one JSON object")] = False,
    fit: Annotated[str | None, typer.Option(
        "--fit", help="instead: train a judge named NAME on these labels (fitted:NAME@hash)")] = None,
    dataset: Annotated[str | None, typer.Option(
        "--dataset", help="the data's name, shown wherever the calibration is (default: the labels file's name)")
    ] = None,
    force: Annotated[bool, typer.Option(
        "--force", help="with --fit: store a fit that collapsed or does not beat the offline judge, "
                        "with a warning shown wherever it is used")] = False,
) -> None:
    """Compare a judge's scores with people's ratings; store the result as a calibration record."""
    from polygon import usecases
    from polygon.usecases import calibrate_run

    stores = usecases.open_stores()
    if fit is not None:
        _fit(stores, labels, run, rubric, fit, seed, json_out, force)
        return
    if repeats < 1:
        raise ValueError(f"--repeats must be at least 1, got {repeats}")
    from ._progress import Tally, follow

    # Judging what is not judged yet, then bootstrapping each row (49 s on the sample): each step's
    # progress on stderr (a bar on a terminal, plain lines in a CI log); stdout keeps --json clean.
    tally = Tally("calibrate: judged", "conversations")
    with follow(err, tally):
        outcome = calibrate_run(stores, labels, run, judge_model=judge, rubric_version=rubric,
                                repeats=repeats, seed=seed, resamples=resamples, dataset=dataset, progress=tally)
    c = outcome.calibration
    failed = outcome.judged.failed if outcome.judged else []
    if json_out:
        print(json.dumps({**c.model_dump(mode="json"), "line": stored_line(c), "judge_failed": failed}, indent=2))
    else:
        print_calibration(c)
    if failed:
        first = outcome.judged.errors.get(failed[0]) if outcome.judged else None
        err.print(f"[red]error:[/] judge {escape(c.judge_model)} failed on {len(failed)} of {c.conversations} "
                  f"labelled conversations: {escape(first or 'no reason recorded')} (left out of the calibration)",
                  markup=True, highlight=False, soft_wrap=True)
        raise typer.Exit(1)
