"""`polygon validate`, `polygon schema` and `polygon db upgrade`: files and the database, nothing run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from ._base import console, err, friendly


@friendly
def validate(paths: Annotated[list[Path], typer.Argument(help="suite folders or YAML files")]) -> None:
    """Check scenario, suite, tool-library, agent, sweep and probe-library files without running anything."""
    from polygon import usecases
    from polygon_core.files import validation_warnings

    errors = usecases.validate_files(paths)
    for e in errors:
        err.print(f"[red]error:[/] {escape(str(e))}", markup=True, highlight=False, soft_wrap=True)
    # Warnings never change the exit code: the files are valid, they just may not test what is meant.
    for w in validation_warnings(paths):
        err.print(f"[yellow]warning:[/] {escape(str(w))}", markup=True, highlight=False, soft_wrap=True)
    if errors:
        raise typer.Exit(2)
    console.print(f"ok: {len(paths)} path(s) valid")


@friendly
def schema(kind: Annotated[str, typer.Argument(help="scenario | sweep | agent | suite | tools | probes")]) -> None:
    """Print the JSON Schema of a file kind (for editors)."""
    from polygon_core.files import json_schema

    print(json.dumps(json_schema(kind), indent=2))


@friendly
def db_upgrade() -> None:
    """Apply database migrations (Alembic) to the configured database."""
    from polygon import usecases

    url = usecases.upgrade_database()
    console.print(f"database at head: {url.split('@')[-1]}")

