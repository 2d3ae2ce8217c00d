"""`polygon sources validate FILE`: check the file naming where production calls come from."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from ._base import console, friendly
from ._fit import fit


@friendly
def validate(file: Annotated[Path, typer.Argument(help="sources file (YAML), e.g. sources.yaml")]) -> None:
    """Check a sources file: platforms, secret variable names, agents, suites, regions, S3 prefixes
    (exit 2 naming file, line and field of each problem). A secret variable that is not set here
    is reported, not an error: the receiver's environment is what counts."""
    from polygon_core.imports import load_sources

    loaded = load_sources(file)
    table = Table(title=f"{file}: {len(loaded.sources)} source(s)")
    for column in ("source", "platform", "webhook secret", "agent", "grade on arrival", "region", "S3 prefix"):
        table.add_column(column, overflow="fold")
    for name, source in loaded.sources.items():
        secret = "—" if source.secret_env is None else (
            f"{source.secret_env} (set)" if os.environ.get(source.secret_env) else f"{source.secret_env} (not set here)")
        table.add_row(name, source.platform, secret, source.agent or "—", "yes" if source.grade_on_arrival else "no",
                      source.redaction_region or "settings", source.s3_prefix or "—")
    console.print(fit(console, table))
    console.print(f"{file}: valid", soft_wrap=True)
