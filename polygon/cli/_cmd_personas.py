"""`polygon personas …`: generate an agent's simulated callers, list, export, import and pin them."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from ._base import console, err, friendly
from ._fit import fit


@friendly
def generate(agent: Annotated[Path, typer.Option("--agent", "-a", help="agent YAML whose prompt is read")],
             count: Annotated[int, typer.Option(min=1, max=500, help="personas to plan")] = 12,
             seed: Annotated[int, typer.Option(help="generation seed")] = 0,
             model: Annotated[str, typer.Option(help="offline, or a model name (openai:<m>, …)")] = "offline",
             ) -> None:
    """Generate personas from the agent's prompt; personas of an older prompt are marked stale."""
    from polygon import usecases

    report = usecases.generate_personas(agent, count=count, seed=seed, model=model)
    console.print(f"agent {report.agent}: prompt {report.prompt_hash}: stored {len(report.stored)} persona(s) "
                  f"({report.generator})")
    if report.dropped:
        console.print(f"dropped {len(report.dropped)} near-duplicate(s): {', '.join(report.dropped)}")
    if report.marked_stale:
        console.print(f"marked {len(report.marked_stale)} stale: {', '.join(report.marked_stale)}")
    for warning in report.warnings:
        err.print(f"[yellow]warning:[/] {escape(str(warning))}", markup=True, highlight=False, soft_wrap=True)
    for failure in report.failed:
        err.print(f"[red]failed:[/] {escape(str(failure))}", markup=True, highlight=False, soft_wrap=True)
    if report.failed:
        raise typer.Exit(1)


def _agent_name(agent: str | None) -> str | None:
    """An agent name as given, or the name in an agent file: its personas of another prompt are
    marked stale first, so `--stale` shows what a run would refuse before any run refuses it."""
    if agent is None or not Path(agent).is_file():
        return agent
    from polygon import usecases

    name, _prompt, current = usecases.persona_prompt(agent)
    marked = usecases.mark_stale_personas(agent)
    if marked:
        err.print(f"agent {name}: prompt is now {current}: marked {len(marked)} persona(s) stale: "
                  f"{', '.join(r.id for r in marked)}", highlight=False, soft_wrap=True)
    return name


@friendly
def list_personas(agent: Annotated[str | None, typer.Option(
                      help="agent name, or the agent YAML (then personas of an older prompt show as stale)")] = None,
                  stale: Annotated[bool, typer.Option("--stale", help="only stale personas")] = False) -> None:
    """List stored personas (status, prompt hash, type, outcome, difficulty, goal)."""
    from polygon import usecases

    records = usecases.list_personas(_agent_name(agent), stale_only=stale)
    table = Table(title="Personas")
    table.add_column("id", no_wrap=True)
    for col in ("agent", "prompt", "status", "type", "outcome", "diff", "goal"):
        table.add_column(col, overflow="fold")
    for r in records:
        p = r.persona
        table.add_row(r.id, r.agent, r.prompt_hash, r.status, p.type if p else "—",
                      p.intended_outcome if p else "—", str(p.difficulty) if p else "—",
                      p.goal if p else (r.error or ""))
    # The id is long and never wrapped: at 80 columns the other columns were squeezed to a letter
    # a line. Narrow terminals lose the agent column (one agent, when --agent is given), then
    # print one block per persona.
    console.print(fit(console, table, drop=("agent",)))


@friendly
def export(out: Annotated[Path, typer.Argument(help="folder to write YAML files to")],
           agent: Annotated[str | None, typer.Option(help="agent name")] = None,
           include_stale: Annotated[bool, typer.Option("--include-stale")] = False) -> None:
    """Write personas as YAML files for review and editing (re-import with `personas import`)."""
    from polygon import usecases

    paths = usecases.export_personas(out, agent, include_stale=include_stale)
    console.print(f"exported {len(paths)} persona(s) to {out}")


@friendly
def import_(files: Annotated[list[Path], typer.Argument(help="persona YAML files (or folders)")],
            pin: Annotated[bool, typer.Option("--pin", help="pin every imported persona")] = False) -> None:
    """Store edited persona files (all are validated before any is stored)."""
    paths = [p for f in files for p in (sorted(f.glob("*.yaml")) if f.is_dir() else [f])]
    from polygon import usecases

    records = usecases.import_personas(paths, pin=pin)
    console.print(f"imported {len(records)} persona(s)" + (" (pinned)" if pin else ""))


@friendly
def pin(persona: Annotated[str, typer.Argument(help="persona id")],
        agent: Annotated[str | None, typer.Option(help="agent name")] = None) -> None:
    """Pin a persona: it is kept as reviewed, never marked stale or replaced."""
    from polygon import usecases

    record = usecases.pin_persona(persona, agent)
    console.print(f"pinned {record.id} ({record.agent}, prompt {record.prompt_hash})")


def persona_run_suite(suite: Path, agents: list[Path], *, allow_stale: bool = False) -> Path:
    """For `polygon run --personas`: the suite folder that runs the agent's generated personas.

    Personas belong to an agent name; with several agents (a comparison) they are checked against
    the last agent's prompt and every agent meets the same callers. Stale personas stop the run with
    a message naming them unless `allow_stale`; the line saying which personas are used goes to stderr.
    """
    from polygon import usecases

    out, selection = usecases.persona_run_suite(suite, agents[-1], allow_stale=allow_stale)
    err.print(selection.describe(), highlight=False, soft_wrap=True)
    return out
