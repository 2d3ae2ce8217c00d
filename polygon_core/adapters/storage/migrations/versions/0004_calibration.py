"""Calibration records: a judge against people's labels (`polygon calibrate`).

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create polygon_calibration."""
    op.create_table(
        "polygon_calibration",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("judge_model", sa.String(), nullable=False),
        sa.Column("rubric_version", sa.String(), nullable=False),
        sa.Column("judge_prompt_hash", sa.String(), nullable=False),
        sa.Column("run_id", sa.String(), nullable=False),
        sa.Column("labels_hash", sa.String(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("resamples", sa.Integer(), nullable=False),
        sa.Column("n", sa.Integer(), nullable=False),
        sa.Column("results", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_polygon_calibration"),
        sa.UniqueConstraint("judge_model", "rubric_version", "judge_prompt_hash", "run_id", "labels_hash",
                            "seed", "resamples", name="uq_polygon_calibration_key"),
    )
    op.create_index(
        "ix_polygon_calibration_latest",
        "polygon_calibration",
        ["judge_model", "rubric_version", "created_at"],
    )


def downgrade() -> None:
    """Drop the table (every calibration record is lost)."""
    op.drop_index("ix_polygon_calibration_latest", table_name="polygon_calibration")
    op.drop_table("polygon_calibration")
