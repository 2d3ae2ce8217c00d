"""Files of production calls that arrived (S3 objects by key and ETag, webhook calls), so each is
imported once.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create polygon_call_object."""
    op.create_table(
        "polygon_call_object",
        sa.Column("source", sa.String(), nullable=False),
        sa.Column("key", sa.String(), nullable=False),
        sa.Column("etag", sa.String(), nullable=False),
        sa.Column("via", sa.String(), nullable=False),
        sa.Column("location", sa.String(), nullable=False),
        sa.Column("fmt", sa.String(), nullable=False),
        sa.Column("seen_at", sa.String(), nullable=False),
        sa.Column("imported_at", sa.String(), nullable=True),
        sa.Column("batch", sa.String(), nullable=True),
        sa.Column("imported", sa.Integer(), nullable=False),
        sa.Column("duplicates", sa.Integer(), nullable=False),
        sa.Column("rejected", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("source", "key", "etag", name="pk_polygon_call_object"),
    )
    op.create_index("ix_polygon_call_object_pending", "polygon_call_object", ["imported_at", "source"])


def downgrade() -> None:
    """Drop the table (the next pull then imports every object again: the import ledger still
    refuses calls already imported)."""
    op.drop_index("ix_polygon_call_object_pending", table_name="polygon_call_object")
    op.drop_table("polygon_call_object")
