"""One shape per stored record: each table's columns are its domain model's fields plus its key columns.

The rows are read and written through the models' fields (`_convert`), so a field added to a model
and not to its table (or the other way round) would be lost or fail at run time; these tests fail
first. See docs/design.md, "Stored records".
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from pathlib import Path
from typing import Any

import pydantic
import pytest
import sqlalchemy as sa

from polygon_core.adapters.storage import ConversationRecord, Repository
from polygon_core.adapters.storage._call_objects import CallObject
from polygon_core.adapters.storage._convert import KEY_COLUMNS, RECORDS
from polygon_core.adapters.storage._imports import ImportedRecord, ProductionRunInfo
from polygon_core.adapters.storage._tables import (
    CalibrationRow,
    CallObjectRow,
    ConversationRow,
    ImportedConversationRow,
    JudgmentRow,
    ProbeAnswerRow,
    ProductionRunRow,
    RunRow,
)
from polygon_core.calibration import Calibration
from polygon_core.models import (
    AssertionResult,
    Conversation,
    CriterionScore,
    EndReason,
    GateHit,
    Judgment,
    ProbeAnswer,
    Run,
    Usage,
)

# Fields that admit None in the model but never are None in the table: the edge sets them on save.
_SET_ON_SAVE = {(RunRow, "created_at")}


def _columns(table: type[Any]) -> sa.ColumnCollection[str, sa.Column[Any]]:
    return table.__table__.columns


def _kind(annotation: Any) -> str:
    """The column type a field's annotation needs: json, int, float, bool or str."""
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return _kind(args[0])
    if typing.get_origin(annotation) in (list, dict) or annotation in (list, dict):
        return "json"
    if typing.get_origin(annotation) is typing.Literal:
        return _kind(type(args[0]))
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return "str"
    if isinstance(annotation, type) and issubclass(annotation, pydantic.BaseModel):
        return "json"  # a nested model (a run's provenance) is stored as its JSON
    return {int: "int", float: "float", bool: "bool", str: "str"}[annotation]


def _column_kind(column: sa.Column[Any]) -> str:
    for sql_type, kind in ((sa.JSON, "json"), (sa.Boolean, "bool"), (sa.Integer, "int"), (sa.Float, "float"),
                           (sa.String, "str")):
        if isinstance(column.type, sql_type):
            return kind
    raise AssertionError(f"{column.name}: unexpected column type {column.type!r}")


def test_every_result_table_has_a_record_model() -> None:
    assert set(RECORDS) == set(KEY_COLUMNS) == {RunRow, ConversationRow, JudgmentRow, ProbeAnswerRow}
    assert dict(RECORDS) == {RunRow: Run, ConversationRow: ConversationRecord, JudgmentRow: Judgment,
                             ProbeAnswerRow: ProbeAnswer}


@pytest.mark.parametrize("table", list(RECORDS), ids=lambda t: t.__name__)
def test_a_tables_columns_are_its_models_fields_and_its_key_columns(table: type[Any]) -> None:
    model = RECORDS[table]
    assert set(_columns(table).keys()) == set(model.model_fields) | KEY_COLUMNS[table]
    assert not set(model.model_fields) & KEY_COLUMNS[table]


@pytest.mark.parametrize("table", list(RECORDS), ids=lambda t: t.__name__)
def test_a_columns_type_and_nullability_follow_its_field(table: type[Any]) -> None:
    columns = _columns(table)
    for name, field in RECORDS[table].model_fields.items():
        column = columns[name]
        assert (name, _column_kind(column)) == (name, _kind(field.annotation))
        admits_none = type(None) in typing.get_args(field.annotation)
        expected = admits_none and (table, name) not in _SET_ON_SAVE
        assert (name, bool(column.nullable)) == (name, expected)


def test_key_columns_are_the_documented_ones() -> None:
    assert dict(KEY_COLUMNS) == {
        RunRow: {"summary", "report_uri"},
        ConversationRow: {"id"},
        JudgmentRow: {"id", "run_id", "seq"},
        ProbeAnswerRow: {"id", "run_id"},
    }


# The ledgers' records are the adapter's own dataclasses; the columns they leave out are written by
# the ledger itself (when an arrival was seen, which import claimed it, when a call was imported).
_LEDGERS = [(ImportedConversationRow, ImportedRecord, {"id", "imported_at"}),
            (ProductionRunRow, ProductionRunInfo, set()),
            (CallObjectRow, CallObject, {"seen_at", "batch"})]


@pytest.mark.parametrize(("table", "record", "own"), _LEDGERS, ids=lambda x: getattr(x, "__name__", ""))
def test_a_ledger_tables_columns_are_its_records_fields(table: type[Any], record: type[Any], own: set[str]) -> None:
    assert set(_columns(table).keys()) == {f.name for f in dataclasses.fields(record)} | own


def test_a_calibrations_columns_are_its_key_fields_and_the_whole_record() -> None:
    # The record is stored whole as JSON (`results`); the other columns copy fields to query on.
    queried = set(_columns(CalibrationRow).keys()) - {"id", "results"}
    assert queried == {"judge_model", "rubric_version", "judge_prompt_hash", "run_id", "labels_hash", "seed",
                       "resamples", "n", "created_at"}
    assert queried - {"n"} <= set(Calibration.model_fields) and isinstance(Calibration.n, property)


# -- round trips: every field, none left at its default ----------------------------------------------


@pytest.fixture()
def repo(tmp_path: Path) -> typing.Iterator[Repository]:
    repository = Repository(f"sqlite:///{tmp_path / 'polygon.db'}")
    repository.upgrade()
    yield repository
    repository.close()


def _run() -> Run:
    return Run(id="r-1", suite="refunds", agent_name="bot", agent_version="p-1", rubric_version="v3",
               seeds=[3, 2**40], models={"agent": "offline:demo"}, status="complete", source="production",
               created_at="2024-02-03T04:05:06+00:00")


def test_a_run_reads_back_as_saved(repo: Repository) -> None:
    run = _run()
    assert repo.save_run(run) == run
    assert repo.get_run("r-1") == run


def test_a_conversation_record_carries_every_field(repo: Repository) -> None:
    repo.save_run(_run())
    conversation = Conversation(
        id="c-1", scenario_id="late-fee", seed=-5, agent_name="bot", agent_version="p-1", persona_hash="h",
        caller_type="busy", difficulty=5, language="de", noise=0.25, end_reason=EndReason.TRANSFER,
        usage={"agent": Usage(input_tokens=3, output_tokens=4, cached_tokens=1, calls=2, estimated=True)},
        models={"agent": "offline:demo"})
    assertion = AssertionResult(name="no_refund", expression="x", status="fail", message="m", turn=2,
                                answered_by="model", gate=True)
    repo.save_conversation("r-1", conversation, artifact_uri="file:///c-1.json", assertions=[assertion],
                           metrics={"latency_p50": 1.5})
    assert repo.list_conversations("r-1") == [ConversationRecord(
        run_id="r-1", conversation_id="c-1", scenario_id="late-fee", seed=-5, caller_type="busy", difficulty=5,
        language="de", noise=0.25, agent_version="p-1", end_reason=EndReason.TRANSFER, turn_count=0,
        artifact_uri="file:///c-1.json", assertions=[assertion], metrics={"latency_p50": 1.5},
        usage={"agent": Usage(input_tokens=3, output_tokens=4, cached_tokens=1, calls=2, estimated=True)},
        models={"agent": "offline:demo"})]


def test_a_judgment_and_a_probe_answer_read_back_as_saved(repo: Repository) -> None:
    repo.save_run(_run())
    judgment = Judgment(
        conversation_id="c-1", rubric_version="v3", judge_model="openai:gpt", repeats=3,
        raw=[{"reply": "ok", "when": [1, 2]}],
        criteria=[CriterionScore(criterion="empathy", score=4.0, status="scored", evidence="sorry",
                                 unsupported_evidence=True)],
        composite=61.5, partial=True, not_scored=["accuracy"], gates=[GateHit(gate="safety", turn=1, detail="d")],
        verdict="warn", status="judge_error", reason="timeout")
    answer = ProbeAnswer(conversation_id="c-1", probe_id="p", wording_hash="w", polarity="guardrail",
                         answer="no", evidence="e", answered_by="openai:gpt")
    repo.save_judgment("r-1", judgment)
    repo.save_probe_answers("r-1", [answer])
    assert repo.judgments("r-1") == [judgment]
    assert repo.probe_answers("r-1") == [answer]
