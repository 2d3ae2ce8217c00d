"""Production calls are graded with the importing agent's rules and tools: its forbidden phrases
apply without `--agent` given again, and imported tool calls are checked against the tools' schemas
(so the invalid-tool-call gate can fire on a real call)."""

from __future__ import annotations

import json
from pathlib import Path

from polygon import usecases
from polygon_core.demo import demo_dir

SUITE = str(demo_dir() / "suite")
V1 = str(demo_dir() / "agents" / "agent_v1.yaml")
CALL = {"id": "call-9", "started_at": "2024-05-06T09:14:03Z", "end_reason": "caller_hangup", "turns": [
    {"speaker": "agent", "text": "Northwind billing, how can I help?"},
    {"speaker": "caller", "text": "My bill is wrong, account 4821."},
    {"speaker": "agent", "text": "Let me look that up.",
     "tool_calls": [{"id": "t1", "name": "lookup_account", "arguments": {"account_id": "A-48"}, "result": {}}]},
    {"speaker": "agent", "text": "A refund is guaranteed by Friday."},
    {"speaker": "caller", "text": "Thank you."}]}


def _import(tmp_path: Path, **files: str | None) -> usecases.Stores:
    calls = tmp_path / "calls.jsonl"
    calls.write_text(json.dumps(CALL) + "\n", encoding="utf-8")
    stores = usecases.open_stores()
    summary = usecases.import_calls(stores, [str(calls)], "polygon", source="prod", **files)
    assert summary.imported == 1
    return stores


def test_an_imported_call_is_graded_with_its_agents_phrases_and_tool_schemas(polygon_home: Path,
                                                                             tmp_path: Path) -> None:
    stores = _import(tmp_path, agent_path=V1, suite_path=SUITE)
    (run,) = usecases.grade_production(stores, "prod", rubric_version="v2")  # no agent given again
    (conv_id,) = stores.repo.conversation_ids(run.id)
    (call,) = usecases.load_conversation(stores, run.id, conv_id).tool_calls
    assert (call.valid, call.validation_error) == (False, "$: 'postcode' is a required property")
    (judgment,) = stores.repo.judgments(run.id)
    assert [g.gate for g in judgment.gates] == ["forbidden_phrase", "invalid_tool_call"]
    assert judgment.verdict == "fail"


def test_without_the_agent_nothing_is_assumed(polygon_home: Path, tmp_path: Path) -> None:
    stores = _import(tmp_path)
    (run,) = usecases.grade_production(stores, "prod", rubric_version="v2")
    (conv_id,) = stores.repo.conversation_ids(run.id)
    (call,) = usecases.load_conversation(stores, run.id, conv_id).tool_calls
    assert call.valid  # no tool library to check it against
    (judgment,) = stores.repo.judgments(run.id)
    assert judgment.gates == []


def test_an_agent_file_edited_since_the_import_is_not_used(polygon_home: Path, tmp_path: Path) -> None:
    agent = tmp_path / "agent.yaml"
    agent.write_text(Path(V1).read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "prompt_v1.txt").write_text((Path(V1).parent / "prompt_v1.txt").read_text(encoding="utf-8"),
                                            encoding="utf-8")
    stores = _import(tmp_path, agent_path=str(agent))
    agent.write_text(agent.read_text(encoding="utf-8").replace("[guaranteed]", "[never]"), encoding="utf-8")
    (run,) = usecases.grade_production(stores, "prod", rubric_version="v2")
    (judgment,) = stores.repo.judgments(run.id)
    assert judgment.gates == []  # the edited agent is another version: its phrases do not apply
