"""Conversions between table rows and the domain models they store, derived from the models' fields.

A stored record is declared twice: once as its domain model (the pure core cannot hold SQLAlchemy
tables) and once as its table in `_tables`, whose columns are the model's fields plus the key
columns named in `KEY_COLUMNS` (tests/adapters/test_record_shapes.py checks they stay equal). No
field is listed a third time here: a row is read with ``model_validate(row, from_attributes=True)``
(which reads the model's fields and ignores the key columns, and is faster than building the model
field by field) and written from ``model_dump(mode="json")`` (JSON columns get plain JSON values,
exactly as they read back). See docs/design.md, "Stored records".
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

from pydantic import BaseModel

from polygon_core.models import Judgment, ProbeAnswer, Run

from ._records import ConversationRecord
from ._tables import ConversationRow, JudgmentRow, ProbeAnswerRow, RunRow

__all__ = [
    "KEY_COLUMNS",
    "RECORDS",
    "from_ledger_row",
    "judgment_from_row",
    "probe_from_row",
    "record_from_row",
    "row_values",
    "run_from_row",
]

_D = TypeVar("_D")

#: Each stored record's table and the columns it has beyond the model's fields: the surrogate
#: ``id``, the ``run_id`` a result belongs to, the run's ``summary`` and ``report_uri`` (set when the
#: run finishes, read on their own), and a judgment's ``seq`` (its save order within the run).
KEY_COLUMNS: dict[type[Any], frozenset[str]] = {
    RunRow: frozenset({"summary", "report_uri"}),
    ConversationRow: frozenset({"id"}),
    JudgmentRow: frozenset({"id", "run_id", "seq"}),
    ProbeAnswerRow: frozenset({"id", "run_id"}),
}

#: Each table and the model its rows read back as.
RECORDS: dict[type[Any], type[BaseModel]] = {
    RunRow: Run,
    ConversationRow: ConversationRecord,
    JudgmentRow: Judgment,
    ProbeAnswerRow: ProbeAnswer,
}


def row_values(record: BaseModel, **keys: Any) -> dict[str, Any]:
    """The column values of `record`'s row: every field in JSON mode, then the key columns given."""
    return {**record.model_dump(mode="json"), **keys}


def run_from_row(row: RunRow) -> Run:
    """The run a row stores."""
    return Run.model_validate(row, from_attributes=True)


def record_from_row(row: ConversationRow) -> ConversationRecord:
    """The conversation record a row stores."""
    return ConversationRecord.model_validate(row, from_attributes=True)


def judgment_from_row(row: JudgmentRow) -> Judgment:
    """The judgment a row stores."""
    return Judgment.model_validate(row, from_attributes=True)


def probe_from_row(row: ProbeAnswerRow) -> ProbeAnswer:
    """The probe answer a row stores."""
    return ProbeAnswer.model_validate(row, from_attributes=True)


_FIELD_NAMES: dict[type[Any], tuple[str, ...]] = {}


def from_ledger_row(cls: type[_D], row: Any) -> _D:
    """A ledger's record (a frozen dataclass of the adapter's own, e.g. `ImportedRecord`) from a row
    that has a column of each of its fields (an ORM row or a Core row): the fields, read by name."""
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in dataclasses.fields(cls))  # type: ignore[arg-type]
    return cls(**{name: getattr(row, name) for name in names})
