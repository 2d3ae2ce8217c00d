"""`polygon compare`."""

from __future__ import annotations

from typing import Annotated

import typer

from ._app import _print_comparison, friendly


def register(app: typer.Typer) -> None:
    """Add the compare command."""

    @app.command()
    @friendly
    def compare(run_ids: Annotated[list[str], typer.Argument(help="two or more run ids")]) -> None:
        """Compare runs: scorecards, the scenario matrix, first divergent turns."""
        if len(run_ids) < 2:
            raise ValueError("compare needs at least two run ids")
        _print_comparison(run_ids)
