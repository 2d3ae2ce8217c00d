"""Import formats: every sample imports; bad rows are reported with their line; re-import is a no-op."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polygon import usecases
from polygon.cli import app
from polygon_core.adapters.storage import ImportLedger
from polygon_core.imports import (
    FORMATS,
    ImportedCall,
    ImportProblem,
    conversation_id_for,
    parse_speaker_map,
    read_calls,
    sample_path,
)

SAMPLE_IDS = {
    "polygon": ["call-0001", "call-0002"],
    "openai": ["chat-81", "chat-82"],
    "csv": ["csv-1", "csv-2"],
    "vapi": ["0f4d2c1e-8b1a-4c55-9a57-2b8f3c1d7e01", "7c9e6679-7425-40de-944b-e07fc1f90ae7"],
    "retell": ["Jabr9TXYYJHfvl6Syypi88rdAHYHmcq6", "Xk2p0QqLrS8tUvW1yZa3bC4dE5fG6hI7"],
}


def _items(text: str, fmt: str, name: str = "x.jsonl", **kw: object) -> list[object]:
    return list(read_calls(io.StringIO(text), fmt, name=name, **kw))  # type: ignore[arg-type]


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_each_format_imports_its_sample(fmt: str, stores: usecases.Stores) -> None:
    path = str(sample_path(fmt))
    summary = usecases.import_calls(stores, [path], fmt, source="s")
    assert summary.model_dump() == {"read": 2, "imported": 2, "duplicates": 0, "rejected": 0,
                                    "errors": []}
    records = ImportLedger(stores.repo.engine).select("s")
    assert sorted(r.external_id for r in records) == SAMPLE_IDS[fmt]
    again = usecases.import_calls(stores, [path], fmt, source="s")
    assert again.model_dump() == {"read": 2, "imported": 0, "duplicates": 2, "rejected": 0,
                                  "errors": []}
    assert ImportLedger(stores.repo.engine).count() == 2


def test_sample_contents_are_read_exactly() -> None:
    with sample_path("vapi").open(encoding="utf-8") as stream:
        first = next(iter(read_calls(stream, "vapi", name="vapi_calls.json")))
    assert isinstance(first, ImportedCall)
    assert first.started_at == "2024-05-06T13:20:00.000000Z"
    assert first.end_reason == "caller_hangup"
    assert [(t.speaker, t.text) for t in first.turns] == [
        ("agent", "Northwind Telecom billing, how can I help?"),
        ("caller", "I was charged a late fee I don't understand."),
        ("agent", "The fee is for a payment received after the due date; it is not refundable."),
        ("caller", "Okay, thanks."),
    ]
    (call,) = first.turns[2].tool_calls
    assert (call.id, call.name, call.arguments, call.result) == (
        "call_abc", "lookup_account", {"account_id": "A-4004"}, {"late_fee": 15})
    with sample_path("openai").open(encoding="utf-8") as stream:
        chat = next(iter(read_calls(stream, "openai", name="openai.jsonl")))
    assert isinstance(chat, ImportedCall)
    assert [c.result for t in chat.turns for c in t.tool_calls] == [{"balance": 12.5}]
    with sample_path("retell").open(encoding="utf-8") as stream:
        retell = next(iter(read_calls(stream, "retell", name="retell_calls.json")))
    assert isinstance(retell, ImportedCall)
    assert retell.turns[1].at == "2024-05-06T14:00:03.100000Z"


GOOD = ('{"id": "g%d", "started_at": "2024-05-06T10:00:00Z", "turns": [{"speaker": "caller", '
        '"text": "hi"}, {"speaker": "agent", "text": "hello"}]}')
BAD_FILE = "\n".join([
    GOOD % 1,
    '{"id": "trunc", "turns": [{"speaker": "caller", "te',
    '{"id": "nospeaker", "turns": [{"text": "hi"}, {"speaker": "agent", "text": "yes"}]}',
    '{"id": "empty", "turns": []}',
    GOOD % 2,
    GOOD % 1,
]) + "\n"


def test_bad_file_keeps_every_good_conversation_and_reports_each_problem(
        stores: usecases.Stores, tmp_path: Path) -> None:
    path = tmp_path / "calls.jsonl"
    path.write_text(BAD_FILE, encoding="utf-8")
    summary = usecases.import_calls(stores, [str(path)], "polygon", source="s")
    assert (summary.read, summary.imported, summary.duplicates, summary.rejected) == (6, 2, 1, 3)
    assert summary.errors == [
        f"{path}:2: not valid JSON (Unterminated string starting at: column 49); truncated line?",
        f"{path}:3 (conversation 'nospeaker'): turns.0: missing speaker",
        f"{path}:4 (conversation 'empty'): empty conversation: no turns with text or tool calls",
        f"{path}:6 (conversation 'g1'): duplicate conversation: already read at {path}:1",
    ]
    assert sorted(r.external_id for r in ImportLedger(stores.repo.engine).select("s")) == ["g1", "g2"]
    again = usecases.import_calls(stores, [str(path)], "polygon", source="s")
    assert (again.read, again.imported, again.duplicates, again.rejected) == (6, 0, 3, 3)
    assert ImportLedger(stores.repo.engine).count() == 2


def test_duplicate_across_batches_of_one_import_is_reported(stores: usecases.Stores,
                                                            tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text("\n".join([GOOD % 1, GOOD % 2, GOOD % 1]) + "\n", encoding="utf-8")
    summary = usecases.import_file(stores, str(path), "polygon", source="s", batch_size=1)
    assert (summary.imported, summary.duplicates) == (2, 1)
    assert summary.errors == [
        f"{path}:3 (conversation 'g1'): duplicate conversation: already read at {path}:1"]


CSV_BAD = """conversation_id,turn,speaker,text,timestamp
a,1,agent,Hello,2024-05-06T10:00:00Z
a,2,caller,Hi there,2024-05-06T10:00:03Z
b,1,agent,Hello
b,2,,Hi
c,1,agent,Hello,2024-05-06T11:00:00Z
c,2,customer,Hi,2024-05-06T11:00:02Z
d,1,agent,,
e,1,bot,Hello,2024-05-06T12:00:00Z
e,2,caller,Bye,2024-05-06T12:00:09Z
a,1,agent,Hello again,2024-05-06T13:00:00Z
"""


def test_csv_problems_name_their_lines() -> None:
    items = _items(CSV_BAD, "csv", "x.csv", speaker_map={"bot": "agent"})
    assert [(type(i).__name__, getattr(i, "external_id", None), getattr(i, "line", None))
            for i in items] == [
        ("ImportedCall", "a", 2), ("ImportProblem", "b", 4), ("ImportProblem", "c", 7),
        ("ImportProblem", "d", 8), ("ImportedCall", "e", 9), ("ImportedCall", "a", 11)]
    problems = [str(i) for i in items if isinstance(i, ImportProblem)]
    assert problems == [
        "line 4 (conversation 'b'): row has 4 of 5 columns (truncated line?)",
        "line 7 (conversation 'c'): speaker 'customer' maps onto neither caller nor agent "
        "(known labels: agent, bot, caller; add --speaker-map customer=caller|agent)",
        "line 8 (conversation 'd'): empty conversation: no turns with text or tool calls",
    ]
    e = items[4]
    assert isinstance(e, ImportedCall)
    assert [(t.speaker, t.text) for t in e.turns] == [("agent", "Hello"), ("caller", "Bye")]
    assert (e.started_at, e.ended_at) == ("2024-05-06T12:00:00.000000Z", "2024-05-06T12:00:09.000000Z")


def test_unknown_speaker_label_rejects_that_conversation_only() -> None:
    text = ('{"id": "x", "messages": [{"role": "user", "content": "hi"}, '
            '{"role": "narrator", "content": "..."}]}\n'
            '{"id": "y", "messages": [{"role": "user", "content": "hi"}]}\n')
    items = _items(text, "openai")
    assert [str(i) for i in items if isinstance(i, ImportProblem)] == [
        "line 1 (conversation 'x'): messages.1: speaker 'narrator' maps onto neither caller nor "
        "agent (known labels: assistant, user; add --speaker-map narrator=caller|agent)"]
    assert [i.external_id for i in items if isinstance(i, ImportedCall)] == ["y"]
    mapped = _items(text, "openai", speaker_map=parse_speaker_map("Narrator=agent"))
    assert all(isinstance(i, ImportedCall) for i in mapped)


def test_speaker_map_parsing() -> None:
    assert parse_speaker_map("Customer=caller, Bot=agent") == {"customer": "caller", "bot": "agent"}
    with pytest.raises(ValueError, match="'Bot=robot': expected LABEL=caller or LABEL=agent"):
        parse_speaker_map("Bot=robot")


def test_truncated_json_array_reports_the_line() -> None:
    text = '[\n {"call_id": "a", "transcript_object": [{"role": "user", "content": "hi"}]},\n {"call_id": "b", "tra'
    items = _items(text, "retell", "calls.json")
    assert isinstance(items[0], ImportedCall)
    assert str(items[1]).startswith("line 3: not valid JSON")


def test_openai_tool_calls_go_with_the_agent_words_after_them() -> None:
    text = json.dumps({"id": "t", "messages": [
        {"role": "user", "content": "refund please"},
        {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {
            "name": "issue_refund", "arguments": "{\"amount\": 5}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "refused"},
        {"role": "assistant", "content": "I could not refund that."}]}) + "\n"
    (call,) = _items(text, "openai")
    assert isinstance(call, ImportedCall)
    assert [(t.speaker, t.text, [(c.name, c.arguments, c.result) for c in t.tool_calls])
            for t in call.turns] == [
        ("caller", "refund please", []),
        ("agent", "I could not refund that.", [("issue_refund", {"amount": 5}, "refused")])]


def test_parser_is_a_generator() -> None:
    def endless() -> object:
        n = 0
        while True:
            n += 1
            yield (GOOD % n) + "\n"

    stream = endless()
    first = next(iter(read_calls(stream, "polygon", name="x.jsonl")))  # type: ignore[arg-type]
    assert isinstance(first, ImportedCall) and first.external_id == "g1"


def test_cli_import_json_and_reimport(polygon_home: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    path = tmp_path / "calls.jsonl"
    path.write_text(BAD_FILE, encoding="utf-8")
    result = runner.invoke(app, ["import", str(path), "--format", "polygon", "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert {k: out[k] for k in ("read", "imported", "duplicates", "rejected")} == {
        "read": 6, "imported": 2, "duplicates": 1, "rejected": 3}
    assert [e.split(": ", 1)[0] for e in out["errors"]] == [
        f"{path}:2", f"{path}:3 (conversation 'nospeaker')", f"{path}:4 (conversation 'empty')",
        f"{path}:6 (conversation 'g1')"]
    again = json.loads(runner.invoke(app, ["import", str(path), "--format", "polygon", "--json"]).stdout)
    assert (again["imported"], again["duplicates"]) == (0, 3)
    bad = runner.invoke(app, ["import", str(path), "--format", "nope"])
    assert bad.exit_code == 2
    assert "unknown --format 'nope'" in bad.output


def test_conversation_ids_are_stable_per_source() -> None:
    assert conversation_id_for("s", "x") == conversation_id_for("s", "x")
    assert conversation_id_for("s", "x") != conversation_id_for("t", "x")
