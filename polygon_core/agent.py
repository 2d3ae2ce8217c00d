"""The agent contract: what a Python agent receives and returns (docs/agents.md).

Import these names from here (`from polygon_core.agent import AgentAction, AgentRequest`); they are
the same objects the engine uses (`polygon_core.conversation`, `polygon_core.models`), gathered so an
agent's author needs one stable import.

- `AgentRequest`: one step of the conversation, as the agent sees it (also the HTTP agent's request
  body).
- `AgentAction`: the agent's answer (also the HTTP agent's response body). A Python agent may return
  it or a dict of the same shape.
- `ToolRequest`: a tool call the agent asks for (`AgentAction.tool_calls`).
- `ToolCall`: a tool call as made, with the stub's answer (`AgentRequest.tool_results`,
  `HistoryItem.tool_call`).
- `HistoryItem`: one entry of the conversation so far (`AgentRequest.history`).
- `AgentEnd`: how an agent ends a call (`"end"`, `"transfer"`, `"callback"`).
- `Usage`: token counts an agent may report (`AgentAction.usage`).
- `Agent`: the protocol a class agent follows (`act(request)`, sync or async).
"""

from __future__ import annotations

from .conversation import Agent, AgentAction, AgentEnd, AgentRequest, HistoryItem, ToolRequest
from .models import ToolCall, Usage

__all__ = ["Agent", "AgentAction", "AgentEnd", "AgentRequest", "HistoryItem", "ToolCall", "ToolRequest", "Usage"]
