"""`polygon replay`: re-run one stored conversation from its seeds and diff it turn by turn."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich.table import Table

from ._base import JSON_HELP, console, friendly
from ._fit import fit


def _against(result: Any) -> str:
    """Which agent and which caller the replay ran, so a diff is read against the right ones."""
    caller = ("offline caller run again from its seed" if result.caller == "offline"
              else f"caller {result.caller}: its stored lines said again")
    return f"agent version {result.agent_version[:12]}, {caller}"


@friendly
def replay(conversation: Annotated[str, typer.Argument(help="conversation id (see `polygon show RUN`)")],
           run: Annotated[str | None, typer.Option(help="run id; default: the newest run holding it")] = None,
           json_out: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False,
           ) -> None:
    """Replay a stored conversation and print every turn that differs (exit 1 if any does)."""
    from polygon import usecases

    stores = usecases.open_stores()
    run_id = run
    if run_id is None:
        holding = usecases.run_with_conversation(stores, conversation)
        if holding is None:
            raise ValueError(f"no stored run holds conversation {conversation!r}")
        run_id = holding.id
    else:
        found = usecases.find_run(stores, run_id)
        if found is None:
            raise ValueError(f"no run {run_id!r} is stored")
        run_id = found.id
    result = usecases.replay_conversation(stores, run_id, conversation)
    if json_out:
        print(json.dumps({**result.model_dump(mode="json"), "identical": result.identical}, indent=2))
        if not result.identical:
            raise typer.Exit(1)
        return
    against = _against(result)
    if result.identical:
        console.print(f"replayed {conversation} from run {run_id}: no differences "
                      f"(end reason {result.end_reason[0]}; {against})")
        return
    table = Table(title=f"Replay of {conversation} (run {run_id}; {against}): differences")
    for col in ("turn", "field", "stored", "replayed"):
        table.add_column(col, overflow="fold")
    for d in result.differences:
        table.add_row("call" if d.turn < 0 else str(d.turn), d.field, d.stored or "—", d.replayed or "—")
    if result.end_reason[0] != result.end_reason[1]:
        table.add_row("end", "end_reason", *result.end_reason)
    console.print(fit(console, table))
    raise typer.Exit(1)
