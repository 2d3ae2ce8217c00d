"""SQLModel table models: the database's shape, kept apart from the domain models.

The repository converts between these rows and polygon_core.models; nothing else should
use them. A result table's columns are its domain model's fields plus the key columns named in
``_convert.KEY_COLUMNS`` (tests/adapters/test_record_shapes.py checks it): a field is added to both. They live in their own SQLAlchemy registry so other SQLModel tables in the same
process (Prefect's, a user's) never mix into Polygon's metadata or migrations.

Any change here needs a new Alembic revision in ``migrations/versions``; the test suite compares
this metadata with the migrated schema.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import registry
from sqlmodel import Field, SQLModel

__all__ = [
    "IMPORT_TABLE_NAMES",
    "NAMING_CONVENTION",
    "TABLE_NAMES",
    "CalibrationRow",
    "CallObjectRow",
    "ConversationRow",
    "ImportedConversationRow",
    "JudgmentRow",
    "ProbeAnswerRow",
    "ProductionRunRow",
    "RunRow",
    "WebhookDeliveryRow",
    "metadata",
]


# Every constraint gets a predictable name, so later migrations (and SQLite's batch mode, which
# rebuilds tables) can refer to them by name on every database.
NAMING_CONVENTION: dict[str, str] = {
    "pk": "pk_%(table_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ix": "ix_%(column_0_label)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
}


class PolygonTable(
    SQLModel, registry=registry(metadata=sa.MetaData(naming_convention=NAMING_CONVENTION))
):
    """Base of Polygon's tables (own registry, own metadata)."""


metadata = PolygonTable.metadata


def _json(*, nullable: bool = False) -> Any:
    # none_as_null: a Python None in a nullable column is SQL NULL, not the JSON text `null`.
    return Field(
        default=None if nullable else ...,
        sa_column=sa.Column(sa.JSON(none_as_null=nullable), nullable=nullable),
    )


def _run_fk() -> Any:
    # Deleting a run deletes everything recorded for it.
    return Field(
        sa_column=sa.Column(
            sa.String(),
            sa.ForeignKey("polygon_run.id", ondelete="CASCADE"),
            nullable=False,
            index=True,
        )
    )


class RunRow(PolygonTable, table=True):
    """One run: the config under test, the suite, seeds, and (once done) its summary."""

    __tablename__ = "polygon_run"

    id: str = Field(sa_column=sa.Column(sa.String(), primary_key=True))
    suite: str = Field(sa_column=sa.Column(sa.String(), nullable=False))
    agent_name: str = Field(sa_column=sa.Column(sa.String(), nullable=False))
    agent_version: str = Field(sa_column=sa.Column(sa.String(), nullable=False))
    rubric_version: str = Field(sa_column=sa.Column(sa.String(), nullable=False))
    seeds: list[int] = _json()
    models: dict[str, str] = _json()
    status: str = Field(sa_column=sa.Column(sa.String(), nullable=False))
    source: str = Field(sa_column=sa.Column(sa.String(), nullable=False))
    # ISO text, written by the edge: the domain has no clock. Indexed for newest-first listings.
    created_at: str = Field(sa_column=sa.Column(sa.String(), nullable=False, index=True))
    summary: dict[str, Any] | None = _json(nullable=True)
    report_uri: str | None = Field(default=None, sa_column=sa.Column(sa.String(), nullable=True))
    # What made the run (revision 0007): Polygon's and its packages' versions, the formats it wrote.
    # NULL for a run stored before.
    provenance: dict[str, Any] | None = _json(nullable=True)


class ConversationRow(PolygonTable, table=True):
    """A finished conversation's index entry; the full transcript is in the artifact store."""

    __tablename__ = "polygon_conversation"
    __table_args__ = (
        # The resume/idempotency key: one row per conversation per run.
        sa.UniqueConstraint("run_id", "conversation_id", name="uq_polygon_conversation_key"),
    )

    id: int | None = Field(
        default=None, sa_column=sa.Column(sa.Integer(), primary_key=True, autoincrement=True)
    )
    run_id: str = _run_fk()
    conversation_id: str = Field(sa_column=sa.Column(sa.String(), nullable=False))
    scenario_id: str = Field(sa_column=sa.Column(sa.String(), nullable=False))
    # BigInteger: seeds are 64-bit in spirit; Postgres' bigint is signed, so the repository
    # rejects values outside [-2**63, 2**63) with a clear error instead of an overflow.
    seed: int = Field(sa_column=sa.Column(sa.BigInteger(), nullable=False))
    caller_type: str = Field(sa_column=sa.Column(sa.String(), nullable=False))
    difficulty: int = Field(sa_column=sa.Column(sa.Integer(), nullable=False))
    language: str = Field(sa_column=sa.Column(sa.String(), nullable=False))
    noise: float = Field(sa_column=sa.Column(sa.Float(), nullable=False))
    agent_version: str = Field(sa_column=sa.Column(sa.String(), nullable=False))
    end_reason: str = Field(sa_column=sa.Column(sa.String(), nullable=False))
    turn_count: int = Field(sa_column=sa.Column(sa.Integer(), nullable=False))
    artifact_uri: str = Field(sa_column=sa.Column(sa.String(), nullable=False))
    assertions: list[dict[str, Any]] = _json()
    metrics: dict[str, Any] | None = _json(nullable=True)
    usage: dict[str, Any] = _json()
    models: dict[str, str] = _json()


class JudgmentRow(PolygonTable, table=True):
    """One judge pass. Append-only across rubric versions and judge models."""

    __tablename__ = "polygon_judgment"
    __table_args__ = (
        # Re-judging under the same rubric with the same judge replaces that row (a retried
        # task is idempotent); another rubric version or judge adds a row beside it.
        sa.UniqueConstraint(
            "run_id",
            "conversation_id",
            "rubric_version",
            "judge_model",
            name="uq_polygon_judgment_key",
        ),
    )

    id: int | None = Field(
        default=None, sa_column=sa.Column(sa.Integer(), primary_key=True, autoincrement=True)
    )
    run_id: str = _run_fk()
    conversation_id: str = Field(sa_column=sa.Column(sa.String(), nullable=False))
    rubric_version: str = Field(sa_column=sa.Column(sa.String(), nullable=False))
    judge_model: str = Field(sa_column=sa.Column(sa.String(), nullable=False))
    repeats: int = Field(sa_column=sa.Column(sa.Integer(), nullable=False))
    composite: float | None = Field(default=None, sa_column=sa.Column(sa.Float(), nullable=True))
    partial: bool = Field(sa_column=sa.Column(sa.Boolean(), nullable=False))
    verdict: str | None = Field(default=None, sa_column=sa.Column(sa.String(), nullable=True))
    not_scored: list[str] = _json()
    criteria: list[dict[str, Any]] = _json()
    gates: list[dict[str, Any]] = _json()
    raw: list[dict[str, Any]] = _json()
    # judged | judge_error | agent_failure (revision 0003); rows stored before it read as judged.
    status: str = Field(
        default="judged", sa_column=sa.Column(sa.String(), nullable=False, server_default="judged")
    )
    reason: str | None = Field(default=None, sa_column=sa.Column(sa.Text(), nullable=True))
    # The judgment format it was stored in (revision 0007); rows stored before it read as 0.
    format_version: int = Field(
        default=0, sa_column=sa.Column(sa.Integer(), nullable=False, server_default="0")
    )
    # Order in which judgments were (last) saved within a run; ties are broken by id.
    seq: int = Field(sa_column=sa.Column(sa.Integer(), nullable=False))


class ProbeAnswerRow(PolygonTable, table=True):
    """One probe's answer on one conversation."""

    __tablename__ = "polygon_probe_answer"
    __table_args__ = (
        sa.UniqueConstraint(
            "run_id",
            "conversation_id",
            "probe_id",
            "wording_hash",
            "answered_by",
            name="uq_polygon_probe_answer_key",
        ),
    )

    id: int | None = Field(
        default=None, sa_column=sa.Column(sa.Integer(), primary_key=True, autoincrement=True)
    )
    run_id: str = _run_fk()
    conversation_id: str = Field(sa_column=sa.Column(sa.String(), nullable=False))
    probe_id: str = Field(sa_column=sa.Column(sa.String(), nullable=False))
    wording_hash: str = Field(sa_column=sa.Column(sa.String(), nullable=False))
    polarity: str = Field(sa_column=sa.Column(sa.String(), nullable=False))
    answer: str = Field(sa_column=sa.Column(sa.String(), nullable=False))
    evidence: str | None = Field(default=None, sa_column=sa.Column(sa.Text(), nullable=True))
    answered_by: str = Field(sa_column=sa.Column(sa.String(), nullable=False))


TABLE_NAMES: tuple[str, ...] = (
    RunRow.__tablename__,
    ConversationRow.__tablename__,
    JudgmentRow.__tablename__,
    ProbeAnswerRow.__tablename__,
)


class ImportedConversationRow(PolygonTable, table=True):
    """One imported (production) conversation: its identity, where its redacted transcript is.

    The unique (source, external_id) key makes a re-import idempotent: a conversation already
    recorded for its source is counted as a duplicate and never stored twice.
    """

    __tablename__ = "polygon_imported_conversation"
    __table_args__ = (
        sa.UniqueConstraint("source", "external_id", name="uq_polygon_imported_conversation_key"),
        # Grading selects a source's calls in a date window.
        sa.Index("ix_polygon_imported_conversation_window", "source", "started_at"),
    )

    id: int | None = Field(
        default=None, sa_column=sa.Column(sa.Integer(), primary_key=True, autoincrement=True)
    )
    source: str = Field(sa_column=sa.Column(sa.String(), nullable=False))
    external_id: str = Field(sa_column=sa.Column(sa.String(), nullable=False))
    conversation_id: str = Field(sa_column=sa.Column(sa.String(), nullable=False))
    # ISO-8601 UTC text (sorts as time); None when the export gives no date.
    started_at: str | None = Field(default=None, sa_column=sa.Column(sa.String(), nullable=True))
    scenario_id: str = Field(sa_column=sa.Column(sa.String(), nullable=False))
    agent_name: str = Field(sa_column=sa.Column(sa.String(), nullable=False))
    agent_version: str = Field(sa_column=sa.Column(sa.String(), nullable=False))
    turn_count: int = Field(sa_column=sa.Column(sa.Integer(), nullable=False))
    artifact_uri: str = Field(sa_column=sa.Column(sa.String(), nullable=False))
    # Which import stored it, and from where: tells a duplicate inside one file from a re-import.
    batch: str = Field(sa_column=sa.Column(sa.String(), nullable=False))
    file: str = Field(sa_column=sa.Column(sa.String(), nullable=False))
    line: int = Field(sa_column=sa.Column(sa.Integer(), nullable=False))
    imported_at: str = Field(sa_column=sa.Column(sa.String(), nullable=False))


class ProductionRunRow(PolygonTable, table=True):
    """What a production run graded: the calls of one source in one date window."""

    __tablename__ = "polygon_production_run"

    run_id: str = Field(
        sa_column=sa.Column(
            sa.String(),
            sa.ForeignKey("polygon_run.id", ondelete="CASCADE"),
            primary_key=True,
        )
    )
    source: str = Field(sa_column=sa.Column(sa.String(), nullable=False))
    since: str | None = Field(default=None, sa_column=sa.Column(sa.String(), nullable=True))
    until: str | None = Field(default=None, sa_column=sa.Column(sa.String(), nullable=True))
    first_call: str | None = Field(default=None, sa_column=sa.Column(sa.String(), nullable=True))
    last_call: str | None = Field(default=None, sa_column=sa.Column(sa.String(), nullable=True))
    conversations: int = Field(sa_column=sa.Column(sa.Integer(), nullable=False))


IMPORT_TABLE_NAMES: tuple[str, ...] = (
    ImportedConversationRow.__tablename__,
    ProductionRunRow.__tablename__,
)


class CalibrationRow(PolygonTable, table=True):
    """One calibration of a judge against people's labels (`polygon calibrate`), revision 0004.

    Keyed by what was calibrated (judge model, rubric version, judge-prompt hash) and on what (run,
    labels file hash, seed, resamples): calibrating the same again replaces the record. No foreign
    key to the run: a calibration describes the judge, and outlives the run it was measured on.
    """

    __tablename__ = "polygon_calibration"
    __table_args__ = (
        sa.UniqueConstraint("judge_model", "rubric_version", "judge_prompt_hash", "run_id", "labels_hash",
                            "seed", "resamples", name="uq_polygon_calibration_key"),
        # Scorecards ask for a judge's latest calibration under a rubric version.
        sa.Index("ix_polygon_calibration_latest", "judge_model", "rubric_version", "created_at"),
    )

    id: int | None = Field(
        default=None, sa_column=sa.Column(sa.Integer(), primary_key=True, autoincrement=True)
    )
    judge_model: str = Field(sa_column=sa.Column(sa.String(), nullable=False))
    rubric_version: str = Field(sa_column=sa.Column(sa.String(), nullable=False))
    judge_prompt_hash: str = Field(sa_column=sa.Column(sa.String(), nullable=False))
    run_id: str = Field(sa_column=sa.Column(sa.String(), nullable=False))
    labels_hash: str = Field(sa_column=sa.Column(sa.String(), nullable=False))
    seed: int = Field(sa_column=sa.Column(sa.BigInteger(), nullable=False))
    resamples: int = Field(sa_column=sa.Column(sa.Integer(), nullable=False))
    n: int = Field(sa_column=sa.Column(sa.Integer(), nullable=False))
    results: dict[str, Any] = _json()
    # ISO text, written by the edge.
    created_at: str = Field(sa_column=sa.Column(sa.String(), nullable=False))


class WebhookDeliveryRow(PolygonTable, table=True):
    """A webhook delivery id already received (revision 0005): a replay of it is refused with 409.

    The primary key makes claiming an id one atomic INSERT, also across receivers sharing the
    database. Times are ISO-8601 UTC text; rows past ``expires_at`` are deleted by the next claim.
    """

    __tablename__ = "polygon_webhook_delivery"
    __table_args__ = (sa.Index("ix_polygon_webhook_delivery_expires_at", "expires_at"),)

    delivery_id: str = Field(sa_column=sa.Column(sa.String(), primary_key=True))
    kind: str = Field(sa_column=sa.Column(sa.String(), nullable=False))
    received_at: str = Field(sa_column=sa.Column(sa.String(), nullable=False))
    expires_at: str = Field(sa_column=sa.Column(sa.String(), nullable=False))


class CallObjectRow(PolygonTable, table=True):
    """A file of production calls that arrived (revision 0006): an S3 object or a webhook's call.

    The key (source, object key, ETag) is what the scheduled pull remembers: an object listed again
    with the same ETag is skipped, a rewritten one (a new ETag) is a new arrival. ``imported_at`` is
    None while the arrival waits for the import-calls flow; the counts are that import's summary.
    """

    __tablename__ = "polygon_call_object"
    __table_args__ = (sa.Index("ix_polygon_call_object_pending", "imported_at", "source"),)

    source: str = Field(sa_column=sa.Column(sa.String(), primary_key=True))
    key: str = Field(sa_column=sa.Column(sa.String(), primary_key=True))
    etag: str = Field(sa_column=sa.Column(sa.String(), primary_key=True))
    via: str = Field(sa_column=sa.Column(sa.String(), nullable=False))  # s3-pull, webhook, s3-event
    location: str = Field(sa_column=sa.Column(sa.String(), nullable=False))  # what is read to import it
    fmt: str = Field(sa_column=sa.Column(sa.String(), nullable=False))
    seen_at: str = Field(sa_column=sa.Column(sa.String(), nullable=False))
    imported_at: str | None = Field(default=None, sa_column=sa.Column(sa.String(), nullable=True))
    batch: str | None = Field(default=None, sa_column=sa.Column(sa.String(), nullable=True))
    imported: int = Field(default=0, sa_column=sa.Column(sa.Integer(), nullable=False))
    duplicates: int = Field(default=0, sa_column=sa.Column(sa.Integer(), nullable=False))
    rejected: int = Field(default=0, sa_column=sa.Column(sa.Integer(), nullable=False))
