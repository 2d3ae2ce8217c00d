"""CSV quoting: a quote left open is a rejected row at its line, not the rest of the file in one turn."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from polygon.cli import app
from polygon_core.imports import ImportedCall, ImportProblem, read_calls

HEADER = "conversation_id,turn,speaker,text\n"
MID = (HEADER + "c1,1,caller,hello\nc1,2,agent,hi there\nc2,1,caller,\"unterminated\nc2,2,agent,ok\n"
       "c3,1,caller,hey\nc3,2,agent,yo\nc4,x,caller,bad turn\nc5,1,Customer,who\n")


def _read(path: Path) -> list[ImportedCall | ImportProblem]:
    with open(path, encoding="utf-8-sig", newline="") as stream:  # as the pipeline opens files
        return list(read_calls(stream, "csv", name=path.name))


def _summary(items: list[ImportedCall | ImportProblem]) -> tuple[dict[str, list[str]], list[str]]:
    good = {i.external_id: [t.text for t in i.turns] for i in items if isinstance(i, ImportedCall)}
    return good, [str(i) for i in items if isinstance(i, ImportProblem)]


def test_file_ending_inside_a_quote_rejects_that_row_and_reads_the_lines_after_it(tmp_path: Path) -> None:
    path = tmp_path / "mid.csv"
    path.write_text(MID, encoding="utf-8")
    good, bad = _summary(_read(path))
    assert good == {"c1": ["hello", "hi there"], "c3": ["hey", "yo"]}
    assert bad == [
        "line 4 (conversation 'c2'): a quoted field opened on this line does not close (the file ends "
        "inside it); the lines after it are read as rows of their own",
        "line 8 (conversation 'c4'): turn 'x' is not a whole number",
        "line 9 (conversation 'c5'): speaker 'Customer' maps onto neither caller nor agent "
        "(known labels: agent, caller; add --speaker-map customer=caller|agent)",
    ]


def test_quote_closed_by_a_later_row_rejects_the_opening_row_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / "calls.csv"
    path.write_text(HEADER + 'a,1,caller,"oops\na,2,agent,x\nb,1,caller,"hi" there\nc,1,caller,fine\n',
                    encoding="utf-8")
    good, bad = _summary(_read(path))
    assert good == {"c": ["fine"]}
    assert bad == [
        "line 2 (conversation 'a'): a quoted field opened on this line does not close (line 4: not valid "
        "CSV (',' expected after '\"')); the lines after it are read as rows of their own",
        "line 4 (conversation 'b'): not valid CSV (',' expected after '\"')",
    ]


def test_quoted_field_spanning_lines_is_still_one_field(tmp_path: Path) -> None:
    path = tmp_path / "calls.csv"
    path.write_text(HEADER + 'a,1,caller,"two\nlines"\na,2,agent,"say ""hi"""\nb,1,caller,x\n', encoding="utf-8")
    assert _summary(_read(path)) == ({"a": ["two\nlines", 'say "hi"'], "b": ["x"]}, [])


def test_import_cli_counts_the_runaway_quote_as_a_rejection(polygon_home: Path, tmp_path: Path) -> None:
    path = tmp_path / "mid.csv"
    path.write_text(MID, encoding="utf-8")
    result = CliRunner().invoke(app, ["import", str(path), "--format", "csv", "--source", "csv1", "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert (summary["read"], summary["imported"], summary["rejected"]) == (5, 2, 3)
    assert [e.split(" (", 1)[0] for e in summary["errors"]] == [f"{path}:4", f"{path}:8", f"{path}:9"]
