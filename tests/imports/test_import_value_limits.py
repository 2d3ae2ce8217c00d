"""Values valid JSON can hold but Python cannot keep, and conversations too long, cost one record.

Issue 32, item 6: a 5,000-digit integer or a lone `\\ud800` ended the whole import with no line and
no row kept, and one CSV conversation of 500,000 rows was held in memory whole (1.37 GB).
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polygon.cli import app
from polygon_core.imports import ImportedCall, ImportProblem, read_calls
from polygon_core.imports._lines import MAX_TURNS

BIG = "9" * 5000
SURROGATE = '"h\\ud800i"'  # the JSON escape of a lone high surrogate


def _call(ident: str, text: str = '"hello"', extra: str = "") -> str:
    return (f'{{"id": "{ident}", {extra}"turns": [{{"speaker": "caller", "text": {text}}}, '
            '{"speaker": "agent", "text": "hi"}]}')


def _summary(items: list[ImportedCall | ImportProblem]) -> tuple[list[str], list[str]]:
    good = [i.external_id for i in items if isinstance(i, ImportedCall)]
    return good, [str(i) for i in items if isinstance(i, ImportProblem)]


def _read(path: Path, fmt: str = "polygon") -> tuple[list[str], list[str]]:
    with open(path, encoding="utf-8-sig", newline="") as stream:  # as the pipeline opens files
        return _summary(list(read_calls(stream, fmt, name=path.name)))


LONG_INT = "line 2: metadata.n: an integer of 5,000 digits (the limit is 4,300)"
LONE = "line 3: turns.0.text: a lone surrogate \\ud800 (not a Unicode character; cannot be stored as UTF-8)"


def test_jsonl_rejects_the_line_with_a_huge_integer_or_a_lone_surrogate(tmp_path: Path) -> None:
    path = tmp_path / "calls.jsonl"
    path.write_text("\n".join([_call("a"), _call("b", extra=f'"metadata": {{"n": {BIG}}}, '),
                               _call("c", SURROGATE), _call("d")]) + "\n", encoding="utf-8")
    assert _read(path) == (["a", "d"], [LONG_INT, LONE])


def test_a_json_array_rejects_the_element_and_reads_on(tmp_path: Path) -> None:
    path = tmp_path / "calls.json"
    path.write_text("[" + ",\n".join([_call("a"), _call("b", extra=f'"metadata": {{"n": {BIG}}}, '),
                                      _call("c", SURROGATE), _call("d")]) + "]\n", encoding="utf-8")
    assert _read(path) == (["a", "d"], [LONG_INT, LONE])


def test_a_lone_surrogate_in_a_key_or_in_tool_arguments_text(tmp_path: Path) -> None:
    path = tmp_path / "calls.jsonl"
    tool = ('"turns": [{"speaker": "agent", "text": "ok", "tool_calls": [{"name": "t", '
            '"arguments": "{\\"x\\": \\"\\\\udfff\\"}"}]}], ')
    path.write_text("\n".join([_call("a", extra='"metadata": {"k\\ud83d": 1}, '),
                               '{"id": "b", ' + tool[:-2] + "}", _call("c")]) + "\n", encoding="utf-8")
    good, bad = _read(path)
    assert good == ["c"]
    assert bad == [
        "line 1: a key in metadata: a lone surrogate \\ud83d (not a Unicode character; cannot be stored as UTF-8)",
        "line 2: tool arguments: x: a lone surrogate \\udfff (not a Unicode character; "
        "cannot be stored as UTF-8)"]


HEADER = "conversation_id,turn,speaker,text,tool_name,tool_arguments\n"


def test_csv_tool_arguments_with_a_huge_integer_reject_that_conversation(tmp_path: Path) -> None:
    path = tmp_path / "calls.csv"
    path.write_text(HEADER + "a,1,caller,hello,,\na,2,agent,hi,,\n"
                    f'b,1,caller,hello,,\nb,2,agent,hi,lookup,"{{""n"": {BIG}}}"\n'
                    "c,1,caller,hello,,\nc,2,agent,hi,,\n", encoding="utf-8")
    assert _read(path, "csv") == (["a", "c"], [
        "line 5 (conversation 'b'): tool arguments: n: an integer of 5,000 digits (the limit is 4,300)"])


def test_a_csv_conversation_over_the_turn_cap_is_rejected_and_the_next_kept(tmp_path: Path) -> None:
    rows = "".join(f"long,{n},{'caller' if n % 2 else 'agent'},line {n},,\n" for n in range(1, MAX_TURNS + 3))
    path = tmp_path / "calls.csv"
    path.write_text(HEADER + rows + "c,1,caller,hello,,\nc,2,agent,hi,,\n", encoding="utf-8")
    assert MAX_TURNS == 10_000
    assert _read(path, "csv") == (["c"], [
        f"line {MAX_TURNS + 2} (conversation 'long'): more than 10,000 rows in one conversation (the limit)"])


def test_a_json_conversation_over_the_turn_cap_is_rejected() -> None:
    turns = [{"speaker": "caller" if n % 2 else "agent", "text": f"line {n}"} for n in range(MAX_TURNS + 1)]
    text = json.dumps({"id": "long", "turns": turns}) + "\n" + _call("c") + "\n"
    items = list(read_calls(io.StringIO(text), "polygon", name="calls.jsonl"))
    assert _summary(items) == (["c"], ["line 1 (conversation 'long'): 10,001 turns in one conversation; "
                                       "the limit is 10,000"])


@pytest.mark.parametrize("bad", [_call("b", extra=f'"metadata": {{"n": {BIG}}}, '), _call("b", SURROGATE)])
def test_polygon_import_keeps_the_rest_of_the_file(polygon_home: Path, tmp_path: Path, bad: str) -> None:
    path = tmp_path / "calls.jsonl"
    path.write_text("\n".join([_call("a"), bad, _call("c")]) + "\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["import", str(path), "--format", "polygon", "--source", "s", "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert (summary["read"], summary["imported"], summary["rejected"]) == (3, 2, 1)
    assert len(summary["errors"]) == 1 and summary["errors"][0].startswith(f"{path}:2: ")
