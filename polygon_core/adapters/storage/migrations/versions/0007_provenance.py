"""Provenance: what made a run (Polygon and package versions, formats), and a judgment's format.

Runs stored before this revision have no provenance (NULL: `polygon show` says so); judgments
stored before it read as format 0, written before formats were versioned. Nothing is rewritten.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add polygon_run.provenance (JSON, nullable) and polygon_judgment.format_version (default 0)."""
    with op.batch_alter_table("polygon_run") as batch:
        batch.add_column(sa.Column("provenance", sa.JSON(none_as_null=True), nullable=True))
    with op.batch_alter_table("polygon_judgment") as batch:
        batch.add_column(sa.Column("format_version", sa.Integer(), nullable=False, server_default="0"))


def downgrade() -> None:
    """Drop both columns (the provenance of runs is lost)."""
    with op.batch_alter_table("polygon_judgment") as batch:
        batch.drop_column("format_version")
    with op.batch_alter_table("polygon_run") as batch:
        batch.drop_column("provenance")
