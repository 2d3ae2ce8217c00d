"""A model-backed agent: the agent config's prompt + model + sampling, through a ChatModel.

Each engine step is one chat call. The engine bounds the tool-calling loop (`max_tool_steps`); this
agent maps the AgentRequest history to chat messages (caller → user, agent → assistant, tool calls as
assistant tool calls followed by their results in each API's own form) and the reply back to an
AgentAction. A built-in `end_call` tool lets the model hang up; it is never run as a stub. With
`tool_calls: text` the tools are described in the system prompt and the calls read from the reply's
text (`_text_tools`), for local models that write tool calls as JSON instead of using the tools API.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from ...conversation import AgentAction, AgentRequest, ToolRequest
from ...models import AgentConfig
from ...providers import ChatMessage, ChatModel, ChatRequest, ChatResponse, ChatTool, ChatToolCall
from ._text_tools import TextCall, as_text_messages, parse_text_reply, tool_instructions

__all__ = ["END_CALL_TOOL", "UNREADABLE_TOOL_CALL", "ModelAgent", "agent_messages"]

END_CALL_TOOL = "end_call"
UNREADABLE_TOOL_CALL = "unreadable_tool_call"
_INVALID = "_invalid_tool_call"
_OPENING = "(the call is connected; greet the caller)"


def _tool_id(turn_marker: int, index: int) -> str:
    return f"call_{turn_marker}_{index}"


def agent_messages(request: AgentRequest, prompt: str | None) -> list[ChatMessage]:
    """The conversation so far as chat messages, from the agent's side."""
    messages: list[ChatMessage] = []
    if prompt:
        messages.append(ChatMessage(role="system", content=prompt, cache=True))
    messages.append(ChatMessage(role="user", content=_OPENING))
    pending: list[tuple[ChatToolCall, Any]] = []

    def flush() -> None:
        if not pending:
            return
        messages.append(ChatMessage(role="assistant", tool_calls=[c for c, _ in pending]))
        for call, result in pending:
            messages.append(ChatMessage(role="tool", tool_call_id=call.id,
                                        content=json.dumps(result, ensure_ascii=False, default=str)))
        pending.clear()

    for i, item in enumerate(request.history):
        if item.role == "tool" and item.tool_call is not None:
            tc = item.tool_call
            result = {"error": tc.error} if tc.error else (
                {"error": f"invalid arguments: {tc.validation_error}"} if not tc.valid else tc.result)
            pending.append((ChatToolCall(id=_tool_id(i, len(pending)), name=tc.name, arguments=tc.arguments),
                            result))
            continue
        flush()
        if item.role == "caller":
            messages.append(ChatMessage(role="user", content=item.text or "(silence)"))
        elif item.text:
            messages.append(ChatMessage(role="assistant", content=item.text))
    flush()
    return messages


def _text_request(call: TextCall, tools: list[ChatTool]) -> ToolRequest:
    """A call read from the text. An unreadable one stays the agent's invalid call: it goes to the
    stubs under its tool's name (so a later valid call corrects it) with the reason as its argument,
    which the tool's schema rejects; when the name cannot be read, or the schema would accept that,
    under `unreadable_tool_call`, which no suite defines."""
    if call.error is None and call.name is not None:
        return ToolRequest(name=call.name, arguments=call.arguments)
    arguments = {_INVALID: call.error or "unreadable tool call", "_text": call.raw[:300]}
    schema = next((t.parameters for t in tools if t.name == call.name), None)
    name = (call.name if call.name is not None and schema is not None and not _accepts(schema, arguments)
            else UNREADABLE_TOOL_CALL)
    return ToolRequest(name=name, arguments=arguments)


def _accepts(schema: dict[str, Any], arguments: dict[str, Any]) -> bool:
    import jsonschema

    from ...stubs import tool_validator

    try:
        return bool(tool_validator(schema).is_valid(arguments))
    except (jsonschema.SchemaError, ValueError):
        return False


def _read_reply(reply: ChatResponse,
                text_tools: list[ChatTool] | None) -> tuple[str, list[ToolRequest], Literal["end"] | None]:
    """(speech, tool calls, end) of a reply; with `text_tools`, calls are also read from its text."""
    say, written = reply.text.strip(), []
    if text_tools is not None:
        parsed = parse_text_reply(reply.text)
        say, written = parsed.speech, [_text_request(c, text_tools) for c in parsed.calls]
    calls: list[ToolRequest] = []
    end: Literal["end"] | None = None
    for call in reply.tool_calls:
        if call.name == END_CALL_TOOL:
            end = "end"
            continue
        # Malformed arguments are passed on as an invalid call (the stub's schema check records it).
        args = call.arguments if call.arguments_valid else {"_raw_arguments": call.raw_arguments}
        calls.append(ToolRequest(name=call.name, arguments=args))
    for req in written:
        if req.name == END_CALL_TOOL and _INVALID not in req.arguments:
            end = "end"
        else:
            calls.append(req)
    return say, calls, end


class ModelAgent:
    """The agent under test, played by a model (one instance per conversation)."""

    def __init__(self, config: AgentConfig, model: ChatModel) -> None:
        self.config, self.model = config, model

    def _tools(self, request: AgentRequest) -> list[ChatTool]:
        tools = [ChatTool(name=t.get("name", ""), description=t.get("description", ""),
                          parameters=t.get("parameters") or t.get("input_schema")
                          or {"type": "object", "properties": {}}) for t in request.tools]
        if END_CALL_TOOL not in {t.name for t in tools}:
            tools.append(ChatTool(name=END_CALL_TOOL, description="Hang up, after saying goodbye."))
        return tools

    async def act(self, request: AgentRequest) -> AgentAction:
        """One chat call; ProviderFailure propagates (the engine ends the conversation provider_error)."""
        s = self.config.sampling
        text_mode = self.config.tool_calls == "text"
        tools = self._tools(request)
        messages = agent_messages(request, request.prompt if request.prompt is not None else self.config.prompt)
        if text_mode:
            messages = as_text_messages(messages, tool_instructions(tools))
        reply = await self.model.chat(ChatRequest(
            messages=messages, tools=[] if text_mode else tools, temperature=s.temperature, top_p=s.top_p,
            max_tokens=s.max_tokens, seed=s.seed, role="agent"))
        say, calls, end = _read_reply(reply, tools if text_mode else None)
        # The reply time is the provider adapter's measure of the call that answered (a cached reply
        # keeps the time recorded with it, the offline provider's is 0), so replays stay deterministic.
        return AgentAction(say=say, tool_calls=calls, end=end if not calls else None, usage=reply.usage,
                           latency_ms=reply.latency_ms)

    async def aclose(self) -> None:
        """Close the model's client."""
        close = getattr(self.model, "aclose", None)
        if close:
            await close()


def model_agent_factory(config: AgentConfig, *, model_name: str | None = None, settings: Any = None,
                        meter: Any = None) -> Any:
    """A factory of ModelAgents on `model_name` (default: the config's model)."""
    from ..providers import ModelNameError, ProviderConfigError, make_chat_model
    from ..settings import load_settings
    from ._callable import AgentConfigError

    name = model_name or config.model
    settings = settings or load_settings()
    try:
        make_chat_model(name, settings)  # fail now, with the reason, not in every conversation
    except (ModelNameError, ProviderConfigError) as exc:
        raise AgentConfigError(f"agent {config.name!r}: {exc}") from None
    return lambda: ModelAgent(config, make_chat_model(name, settings, meter=meter))
