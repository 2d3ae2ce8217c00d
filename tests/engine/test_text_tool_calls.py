"""`tool_calls: text`: an agent on a local model that writes tool calls as JSON in its reply text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from polygon import usecases
from polygon_core.adapters.agents._text_tools import parse_text_reply
from polygon_core.checks import Checks, run_checks
from polygon_core.demo import demo_dir
from polygon_core.files import load_agent, load_suite
from polygon_core.models import Conversation
from tests.fakes.llm_server import FakeLLMServer
from tests.providers.conftest import fast_settings, run_pipeline

LOOKUP = '{"name": "lookup_account", "arguments": {"account_id": "4821", "postcode": "SW1A 2AA"}}'
SUITE = load_suite(demo_dir() / "suite")
REFUND = '{"name": "issue_refund", "arguments": {"amount": 49.0, "reason": "duplicate charge"}}'


def _agent(tmp_path: Path, url: str, mode: str | None) -> Path:
    path = tmp_path / f"agent-{mode}.yaml"
    line = f"tool_calls: {mode}\n" if mode else ""
    path.write_text("name: local-agent\nprompt: You are Northwind Telecom's billing line. Be brief.\n"
                    f"model: \"openai:qwen@{url}\"\nsampling: {{temperature: 0, seed: 7}}\n{line}",
                    encoding="utf-8")
    return path


def _billing(stores: usecases.Stores, run_id: str) -> Conversation:
    rec = next(r for r in stores.repo.list_conversations(run_id) if r.scenario_id == "billing-dispute-v3")
    return usecases.load_conversation(stores, run_id, rec.conversation_id)


def _calls(conv: Conversation) -> list[tuple[str, bool]]:
    return [(c.name, c.valid) for t in conv.turns for c in t.tool_calls]


def _run(tmp_path: Path, texts: list[str], mode: str | None) -> tuple[usecases.Stores, Conversation, FakeLLMServer]:
    with FakeLLMServer() as server:
        server.behaviour.text_tool_calls = texts
        name = f"openai:qwen@{server.openai_url}"
        stores, run = run_pipeline(fast_settings(tmp_path / "home"), _agent(tmp_path, server.openai_url, mode),
                                   {"judge": name}, seeds=[0], run_id=f"text-{mode}")
        return stores, _billing(stores, run.id), server


def _checks(conv: Conversation) -> Checks:
    scenario = next(s for s in SUITE.scenarios if s.id == conv.scenario_id)
    return run_checks(conv, scenario, tools=SUITE.tools)


def test_text_tool_calls_reach_the_stubs_and_the_conversation_is_judged(tmp_path: Path) -> None:
    stores, conv, server = _run(tmp_path, [f"Let me check that. <tool_call>\n{LOOKUP}\n</tool_call>",
                                           f"```json\n{REFUND}\n```"], "text")
    assert _calls(conv) == [("lookup_account", True), ("issue_refund", True)]
    assert [(e.name, e.tool) for e in conv.events] == [("identity_verified", "lookup_account"),
                                                       ("refund_issued", "issue_refund")]
    first_agent = next(t for t in conv.turns if t.speaker == "agent" and t.tool_calls)
    assert first_agent.text.startswith("Let me check that.") and "<tool_call>" not in first_agent.text
    assert {a.name: a.status for a in _checks(conv).assertions}["goal_met"] == "pass"
    assert {a.name: a.status for a in _checks(conv).assertions}["no_policy_breach"] == "pass"
    (judgment,) = [j for j in stores.repo.judgments("text-text", "v1") if j.conversation_id == conv.id]
    assert judgment.composite is not None and judgment.judge_model.startswith("openai:qwen@")
    agent_bodies = [b for b in server.behaviour.seen if "response_format" not in b
                    and "[END:" not in json.dumps(b["messages"][0])]
    # No tools API: the tools and the call format are in the system prompt, results come back as text.
    assert all("tools" not in b for b in agent_bodies)
    system = agent_bodies[0]["messages"][0]["content"]
    assert system.startswith("You are Northwind Telecom's billing line. Be brief.\n\nTools.")
    assert "<tool_call>" in system and "- lookup_account: Look up a customer's account." in system
    assert any(m["role"] == "user" and m["content"].startswith("<tool_response>\n")
               and '"verified": true' in m["content"] for b in agent_bodies for m in b["messages"])


@pytest.mark.parametrize(("text", "name"), [
    ('<tool_call>{"name": "lookup_account", "arguments": {"account_id": "48</tool_call>', "lookup_account"),
    ('<tool_call>{"name": "lookup_account", "arguments": "4821"}</tool_call>', "lookup_account"),
    ('<tool_call>{"tool": "lookup_account", "args": {}}</tool_call>', "unreadable_tool_call"),
])
def test_malformed_text_is_an_invalid_call_not_a_crash(tmp_path: Path, text: str, name: str) -> None:
    _stores, conv, _server = _run(tmp_path, [text], "text")
    assert conv.end_reason.value == "caller_hangup"
    (call,) = [c for t in conv.turns for c in t.tool_calls]
    assert (call.name, call.valid) == (name, False) and call.validation_error
    assert "_invalid_tool_call" in call.arguments
    # The agent spoke after its uncorrected invalid call: the v2 gate sees it.
    assert [(h.gate, h.turn) for h in _checks(conv).invalid_tool_hits] == [("invalid_tool_call", 0)]


def test_api_mode_is_unchanged(tmp_path: Path) -> None:
    _stores, conv, server = _run(tmp_path, [f"<tool_call>{LOOKUP}</tool_call>"], None)
    assert load_agent(_agent(tmp_path, server.openai_url, None)).config.tool_calls == "api"
    # The tools go through the API, so the scripted text is never said and nothing parses it.
    assert _calls(conv) == []
    agent_bodies = [b for b in server.behaviour.seen if b.get("tools")]
    assert agent_bodies and "<tool_call>" not in agent_bodies[0]["messages"][0]["content"]


def test_parser_reads_every_accepted_form() -> None:
    cases: dict[str, Any] = {
        f"<tool_call>{LOOKUP}</tool_call>": ("", ["lookup_account"]),
        f"Okay. ```json\n[{LOOKUP}, {REFUND}]\n```": ("Okay.", ["lookup_account", "issue_refund"]),
        f"One moment. {LOOKUP}": ("One moment.", ["lookup_account"]),
        "How can I help?": ("How can I help?", []),
    }
    for text, (speech, names) in cases.items():
        reply = parse_text_reply(text)
        assert (reply.speech, [c.name for c in reply.calls]) == (speech, names)
        assert all(c.error is None for c in reply.calls)
    bad = parse_text_reply('<tool_call>{"name": "x", "arguments": [1]}</tool_call>').calls[0]
    assert (bad.name, bad.error) == ("x", "the arguments of 'x' must be a JSON object, got list")


def test_tool_calls_text_is_part_of_the_version_and_api_keeps_old_versions(tmp_path: Path) -> None:
    url = "http://127.0.0.1:9/v1"
    default, api, text = (load_agent(_agent(tmp_path, url, mode)) for mode in (None, "api", "text"))
    assert default.version() == api.version() != text.version()


def test_an_unreadable_call_to_a_permissive_tool_is_still_invalid() -> None:
    from polygon_core.adapters.agents._model import _text_request
    from polygon_core.adapters.agents._text_tools import TextCall
    from polygon_core.providers import ChatTool

    strict = ChatTool(name="lookup", parameters={"type": "object", "required": ["id"],
                                                 "properties": {"id": {"type": "string"}}})
    loose = ChatTool(name="note", parameters={"type": "object"})
    bad = [TextCall(name=n, error="the tool call is not valid JSON: x", raw="{") for n in ("lookup", "note", None)]
    assert [_text_request(c, [strict, loose]).name for c in bad] == ["lookup", "unreadable_tool_call",
                                                                     "unreadable_tool_call"]
