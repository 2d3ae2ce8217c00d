"""People's ratings of conversations: the labels file (CSV or JSON Lines), parsed strictly.

One rating per row: which conversation (`conversation_id`, or `external_id` with an optional
`source` for an imported production call), who rated it (`rater`), what (`criterion`: a rubric
criterion or `overall`) and the score (an integer 1-5). Every bad row is reported with its file,
line, field and what was expected; nothing is parsed half-way (docs/calibration.md).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from ._types import OVERALL

__all__ = ["FIELDS", "Label", "LabelsError", "labels_hash", "parse_labels"]

FIELDS: tuple[str, ...] = ("conversation_id", "external_id", "source", "rater", "criterion", "score")

# What each field must hold, said in the error for a bad value.
_EXPECTED: dict[str, str] = {
    "conversation_id": "a non-empty conversation id",
    "external_id": "a non-empty external id (the id the call had in its export)",
    "source": "a non-empty import source name",
    "rater": "a non-empty rater name",
    "criterion": "a rubric criterion name or 'overall'",
    "score": "an integer from 1 to 5",
}

# How many errors are listed before the rest are only counted.
_MAX_ERRORS = 20


class LabelsError(ValueError):
    """A labels file that cannot be used; `errors` holds one line per problem."""

    def __init__(self, errors: list[str]) -> None:
        """Carry every error line (the message is the first, with a count of the rest)."""
        self.errors = errors
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        super().__init__(f"{errors[0]}{more}" if errors else "bad labels file")


class _Row(BaseModel):
    """One labels row as written (strict: unknown fields are errors)."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    conversation_id: str | None = Field(None, min_length=1)
    external_id: str | None = Field(None, min_length=1)
    source: str | None = Field(None, min_length=1)
    rater: str = Field(..., min_length=1)
    criterion: str = Field(..., min_length=1)
    score: int = Field(..., ge=1, le=5)

    @field_validator("score", mode="before")
    @classmethod
    def _integer(cls, value: Any) -> Any:
        # true is not 5, and 4.5 is not a rating people gave: only whole numbers (4, 4.0, "4").
        if isinstance(value, bool):
            raise ValueError("a boolean")
        if isinstance(value, float) and value.is_integer():
            return int(value)
        return value

    @model_validator(mode="after")
    def _one_conversation(self) -> _Row:
        if (self.conversation_id is None) == (self.external_id is None):
            raise ValueError("give exactly one of conversation_id and external_id")
        if self.source is not None and self.external_id is None:
            raise ValueError("source only goes with external_id (an imported call)")
        return self


@dataclass(frozen=True)
class Label:
    """One rating, located in its file. `conversation_id` or `external_id` is set, not both."""

    file: str
    line: int
    rater: str
    criterion: str
    score: int
    conversation_id: str | None = None
    external_id: str | None = None
    source: str | None = None

    @property
    def where(self) -> str:
        """`FILE:LINE`, for error messages."""
        return f"{self.file}:{self.line}"


def labels_hash(content: bytes) -> str:
    """SHA-256 (hex) of a labels file's bytes: which labels a calibration was made from."""
    return hashlib.sha256(content).hexdigest()


def parse_labels(text: str, *, file: str, criteria: Collection[str] | None = None) -> list[Label]:
    """Every rating in a labels file, or LabelsError listing every bad row.

    The format is CSV when `file` ends in `.csv`, JSON Lines for `.jsonl`/`.ndjson`/`.json`, else
    guessed from the first character (`{` means JSON Lines). `criteria`, when given, are the
    rubric's criterion names a row may name besides `overall`. A conversation rated twice by one
    rater on one criterion is an error (at the second row, naming the first).
    """
    errors: list[str] = []
    labels: list[Label] = []
    for line, raw in _records(text, file, errors):
        label = _validate(raw, file, line, errors)
        if label is None:
            continue
        if criteria is not None and label.criterion != OVERALL and label.criterion not in criteria:
            known = ", ".join([OVERALL, *criteria])
            errors.append(f"{file}:{line}: criterion: unknown criterion {label.criterion!r}; "
                          f"expected one of {known}")
            continue
        labels.append(label)
    errors.extend(_duplicates(labels))
    if not labels and not errors:
        errors.append(f"{file}: no ratings found (expected a header row and one rating per row)")
    if errors:
        raise LabelsError(_capped(sorted(errors, key=_line_of)))
    return labels


def _records(text: str, file: str, errors: list[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    lower = file.lower()
    if lower.endswith(".csv"):
        yield from _csv_records(text, file, errors)
    elif lower.endswith((".jsonl", ".ndjson", ".json")) or text.lstrip().startswith("{"):
        yield from _jsonl_records(text, file, errors)
    else:
        yield from _csv_records(text, file, errors)


def _csv_records(text: str, file: str, errors: list[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    reader = csv.reader(io.StringIO(text))
    header: list[str] | None = None
    start = 1
    for row in reader:
        line, start = start, reader.line_num + 1
        if not any(cell.strip() for cell in row):
            continue  # blank lines carry nothing
        if header is None:
            header = [cell.strip() for cell in row]
            unknown = [h for h in header if h not in FIELDS]
            if unknown or len(set(header)) != len(header):
                errors.append(f"{file}:{line}: header: unknown or repeated column(s) "
                              f"{', '.join(repr(h) for h in unknown) or 'repeated'}; "
                              f"expected columns among {', '.join(FIELDS)}")
                return
            continue
        if len(row) != len(header):
            errors.append(f"{file}:{line}: row: {len(row)} cells; expected {len(header)} "
                          f"({', '.join(header)})")
            continue
        # An empty optional cell (a file with both id columns) means "not given".
        yield line, {k: v for k, v in zip(header, row, strict=True) if v.strip() != ""}


def _jsonl_records(text: str, file: str, errors: list[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    for line, content in enumerate(text.splitlines(), start=1):
        if not content.strip():
            continue
        try:
            value = json.loads(content)
        except json.JSONDecodeError as exc:
            errors.append(f"{file}:{line}: row: not valid JSON ({exc.msg} at column {exc.colno}); "
                          "expected one JSON object per line")
            continue
        if not isinstance(value, dict):
            errors.append(f"{file}:{line}: row: a JSON {type(value).__name__}; expected an object "
                          f"with {', '.join(FIELDS)}")
            continue
        yield line, value


def _validate(raw: dict[str, Any], file: str, line: int, errors: list[str]) -> Label | None:
    try:
        row = _Row.model_validate(raw)
    except ValidationError as exc:
        errors.extend(f"{file}:{line}: {_explain(e, raw)}" for e in exc.errors())
        return None
    return Label(file=file, line=line, rater=row.rater, criterion=row.criterion, score=row.score,
                 conversation_id=row.conversation_id, external_id=row.external_id, source=row.source)


def _explain(error: Any, raw: dict[str, Any]) -> str:
    loc = [str(p) for p in error["loc"]]
    if not loc:  # a rule across fields (_one_conversation)
        return f"row: {error['msg'].removeprefix('Value error, ')}"
    field = loc[0]
    if error["type"] == "extra_forbidden":
        return f"{field}: unknown field; expected fields among {', '.join(FIELDS)}"
    if error["type"] == "missing":
        return f"{field}: missing; expected {_EXPECTED.get(field, 'a value')}"
    return f"{field}: expected {_EXPECTED.get(field, 'a valid value')}, got {raw.get(field)!r}"


def _duplicates(labels: list[Label]) -> list[str]:
    seen: dict[tuple[str | None, ...], Label] = {}
    errors = []
    for label in labels:
        key = (label.conversation_id, label.source, label.external_id, label.rater, label.criterion)
        first = seen.setdefault(key, label)
        if first is not label:
            ident = label.conversation_id or label.external_id
            errors.append(f"{label.where}: row: rater {label.rater!r} already rated {label.criterion!r} "
                          f"of {ident!r} at line {first.line}; expected one rating per rater and criterion")
    return errors


def _line_of(error: str) -> int:
    # "FILE:LINE: ..." -> LINE, so errors read in file order (a duplicate is found after the pass).
    head = error.split(": ", 1)[0]
    number = head.rsplit(":", 1)[-1]
    return int(number) if number.isdigit() else 0


def _capped(errors: list[str]) -> list[str]:
    if len(errors) <= _MAX_ERRORS:
        return errors
    return [*errors[:_MAX_ERRORS], f"... and {len(errors) - _MAX_ERRORS} more errors"]
