"""Initial schema: runs, conversations, judgments, probe answers.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _run_fk(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["run_id"],
        ["polygon_run.id"],
        name=f"fk_{table}_run_id_polygon_run",
        ondelete="CASCADE",
    )


def upgrade() -> None:
    """Create Polygon's four tables."""
    op.create_table(
        "polygon_run",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("suite", sa.String(), nullable=False),
        sa.Column("agent_name", sa.String(), nullable=False),
        sa.Column("agent_version", sa.String(), nullable=False),
        sa.Column("rubric_version", sa.String(), nullable=False),
        sa.Column("seeds", sa.JSON(), nullable=False),
        sa.Column("models", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("source", sa.String(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.Column("summary", sa.JSON(), nullable=True),
        sa.Column("report_uri", sa.String(), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_polygon_run"),
    )
    op.create_index("ix_polygon_run_created_at", "polygon_run", ["created_at"])

    op.create_table(
        "polygon_conversation",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("run_id", sa.String(), nullable=False),
        sa.Column("conversation_id", sa.String(), nullable=False),
        sa.Column("scenario_id", sa.String(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("caller_type", sa.String(), nullable=False),
        sa.Column("difficulty", sa.Integer(), nullable=False),
        sa.Column("language", sa.String(), nullable=False),
        sa.Column("noise", sa.Float(), nullable=False),
        sa.Column("agent_version", sa.String(), nullable=False),
        sa.Column("end_reason", sa.String(), nullable=False),
        sa.Column("turn_count", sa.Integer(), nullable=False),
        sa.Column("artifact_uri", sa.String(), nullable=False),
        sa.Column("assertions", sa.JSON(), nullable=False),
        sa.Column("metrics", sa.JSON(), nullable=True),
        sa.Column("usage", sa.JSON(), nullable=False),
        sa.Column("models", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_polygon_conversation"),
        _run_fk("polygon_conversation"),
        sa.UniqueConstraint("run_id", "conversation_id", name="uq_polygon_conversation_key"),
    )
    op.create_index("ix_polygon_conversation_run_id", "polygon_conversation", ["run_id"])

    op.create_table(
        "polygon_judgment",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("run_id", sa.String(), nullable=False),
        sa.Column("conversation_id", sa.String(), nullable=False),
        sa.Column("rubric_version", sa.String(), nullable=False),
        sa.Column("judge_model", sa.String(), nullable=False),
        sa.Column("repeats", sa.Integer(), nullable=False),
        sa.Column("composite", sa.Float(), nullable=True),
        sa.Column("partial", sa.Boolean(), nullable=False),
        sa.Column("verdict", sa.String(), nullable=True),
        sa.Column("not_scored", sa.JSON(), nullable=False),
        sa.Column("criteria", sa.JSON(), nullable=False),
        sa.Column("gates", sa.JSON(), nullable=False),
        sa.Column("raw", sa.JSON(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_polygon_judgment"),
        _run_fk("polygon_judgment"),
        sa.UniqueConstraint(
            "run_id",
            "conversation_id",
            "rubric_version",
            "judge_model",
            name="uq_polygon_judgment_key",
        ),
    )
    op.create_index("ix_polygon_judgment_run_id", "polygon_judgment", ["run_id"])

    op.create_table(
        "polygon_probe_answer",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("run_id", sa.String(), nullable=False),
        sa.Column("conversation_id", sa.String(), nullable=False),
        sa.Column("probe_id", sa.String(), nullable=False),
        sa.Column("wording_hash", sa.String(), nullable=False),
        sa.Column("polarity", sa.String(), nullable=False),
        sa.Column("answer", sa.String(), nullable=False),
        sa.Column("evidence", sa.Text(), nullable=True),
        sa.Column("answered_by", sa.String(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_polygon_probe_answer"),
        _run_fk("polygon_probe_answer"),
        sa.UniqueConstraint(
            "run_id",
            "conversation_id",
            "probe_id",
            "wording_hash",
            "answered_by",
            name="uq_polygon_probe_answer_key",
        ),
    )
    op.create_index("ix_polygon_probe_answer_run_id", "polygon_probe_answer", ["run_id"])


def downgrade() -> None:
    """Drop Polygon's four tables (children first)."""
    for table in ("polygon_probe_answer", "polygon_judgment", "polygon_conversation"):
        op.drop_index(f"ix_{table}_run_id", table_name=table)
        op.drop_table(table)
    op.drop_index("ix_polygon_run_created_at", table_name="polygon_run")
    op.drop_table("polygon_run")
