"""Content versions of what is under test: the prompt hash and the agent's behaviour version."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .._hashing import content_hash
from ..models import AgentConfig, ToolDef, ToolLibrary

ToolsArg = Mapping[str, ToolDef] | Iterable[ToolDef] | ToolLibrary | None

# AgentConfig fields that do not change what the agent does. Everything else is hashed, so a field
# added to AgentConfig later changes the version by default (the safe direction); the prompt and
# the tools are hashed separately in their resolved form.
_NOT_BEHAVIOUR = frozenset({"name", "description", "prompt", "prompt_file", "tools"})


def normalise_prompt(text: str) -> str:
    """The prompt as hashed: LF newlines, no trailing whitespace, no trailing blank lines.

    Editors differ in line endings, trailing spaces and the final newline; none of that reaches the
    model in a way that should count as a new prompt version.
    """
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    return "\n".join(line.rstrip() for line in text.split("\n")).rstrip("\n")


def prompt_hash(text: str) -> str:
    """Content hash of the normalised prompt text (see `normalise_prompt`)."""
    return content_hash(normalise_prompt(text))


def agent_version(config: AgentConfig, prompt_text: str, tools: ToolsArg = None) -> str:
    """Content hash of everything that changes the agent's behaviour.

    Hashed: the normalised prompt text, model, sampling parameters, the tools exposed (names, plus
    each tool's full definition when `tools` provides it), forbidden phrases, language, callable,
    endpoint, max_tool_steps and `tool_calls` (when not the default `api`). Not hashed: name,
    description, and the prompt file's path (moving a prompt file does not change the agent;
    editing it does).

    `prompt_text` is the resolved prompt (`LoadedAgent.prompt_text`). `tools` is the definitions the
    agent can be given: a name → ToolDef mapping, a ToolLibrary or ToolDefs. The exposed names are
    `config.tools` when set, otherwise every tool in `tools`.
    """
    settings = config.model_dump(mode="json", exclude=set(_NOT_BEHAVIOUR), exclude_none=True)
    if settings.get("tool_calls") == "api":
        # The default, hashed only when changed: versions from before the field stay as they were.
        del settings["tool_calls"]
    payload = {
        "prompt": prompt_hash(prompt_text),
        "settings": settings,
        "tools": _tools_payload(config, tools),
    }
    return content_hash(payload)


def _tools_payload(config: AgentConfig, tools: ToolsArg) -> list[Any] | None:
    library = _as_mapping(tools)
    if config.tools is not None:
        names = list(config.tools)  # the author's order: tool order in the request can matter
    elif library is not None:
        names = sorted(library)
    else:
        return None
    return [
        library[name].model_dump(mode="json", exclude_none=True)
        if library is not None and name in library
        else name
        for name in names
    ]


def _as_mapping(tools: ToolsArg) -> dict[str, ToolDef] | None:
    if tools is None:
        return None
    if isinstance(tools, ToolLibrary):
        return dict(tools.tools)
    if isinstance(tools, Mapping):
        return dict(tools)
    return {tool.name: tool for tool in tools}
