"""CSV transcripts: ``conversation_id,turn,speaker,text`` plus optional columns.

Optional columns: ``timestamp`` (ISO-8601 or Unix seconds), ``tool_name``, ``tool_arguments``
(a JSON object), ``tool_result`` (JSON or text), ``tool_call_id``, ``started_at``, ``end_reason``,
``scenario``. One row per turn; the rows of a conversation are contiguous (a conversation id that
comes back after another one started is read as a second, duplicate conversation). Within a
conversation rows are ordered by ``turn``. A row with a ``tool_name`` records a call the agent made
before that row's text; with an empty text the call goes with the agent's next words.

Any bad row (a missing or unknown speaker, a short or truncated row, a turn that is not a number,
a line that is not UTF-8, a field longer than Python's CSV limit of 128 KiB, a quote that does not
close) rejects its whole conversation, reported at that row's line: grading a conversation with a
hole in it would mislead. The other conversations of the file are imported. A quote still open at
the end of the file (or closed by something other than a comma or the end of a line) is reported at
the line it opened on, and the lines after that one are read again as rows of their own.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator, Mapping
from typing import Any, TextIO

from ..models import Speaker
from ._builder import TurnBuilder
from ._common import BadRecord, arguments, iso_time, result_value
from ._format import import_format
from ._lines import MAX_TURNS, Line, numbered_lines
from ._types import AGENT, CALLER, ImportedCall, ImportProblem, ParseItem, SpeakerMap

__all__ = ["REQUIRED_COLUMNS", "parse_csv"]

REQUIRED_COLUMNS = ("conversation_id", "turn", "speaker", "text")
OPTIONAL_COLUMNS = ("timestamp", "tool_name", "tool_arguments", "tool_result", "tool_call_id",
                    "started_at", "end_reason", "scenario")
DEFAULT_SPEAKERS: dict[str, Speaker] = {"caller": CALLER, "agent": AGENT}


class _Group:
    """The rows of one conversation while it is being read (bounded by that conversation)."""

    def __init__(self, ident: str, line: int) -> None:
        self.ident = ident
        self.line = line
        self.rows: list[tuple[int, int, dict[str, str]]] = []  # (turn, line, row)
        self.problem: ImportProblem | None = None

    def fail(self, line: int, reason: str) -> None:
        if self.problem is None:  # the first problem is the one reported
            self.problem = ImportProblem(line, reason, self.ident)
        self.rows.clear()  # a rejected conversation's rows are not kept (nor are its later ones)


def _turn_number(text: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise BadRecord(f"turn {text!r} is not a whole number") from None


def _finish(group: _Group, speakers: SpeakerMap) -> ParseItem:
    if group.problem is not None:
        return group.problem
    built = TurnBuilder()
    first: dict[str, str] = group.rows[0][2] if group.rows else {}
    for number, line, row in sorted(group.rows, key=lambda r: (r[0], r[1])):
        try:
            side = speakers(row.get("speaker"))
            at = iso_time(_number_or_text(row.get("timestamp")))
        except ValueError as exc:  # SpeakerError and BadRecord
            return ImportProblem(line, str(exc), group.ident)
        name = (row.get("tool_name") or "").strip()
        if name:
            if side != AGENT:
                return ImportProblem(line, "a tool call on a caller row", group.ident)
            try:
                args, result = arguments(row.get("tool_arguments")), result_value(row.get("tool_result") or None)
            except BadRecord as exc:  # JSON that cannot be kept: a huge integer, a lone surrogate
                return ImportProblem(line, str(exc), group.ident)
            built.call((row.get("tool_call_id") or "").strip() or f"{group.ident}-{number}", name, args,
                       result=result)
        built.say(side, row.get("text") or "", at)
    turns = built.turns()
    try:
        started = iso_time(_number_or_text(first.get("started_at"))) or next(
            (t.at for t in turns if t.at), None)
    except BadRecord as exc:
        return ImportProblem(group.line, str(exc), group.ident)
    return ImportedCall(external_id=group.ident, line=group.line, turns=turns, started_at=started,
                        ended_at=next((t.at for t in reversed(turns) if t.at), None),
                        end_reason=(first.get("end_reason") or None),
                        scenario=(first.get("scenario") or None))


def _number_or_text(value: str | None) -> Any:
    if value is None or not value.strip():
        return None
    try:
        return float(value)
    except ValueError:
        return value


class _Source:
    """The file's lines for `csv.reader`, remembering which of them could not be read, and why."""

    def __init__(self, stream: TextIO) -> None:
        self._lines: Iterator[Line] = numbered_lines(stream)
        self.errors: dict[int, str] = {}
        self.texts: dict[int, str] = {}  # the lines of the row being read, for a row csv rejects
        self._again: list[str] = []  # lines to give csv a second time (reversed), see `reread_after`

    def __iter__(self) -> Iterator[str]:
        return self

    def __next__(self) -> str:
        if self._again:
            return self._again.pop()
        line = next(self._lines)
        if line.error is not None:
            self.errors[line.number] = line.error
        self.texts[line.number] = line.text
        return line.text

    def reread_after(self, first: int) -> int:
        """Give csv the kept lines after line `first` again; returns how many.

        A quote left open on line `first` swallowed the lines after it into one field; once that
        row is rejected, those lines are rows of their own and are read again (they are kept, as
        the lines of the row being read, so memory stays bounded by the CSV field limit).
        """
        later = sorted(n for n in self.texts if n > first)
        self._again = [self.texts[n] for n in reversed(later)]
        return len(later)

    def row_error(self, first: int, last: int) -> str | None:
        """The first problem of lines `first`..`last` (one row may span lines), if any."""
        return next((self.errors[n] for n in range(first, last + 1) if n in self.errors), None)

    def forget(self, last: int) -> None:
        """Drop what is kept for lines up to `last` (memory stays bounded by one row)."""
        for number in [n for n in self.texts if n <= last]:
            del self.texts[number]
            self.errors.pop(number, None)


def _guess_ident(source: _Source, line: int, header: list[str]) -> str:
    # A row csv refused (a field over its limit) has no parsed values; read the id from the start
    # of its first line, where the usual column order puts it.
    start = source.texts.get(line, "")[:4096]
    try:
        values = next(csv.reader([start]))
    except (csv.Error, StopIteration):
        return ""
    index = header.index("conversation_id")
    return values[index].strip() if index < len(values) else ""


@import_format("csv", "CSV: conversation_id,turn,speaker,text [,timestamp, tool_name, tool_arguments, tool_result]",
               sample="calls.csv", suffixes=(".csv",))
def parse_csv(stream: TextIO, speaker_map: Mapping[str, Speaker] | None = None, *,
              lines: bool = True) -> Iterator[ParseItem]:
    """CSV rows grouped into conversations, one conversation in memory at a time (`lines`: unused)."""
    speakers = SpeakerMap(DEFAULT_SPEAKERS, speaker_map)
    source = _Source(stream)
    # strict: a file that ends inside a quoted field is an error, not one field holding the rest
    # of the file (a quoted field may still span lines: only an unclosed or misused quote fails).
    reader = csv.reader(source, strict=True)
    try:
        header = [h.strip().lower() for h in next(reader)]
    except StopIteration:
        return
    except csv.Error as exc:
        yield ImportProblem(1, f"cannot read the CSV header: {_csv_reason(exc)}")
        return
    if source.row_error(1, reader.line_num):
        yield ImportProblem(1, f"cannot read the CSV header: {source.row_error(1, reader.line_num)}")
        return
    missing = [c for c in REQUIRED_COLUMNS if c not in header]
    if missing:
        yield ImportProblem(1, f"CSV header lacks column(s) {', '.join(missing)}; expected "
                               f"{','.join(REQUIRED_COLUMNS)} (optional: {', '.join(OPTIONAL_COLUMNS)})")
        return
    group: _Group | None = None
    last_line = reader.line_num
    reread = 0  # lines csv counted twice (read again after a runaway quote)
    while True:
        line = last_line + 1  # where this row starts (quoted fields can span lines)
        try:
            values = next(reader)
            problem = None
        except StopIteration:
            break
        except csv.Error as exc:
            values, problem = [], _csv_reason(exc)
        last_line = reader.line_num - reread
        if problem is not None and last_line > line and _runaway_quote(problem):
            problem = _runaway_reason(problem, last_line)
            reread += source.reread_after(line)
            last_line = line
        problem = problem or source.row_error(line, last_line)
        if problem is not None:
            ident = (dict(zip(header, values, strict=False)).get("conversation_id") or "").strip() \
                or _guess_ident(source, line, header)
            source.forget(last_line)
            if group is not None and ident == group.ident:
                group.fail(line, problem)
                continue
            if group is not None:
                yield _finish(group, speakers)
                group = None
            if ident:  # the start of a conversation whose first row is already broken
                group = _Group(ident, line)
                group.fail(line, problem)
            else:
                yield ImportProblem(line, problem)
            continue
        source.forget(last_line)
        if not any(v.strip() for v in values):
            continue
        row = dict(zip(header, values, strict=False))
        ident = (row.get("conversation_id") or "").strip()
        if group is not None and ident != group.ident:
            yield _finish(group, speakers)
            group = None
        if not ident:
            yield ImportProblem(line, "row has no conversation_id")
            continue
        if group is None:
            group = _Group(ident, line)
        if len(values) < len(header):
            group.fail(line, f"row has {len(values)} of {len(header)} columns (truncated line?)")
            continue
        if len(values) > len(header):
            group.fail(line, f"row has {len(values)} columns, the header {len(header)}")
            continue
        try:
            number = _turn_number(row["turn"])
        except BadRecord as exc:
            group.fail(line, str(exc))
            continue
        if not (row.get("speaker") or "").strip():
            group.fail(line, "missing speaker")
            continue
        if group.problem is None and len(group.rows) >= MAX_TURNS:
            group.fail(line, f"more than {MAX_TURNS:,} rows in one conversation (the limit)")
        if group.problem is None:  # a rejected conversation's rows are only read past
            group.rows.append((number, line, row))
    if group is not None:
        yield _finish(group, speakers)


def _runaway_quote(reason: str) -> bool:
    """Whether csv's error means a quote did not close where it should have (not a field limit)."""
    return "(the CSV field limit)" not in reason


def _runaway_reason(reason: str, last: int) -> str:
    where = "the file ends inside it" if "unexpected end of data" in reason else f"line {last}: {reason}"
    return (f"a quoted field opened on this line does not close ({where}); "
            f"the lines after it are read as rows of their own")


def _csv_reason(exc: csv.Error) -> str:
    text = str(exc)
    if "field larger than field limit" in text:
        return f"a field is longer than {csv.field_size_limit() // 1024} KiB (the CSV field limit)"
    return f"not valid CSV ({text})"
