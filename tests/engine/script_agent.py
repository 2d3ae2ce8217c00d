"""A stateless, deterministic test agent, servable three ways: callable, HTTP and model wire format."""

from __future__ import annotations

import json
from typing import Any

from polygon_core.conversation import AgentAction, AgentRequest, ToolRequest
from polygon_core.demo._parse import find_account_id, find_postcode

OPENING = "Hello, this is the test line. What is your account number and postcode?"


def script_step(heard: str | None, tool_result: Any) -> tuple[str, list[dict[str, Any]]]:
    """The agent's whole policy: a function of what it just heard or the last tool result."""
    if tool_result is not None:
        verified = isinstance(tool_result, dict) and tool_result.get("verified") is True
        return f"Checked: verified={verified}. Is there anything else?", []
    if heard is None:
        return OPENING, []
    account, postcode = find_account_id(heard), find_postcode(heard)
    if account and postcode:
        return "Thanks, let me check.", [{"name": "lookup_account",
                                          "arguments": {"account_id": account, "postcode": postcode}}]
    return f"I heard: {heard.strip()} Please give your account number and postcode.", []


def script_agent(request: AgentRequest) -> AgentAction:
    """The callable form (a stateless function of the AgentRequest)."""
    result = request.tool_results[-1].result if request.tool_results else None
    say, calls = script_step(request.heard if request.step == 0 else None, result)
    return AgentAction(say=say, tool_calls=[ToolRequest(**c) for c in calls])


def openai_reply(body: dict[str, Any]) -> dict[str, Any]:
    """The OpenAI Chat Completions form: read the chat messages, answer with the same policy."""
    last = body["messages"][-1]
    if last["role"] == "tool":
        say, calls = script_step(None, json.loads(last["content"]))
    elif last["content"].startswith("(the call is connected"):
        say, calls = script_step(None, None)
    else:
        say, calls = script_step(last["content"], None)
    message: dict[str, Any] = {"role": "assistant", "content": say}
    if calls:
        message["tool_calls"] = [{"id": f"call_{i}", "type": "function",
                                  "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])}}
                                 for i, c in enumerate(calls)]
    return {"id": "cmpl-script", "object": "chat.completion", "created": 0, "model": body["model"],
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}
