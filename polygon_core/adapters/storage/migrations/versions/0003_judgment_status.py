"""A judgment's status and reason: judged, judge_error or agent_failure.

Rows stored before this revision were all made by a judge that answered, so they read as `judged`
with no reason: their scores, verdicts and comparisons are exactly what they were.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add `status` (default `judged`) and `reason` to polygon_judgment."""
    with op.batch_alter_table("polygon_judgment") as batch:
        batch.add_column(sa.Column("status", sa.String(), nullable=False, server_default="judged"))
        batch.add_column(sa.Column("reason", sa.Text(), nullable=True))


def downgrade() -> None:
    """Drop both columns (judge errors and agent failures are lost)."""
    with op.batch_alter_table("polygon_judgment") as batch:
        batch.drop_column("reason")
        batch.drop_column("status")
