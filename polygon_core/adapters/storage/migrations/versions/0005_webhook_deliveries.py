"""Webhook delivery ids already received, so replays are refused across restarts and replicas.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create polygon_webhook_delivery."""
    op.create_table(
        "polygon_webhook_delivery",
        sa.Column("delivery_id", sa.String(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("received_at", sa.String(), nullable=False),
        sa.Column("expires_at", sa.String(), nullable=False),
        sa.PrimaryKeyConstraint("delivery_id", name="pk_polygon_webhook_delivery"),
    )
    op.create_index("ix_polygon_webhook_delivery_expires_at", "polygon_webhook_delivery", ["expires_at"])


def downgrade() -> None:
    """Drop the table (replays of past deliveries are then accepted again)."""
    op.drop_index("ix_polygon_webhook_delivery_expires_at", table_name="polygon_webhook_delivery")
    op.drop_table("polygon_webhook_delivery")
