"""`polygon sweep SPEC.yaml`: run a parameter sweep and print its leaderboard."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from ._base import JSON_HELP, console, err, foreground_flows, friendly, quiet_prefect
from ._fit import fit
from ._running import select_scenarios


def _narrowed_spec(spec: Path, suite: Path, patterns: list[str]) -> Path:
    """A copy of the spec whose `scenarios` are the suite's ids matching `patterns`, written under
    $POLYGON_HOME/sweeps/<name>/specs/ with its agent and suite made absolute (it no longer sits
    beside them) and its prompt files copied beside it.

    The points' profiles hash the chosen scenarios, so a narrowed sweep never reuses a point run
    of another selection.
    """
    import yaml

    from polygon_core import content_hash
    from polygon_core.adapters.settings import load_settings

    chosen = select_scenarios(suite, patterns)
    doc = yaml.safe_load(spec.read_text(encoding="utf-8"))
    base = spec.resolve().parent
    doc["agent"], doc["suite"] = str((base / doc["agent"]).resolve()), str((base / doc["suite"]).resolve())
    doc["scenarios"] = chosen
    folder = load_settings().home.expanduser() / "sweeps" / str(doc["name"]) / "specs"
    folder.mkdir(parents=True, exist_ok=True)
    for key in ("prompt_file", "prompt", "prompt_variant"):  # prompt files are named relative to the spec
        body = (doc.get("parameters") or {}).get(key)
        values = body if isinstance(body, list) else body.get("values") if isinstance(body, dict) else None
        if values:
            values[:] = [_prompt_copy(base / v, folder) for v in values]
    text = yaml.safe_dump(doc, sort_keys=False)
    out = folder / f"{content_hash(text, 10)}.yaml"
    out.write_text(text, encoding="utf-8")
    return out


def _prompt_copy(source: Path, folder: Path) -> str:
    """A copy of a (checked) prompt file under `folder`, named by its content, as the narrowed spec
    names it: a sweep's prompt files must lie inside its spec's folder (docs/sweeps.md)."""
    from polygon_core import content_hash

    text = source.read_text(encoding="utf-8")
    name = f"prompts/{content_hash(text, 10)}-{source.name}"
    (folder / "prompts").mkdir(exist_ok=True)
    (folder / name).write_text(text, encoding="utf-8")
    return name


@friendly
def sweep(spec: Annotated[Path, typer.Argument(help="sweep spec YAML")],
          json_out: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False,
          scenario: Annotated[list[str] | None, typer.Option(
              "--scenario", help="sweep only this scenario id or glob (repeatable; replaces the spec's "
                                 "`scenarios`)")] = None,
          ) -> None:
    """Run a sweep: each point an immutable profile, budgeted, ranked on a leaderboard."""
    from polygon import usecases as sweep_adapter

    loaded = sweep_adapter.load_sweep(spec)  # file errors before anything starts
    if scenario:
        loaded = sweep_adapter.load_sweep(_narrowed_spec(spec, loaded.suite_path, scenario))
    sweep_adapter.planned_conversations(loaded)
    # What `run` checks before it starts (validate's checks, then a `callable` imported for real):
    # a bad agent is one line here, not a task failure's traceback in the middle of the first point.
    sweep_adapter.check_run_inputs(loaded.suite_path, [loaded.agent_path])
    quiet_prefect()
    from polygon.flows import run_sweep

    from . import _progress

    # Points run one after another (33 s for the demo's): the conversations stored so far, on
    # stderr (a bar on a terminal, plain lines in a CI log), so --json on stdout stays one object.
    total, stored = sweep_adapter.sweep_progress(sweep_adapter.open_stores(), str(loaded.path))
    with _progress.watch(err, total, stored, enabled=True, label="sweep:"), foreground_flows():
        report = run_sweep(spec_path=str(loaded.path))
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
    console.print(fit(console, table, drop=("spread across seeds", "latency/turn ms", "tokens")))
    if report.get("matrix_top"):
        from polygon_core.compare import MatrixRow

        from ._render import matrix_table

        rows = [MatrixRow.model_validate(r) for r in report["matrix_top"]]
        console.print(matrix_table(rows, [r["label"] for r in report["leaderboard"][:3]]))
    for item in report["refused"]:
        console.print(f"[yellow]refused[/] {escape(item['label'])}: {escape(item['reason'])}", markup=True,
                      highlight=False)
    for same in report.get("same_configuration", []):  # labels are the spec's text: never markup
        console.print(f"not run again: {same['label']} configures what {same['same_as']} does (its result "
                      "is that point's)", markup=False, highlight=False)
    if report["stopped_early"]:
        console.print(f"[red]stopped early[/]: {escape(report['stopped_early'])}", markup=True, highlight=False)
