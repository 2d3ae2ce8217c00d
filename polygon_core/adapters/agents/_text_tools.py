"""Tool calls written as JSON in the reply text (`tool_calls: text`), for local models without the tools API.

The system prompt describes the tools and the one call format; the reply is read strictly. A call
is a JSON object `{"name": "<tool>", "arguments": {...}}`, or a list of them, inside
`<tool_call>…</tool_call>` tags (Hermes/Qwen style), inside a ```json fence, or bare in the text.
Text outside the calls is what the agent says. Anything that looks like a call but is not one
(broken JSON, another shape, arguments that are not an object, an unclosed tag) is an invalid call
with the reason, never an exception; tool results go back to the model as `<tool_response>` text.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from ...providers import ChatMessage, ChatTool

__all__ = ["TextCall", "TextReply", "as_text_messages", "parse_text_reply", "tool_instructions"]

_TAG = re.compile(r"<tool_call>(.*?)(?:</tool_call>|\Z)", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```[ \t]*(json|tool_call|tool)?[ \t]*\n?(.*?)(?:```|\Z)", re.DOTALL | re.IGNORECASE)
_BARE = re.compile(r'(?:\[\s*)?\{\s*"name"\s*:')
_NAME = re.compile(r'"name"\s*:\s*"([^"\\]{1,100})"')
_SHAPE = 'a tool call must be a JSON object {"name": "<tool>", "arguments": {...}}'

_INSTRUCTIONS = """\
Tools. You can call these tools; each line gives a tool's name, what it does and the JSON Schema \
of its arguments:
{tools}

To call a tool, write exactly this, with the arguments as a JSON object, and nothing after it:
<tool_call>
{{"name": "<tool name>", "arguments": {{"<argument>": "<value>"}}}}
</tool_call>
Write one <tool_call> block per call. You may say one short sentence to the caller before the \
block. The results come back in <tool_response> blocks; then answer the caller. When you need no \
tool, just speak to the caller. To hang up, say goodbye and call end_call."""


@dataclass(frozen=True)
class TextCall:
    """One call read from the text: valid (name and arguments) or not (with the reason)."""

    name: str | None
    arguments: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    raw: str = ""


@dataclass(frozen=True)
class TextReply:
    """What the agent said, and the calls it wrote."""

    speech: str
    calls: list[TextCall]


def tool_instructions(tools: list[ChatTool]) -> str:
    """The system-prompt section that describes the tools and the call format."""
    lines = [f"- {t.name}: {t.description or '(no description)'} Arguments: "
             f"{json.dumps(t.parameters, ensure_ascii=False, sort_keys=True)}" for t in tools]
    return _INSTRUCTIONS.format(tools="\n".join(lines))


def _invalid(reason: str, raw: str) -> TextCall:
    match = _NAME.search(raw)
    return TextCall(name=match.group(1) if match else None, error=reason, raw=raw.strip()[:500])


def _one(value: Any, raw: str) -> TextCall:
    if not isinstance(value, dict):
        return _invalid(f"{_SHAPE}, got a {type(value).__name__}", raw)
    extra = sorted(set(value) - {"name", "arguments"})
    if extra:
        return _invalid(f"{_SHAPE}; unexpected key(s) {', '.join(map(repr, extra))}", raw)
    name, arguments = value.get("name"), value.get("arguments", {})
    if not isinstance(name, str) or not name.strip():
        return _invalid(f"{_SHAPE}; the name is missing or not a string", raw)
    if not isinstance(arguments, dict):
        return _invalid(f"the arguments of {name!r} must be a JSON object, got {type(arguments).__name__}", raw)
    return TextCall(name=name.strip(), arguments=arguments, raw=raw.strip()[:500])


def _calls_in(body: str) -> list[TextCall]:
    """The calls of one block's body: an object or a non-empty list of objects."""
    text = body.strip()
    fenced = _FENCE.fullmatch(text)
    if fenced:
        text = fenced.group(2).strip()
    try:
        value = json.loads(text)
    except ValueError as exc:
        return [_invalid(f"the tool call is not valid JSON: {getattr(exc, 'msg', exc)}", text)]
    if isinstance(value, list):
        return [_one(v, json.dumps(v)) for v in value] or [_invalid(f"{_SHAPE}, got an empty list", text)]
    return [_one(value, text)]


def _cut(text: str, spans: list[tuple[int, int]]) -> str:
    kept, at = [], 0
    for start, end in sorted(spans):
        kept.append(text[at:start])
        at = end
    kept.append(text[at:])
    return re.sub(r"\s+", " ", " ".join(kept)).strip()


def _bare(text: str) -> tuple[list[TextCall], list[tuple[int, int]]]:
    decoder = json.JSONDecoder()
    calls: list[TextCall] = []
    spans: list[tuple[int, int]] = []
    at = 0
    while (match := _BARE.search(text, at)) is not None:
        start = match.start()
        try:
            _value, end = decoder.raw_decode(text, start)
        except ValueError as exc:
            calls.append(_invalid(f"the tool call is not valid JSON: {getattr(exc, 'msg', exc)}", text[start:]))
            spans.append((start, len(text)))
            break
        calls += _calls_in(text[start:end])
        spans.append((start, end))
        at = end
    return calls, spans


def parse_text_reply(text: str) -> TextReply:
    """Read a reply strictly: tagged calls, else fenced JSON, else bare JSON calls; the rest is speech."""
    tagged = list(_TAG.finditer(text))
    if tagged:
        calls = [c for m in tagged for c in _calls_in(m.group(1))]
        return TextReply(_cut(text, [m.span() for m in tagged]), calls)
    fences = [m for m in _FENCE.finditer(text)
              if m.group(1) or m.group(2).lstrip().startswith(("{", "["))]
    if fences:
        calls = [c for m in fences for c in _calls_in(m.group(2))]
        return TextReply(_cut(text, [m.span() for m in fences]), calls)
    calls, spans = _bare(text)
    return TextReply(_cut(text, spans) if spans else text.strip(), calls)


def _rendered(message: ChatMessage) -> str:
    return "\n".join(f"<tool_call>\n{json.dumps({'name': c.name, 'arguments': c.arguments}, ensure_ascii=False)}"
                     "\n</tool_call>" for c in message.tool_calls)


def as_text_messages(messages: list[ChatMessage], instructions: str) -> list[ChatMessage]:
    """Chat messages for a model without the tools API: the tools described in the system prompt,
    its own calls as the text it wrote, and tool results as `<tool_response>` user messages."""
    out: list[ChatMessage] = []
    names: dict[str, str] = {}
    for m in messages:
        if m.role == "system":
            out.append(m.model_copy(update={"content": f"{m.content}\n\n{instructions}"}))
        elif m.role == "assistant" and m.tool_calls:
            names.update({c.id: c.name for c in m.tool_calls})
            out.append(ChatMessage(role="assistant", content=_rendered(m)))
        elif m.role == "tool":
            try:
                result = json.loads(m.content)
            except ValueError:
                result = m.content
            body = json.dumps({"name": names.get(m.tool_call_id or "", ""), "result": result}, ensure_ascii=False)
            out.append(ChatMessage(role="user", content=f"<tool_response>\n{body}\n</tool_response>"))
        else:
            out.append(m)
    if not out or out[0].role != "system":
        out.insert(0, ChatMessage(role="system", content=instructions, cache=True))
    return out
