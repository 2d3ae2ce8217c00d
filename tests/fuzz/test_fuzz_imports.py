"""Fuzzing every import parser: any bytes give conversations and per-line problems, never an exception.

Inputs reach the parsers as the pipeline gives them (UTF-8 text over bytes), as arbitrary text, as
records of the right general shape with arbitrary values, and as CSV rows of arbitrary cells.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from polygon_core.imports import FORMATS, ImportedCall, ImportProblem, read_calls

from ._settings import fuzz
from .strategies import mappings, trees

NAMES = {"polygon": ["x.jsonl", "x.json"], "openai": ["x.jsonl"], "csv": ["x.csv"],
         "vapi": ["x.jsonl", "x.json"], "retell": ["x.jsonl", "x.json"]}
CASES = [(fmt, name) for fmt in FORMATS for name in NAMES[fmt]]


def _read(data: bytes, fmt: str, name: str) -> list[ImportedCall | ImportProblem]:
    stream = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8-sig", newline="")
    items = list(read_calls(stream, fmt, name=name))
    for item in items:
        assert isinstance(item, ImportedCall | ImportProblem)
        if isinstance(item, ImportProblem):
            assert item.line >= 1 and item.reason
    return items


def _lines(records: list[Any]) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False, default=str) + "\n" for r in records).encode(
        "utf-8", "surrogatepass")


@fuzz(150)
@given(st.sampled_from(CASES), st.binary(max_size=300))
def test_any_bytes(case: tuple[str, str], data: bytes) -> None:
    _read(data, *case)


@fuzz(100)
@given(st.sampled_from(CASES), st.lists(mappings(15), max_size=4))
def test_records_of_arbitrary_values(case: tuple[str, str], records: list[dict[Any, Any]]) -> None:
    fmt, name = case
    if name.endswith(".json"):
        payload = json.dumps(records, ensure_ascii=False, default=str).encode("utf-8", "surrogatepass")
    else:
        payload = _lines(records)
    _read(payload, fmt, name)


TURN = st.fixed_dictionaries(
    {"speaker": st.sampled_from(["caller", "agent", "user", "bot", "", None]), "text": trees(3)},
    optional={"at": trees(2), "tool_calls": st.lists(trees(6), max_size=2)},
)
POLYGON_RECORD = st.fixed_dictionaries(
    {"id": st.one_of(st.text(max_size=5), st.integers()), "turns": st.lists(TURN, max_size=4)},
    optional={"started_at": trees(2), "end_reason": trees(2), "scenario": trees(2)},
)
MESSAGE = st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "assistant", "tool", "system", "x"]), "content": trees(4)},
    optional={"tool_calls": st.lists(trees(8), max_size=2), "tool_call_id": trees(1)},
)
OPENAI_RECORD = st.fixed_dictionaries({"id": st.text(max_size=5), "messages": st.lists(MESSAGE, max_size=4)})


@fuzz(100)
@given(st.lists(POLYGON_RECORD, max_size=3), st.booleans())
def test_polygon_records_near_the_format(records: list[dict[str, Any]], as_array: bool) -> None:
    if as_array:
        _read(json.dumps(records, ensure_ascii=False).encode("utf-8", "surrogatepass"), "polygon", "x.json")
    else:
        _read(_lines(records), "polygon", "x.jsonl")


@fuzz(100)
@given(st.lists(OPENAI_RECORD, max_size=3))
def test_openai_records_near_the_format(records: list[dict[str, Any]]) -> None:
    _read(_lines(records), "openai", "x.jsonl")


CELL = st.one_of(st.text(max_size=12), st.sampled_from(["caller", "agent", "1", "2", "x", "{}", '{"a": 1}', ""]))
HEADERS = st.lists(st.sampled_from(["conversation_id", "turn", "speaker", "text", "timestamp", "tool_name",
                                    "tool_arguments", "tool_result", "tool_call_id", "started_at",
                                    "end_reason", "scenario", "other"]), min_size=1, max_size=9)


@fuzz(120)
@given(HEADERS, st.lists(st.lists(CELL, max_size=10), max_size=8))
def test_csv_rows_of_arbitrary_cells(header: list[str], rows: list[list[str]]) -> None:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(header)
    writer.writerows(rows)
    _read(out.getvalue().encode("utf-8", "surrogatepass"), "csv", "x.csv")
