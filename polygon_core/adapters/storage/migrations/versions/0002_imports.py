"""Imported (production) conversations and production runs.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create the imported-conversation ledger and the production-run table."""
    op.create_table(
        "polygon_imported_conversation",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("source", sa.String(), nullable=False),
        sa.Column("external_id", sa.String(), nullable=False),
        sa.Column("conversation_id", sa.String(), nullable=False),
        sa.Column("started_at", sa.String(), nullable=True),
        sa.Column("scenario_id", sa.String(), nullable=False),
        sa.Column("agent_name", sa.String(), nullable=False),
        sa.Column("agent_version", sa.String(), nullable=False),
        sa.Column("turn_count", sa.Integer(), nullable=False),
        sa.Column("artifact_uri", sa.String(), nullable=False),
        sa.Column("batch", sa.String(), nullable=False),
        sa.Column("file", sa.String(), nullable=False),
        sa.Column("line", sa.Integer(), nullable=False),
        sa.Column("imported_at", sa.String(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_polygon_imported_conversation"),
        sa.UniqueConstraint("source", "external_id", name="uq_polygon_imported_conversation_key"),
    )
    op.create_index(
        "ix_polygon_imported_conversation_window",
        "polygon_imported_conversation",
        ["source", "started_at"],
    )
    op.create_table(
        "polygon_production_run",
        sa.Column("run_id", sa.String(), nullable=False),
        sa.Column("source", sa.String(), nullable=False),
        sa.Column("since", sa.String(), nullable=True),
        sa.Column("until", sa.String(), nullable=True),
        sa.Column("first_call", sa.String(), nullable=True),
        sa.Column("last_call", sa.String(), nullable=True),
        sa.Column("conversations", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("run_id", name="pk_polygon_production_run"),
        sa.ForeignKeyConstraint(
            ["run_id"],
            ["polygon_run.id"],
            name="fk_polygon_production_run_run_id_polygon_run",
            ondelete="CASCADE",
        ),
    )


def downgrade() -> None:
    """Drop both tables."""
    op.drop_table("polygon_production_run")
    op.drop_index(
        "ix_polygon_imported_conversation_window", table_name="polygon_imported_conversation"
    )
    op.drop_table("polygon_imported_conversation")
