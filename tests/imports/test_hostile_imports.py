"""Hostile import files: a bad line costs that line (or its conversation), never the file.

Files are opened exactly as the pipeline opens them (`utf-8-sig` text over a binary file), so the
parsers meet real bytes; `polygon import` is exercised end to end for the two formats issue 16 names.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polygon.cli import app
from polygon_core.imports import ImportedCall, ImportProblem, read_calls


def _call(ident: str, text: str = "hello") -> str:
    return json.dumps({"id": ident, "turns": [{"speaker": "caller", "text": text},
                                              {"speaker": "agent", "text": "hi"}]}, ensure_ascii=False)


def _read(path: Path, fmt: str) -> list[ImportedCall | ImportProblem]:
    with open(path, encoding="utf-8-sig", newline="") as stream:  # as the pipeline opens files
        return list(read_calls(stream, fmt, name=path.name))


def _summary(items: list[ImportedCall | ImportProblem]) -> tuple[list[str], list[str]]:
    good = [i.external_id for i in items if isinstance(i, ImportedCall)]
    bad = [str(i) for i in items if isinstance(i, ImportProblem)]
    return good, bad


def test_jsonl_non_utf8_line_rejects_that_line_only(tmp_path: Path) -> None:
    path = tmp_path / "calls.jsonl"
    first = (_call("a") + "\n").encode()
    path.write_bytes(first + _call("b", "caf\xe9").encode("latin-1") + b"\n" + (_call("c") + "\n").encode())
    good, bad = _summary(_read(path, "polygon"))
    assert good == ["a", "c"]
    offset = len(first) + (_call("b", "caf\xe9").encode("latin-1").index(b"\xe9"))
    assert bad == [f"line 2: not UTF-8 at byte {offset} (0xe9)"]


def test_jsonl_with_a_bom_still_reads_its_first_line(tmp_path: Path) -> None:
    path = tmp_path / "calls.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + (_call("a") + "\n" + _call("b") + "\n").encode())
    assert _summary(_read(path, "polygon")) == (["a", "b"], [])


def test_jsonl_line_nested_100000_deep_is_one_rejection(tmp_path: Path) -> None:
    path = tmp_path / "calls.jsonl"
    deep = "[" * 100_000 + "]" * 100_000
    path.write_text(_call("a") + "\n" + deep + "\n" + _call("c") + "\n", encoding="utf-8")
    good, bad = _summary(_read(path, "polygon"))
    assert good == ["a", "c"]
    assert bad == ["line 2: nested more than 64 levels deep (the limit for one record)"]


def test_jsonl_nesting_under_the_recursion_limit_but_over_ours(tmp_path: Path) -> None:
    path = tmp_path / "calls.jsonl"
    record = json.loads(_call("b"))
    record["metadata"] = json.loads("[" * 200 + "]" * 200)
    path.write_text(_call("a") + "\n" + json.dumps(record) + "\n", encoding="utf-8")
    good, bad = _summary(_read(path, "polygon"))
    assert good == ["a"]
    assert bad == ["line 2: nested more than 64 levels deep (the limit for one record)"]


HEADER = "conversation_id,turn,speaker,text\n"


def test_csv_non_utf8_row_rejects_its_conversation_and_keeps_the_others(tmp_path: Path) -> None:
    path = tmp_path / "calls.csv"
    rows = [HEADER, "a,1,caller,hello\n", "a,2,agent,hi\n"]
    good_bytes = "".join(rows).encode()
    bad_row = "b,1,caller,caf\xe9\n".encode("latin-1")
    tail = b"b,2,agent,hi\nc,1,caller,hello\nc,2,agent,hi\n"
    path.write_bytes(good_bytes + bad_row + tail)
    good, bad = _summary(_read(path, "csv"))
    assert good == ["a", "c"]
    assert bad == [f"line 4 (conversation 'b'): not UTF-8 at byte {len(good_bytes) + 14} (0xe9)"]


def test_csv_field_over_128_kib_is_a_row_rejection(tmp_path: Path) -> None:
    path = tmp_path / "calls.csv"
    huge = "x" * (200 * 1024)
    path.write_text(HEADER + "a,1,caller,hello\na,2,agent,hi\n"
                    f'b,1,caller,"{huge}"\nb,2,agent,hi\n'
                    "c,1,caller,hello\nc,2,agent,hi\n", encoding="utf-8")
    good, bad = _summary(_read(path, "csv"))
    assert good == ["a", "c"]
    assert bad == ["line 4 (conversation 'b'): a field is longer than 128 KiB (the CSV field limit)"]


def test_json_array_element_with_bad_bytes_is_rejected_alone(tmp_path: Path) -> None:
    path = tmp_path / "calls.json"
    path.write_bytes(b"[" + _call("a").encode() + b",\n" + _call("b", "caf\xe9").encode("latin-1")
                     + b",\n" + _call("c").encode() + b"]\n")
    good, bad = _summary(_read(path, "polygon"))
    assert good == ["a", "c"]
    assert bad == ["line 2: not UTF-8 (byte 0xe9)"]


def test_text_streams_still_work() -> None:
    items = list(read_calls(io.StringIO(_call("a") + "\n"), "polygon", name="x.jsonl"))
    assert _summary(items) == (["a"], [])


@pytest.mark.parametrize(("name", "fmt", "payload"), [
    ("calls.jsonl", "polygon",
     (_call("a") + "\n").encode() + _call("b", "caf\xe9").encode("latin-1") + b"\n"
     + (_call("c") + "\n").encode()),
    ("calls.csv", "csv",
     (HEADER + "a,1,caller,hello\na,2,agent,hi\n").encode() + "b,1,caller,caf\xe9\n".encode("latin-1")
     + b"b,2,agent,hi\nc,1,caller,hello\nc,2,agent,hi\n"),
])
def test_polygon_import_keeps_the_good_conversations(
    polygon_home: Path, tmp_path: Path, name: str, fmt: str, payload: bytes
) -> None:
    path = tmp_path / name
    path.write_bytes(payload)
    result = CliRunner().invoke(app, ["import", str(path), "--format", fmt, "--source", "s", "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert (summary["read"], summary["imported"], summary["rejected"]) == (3, 2, 1)
    assert len(summary["errors"]) == 1 and summary["errors"][0].startswith(f"{path}:")
    assert "not UTF-8 at byte" in summary["errors"][0]
