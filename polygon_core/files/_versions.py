"""Content versions of what is under test: the prompt hash and the agent's behaviour version.

A version is a hash of parts (`VersionPart`): the prompt, the settings, the tools and, for a Python
agent, its code: each same-project module's source hash, each installed package's name and version,
the standard library's Python version (docs/design.md, "Agent versions"). Everything here is pure:
the adapter (`polygon_core.adapters.agents`) finds and reads the source files and hands their text in.
"""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

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


PartKind = Literal["prompt", "settings", "tools", "endpoint", "model", "module", "package", "stdlib",
                   "missing"]


class VersionPart(BaseModel):
    """One thing an agent version hashes: `sha` for content (prompt, settings, tools, a module's
    source), `version` for what is named rather than read (an installed package, the standard
    library by Python version); `missing` is an import the agent makes that cannot be found."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: PartKind
    name: str
    sha: str | None = None
    version: str | None = None

    @property
    def key(self) -> tuple[str, str]:
        """What identifies the part across two versions (its kind and name)."""
        return self.kind, self.name

    def label(self) -> str:
        """One short phrase: `module acme.agent (sha 1a2b3c4d5e6f)`, `package num2words 0.5.14`."""
        if self.kind in ("prompt", "settings", "tools"):
            return f"{self.kind} (sha {self.sha})"
        if self.kind == "stdlib":
            return f"standard library {self.name} (Python {self.version})"
        detail = f" (sha {self.sha})" if self.sha else f" {self.version}" if self.version else ""
        return f"{self.kind} {self.name}{detail}"


def agent_version(config: AgentConfig, prompt_text: str, tools: ToolsArg = None,
                  code: Sequence[VersionPart] = ()) -> str:
    """Content hash of everything that changes the agent's behaviour.

    Hashed: the normalised prompt text, model, sampling parameters, the tools exposed (names, plus
    each tool's full definition when `tools` provides it), forbidden phrases, language, callable,
    endpoint, max_tool_steps and `tool_calls` (when not the default `api`), and `code`: a Python
    agent's code parts (`code_parts`, found and read by the agent adapter). Not hashed: name,
    description, and the prompt file's path (moving a prompt file does not change the agent;
    editing it does).

    `prompt_text` is the resolved prompt (`LoadedAgent.prompt_text`). `tools` is the definitions the
    agent can be given: a name → ToolDef mapping, a ToolLibrary or ToolDefs. The exposed names are
    `config.tools` when set, otherwise every tool in `tools`.
    """
    payload: dict[str, Any] = {
        "prompt": prompt_hash(prompt_text),
        "settings": _settings(config),
        "tools": _tools_payload(config, tools),
    }
    if code:
        # Only a Python agent has code parts: model and HTTP agents keep the versions they had.
        payload["code"] = [part.model_dump(mode="json", exclude_none=True) for part in sorted_parts(code)]
    return content_hash(payload)


def version_parts(config: AgentConfig, prompt_text: str, tools: ToolsArg = None,
                  code: Sequence[VersionPart] = ()) -> list[VersionPart]:
    """The parts `agent_version` hashes, each with its own hash (or name and version), for showing
    what a version is made of and which part changed between two."""
    parts = [VersionPart(kind="prompt", name="prompt", sha=prompt_hash(prompt_text)),
             VersionPart(kind="settings", name="settings", sha=content_hash(_settings(config)))]
    tool_list = _tools_payload(config, tools)
    if tool_list is not None:
        parts.append(VersionPart(kind="tools", name="tools", sha=content_hash(tool_list)))
    if config.endpoint:
        parts.append(VersionPart(kind="endpoint", name=config.endpoint))  # hashed within the settings
    return [*parts, *sorted_parts(code)]


def sorted_parts(parts: Iterable[VersionPart]) -> list[VersionPart]:
    """Code parts in one order (kind, then name), so the order they were found in never matters."""
    order = {kind: i for i, kind in enumerate(("module", "missing", "package", "stdlib"))}
    return sorted(set(parts), key=lambda p: (order.get(p.kind, -1), p.name, p.sha or "", p.version or ""))


def describe_parts(parts: Sequence[VersionPart]) -> str:
    """The parts on one line, the standard library's names gathered: `prompt (sha …), settings (sha
    …), module acme.agent (sha …), package httpx 0.28.1, standard library json, re (Python 3.12)`."""
    stdlib = [p for p in parts if p.kind == "stdlib"]
    shown = [p.label() for p in parts if p.kind != "stdlib"]
    for python in sorted({p.version or "" for p in stdlib}):
        names = ", ".join(sorted(p.name for p in stdlib if (p.version or "") == python))
        shown.append(f"standard library {names} (Python {python})")
    return ", ".join(shown)


def changed_parts(before: Sequence[VersionPart], after: Sequence[VersionPart]) -> list[str]:
    """What differs between two versions' parts, one phrase each, in the order of `after`, then
    what is gone: `module acme.agent sha 1a2b3c4d5e6f → 3c4d5e6f7a8b`, `package httpx 0.27.0 →
    0.28.1`, `module acme.extra added (sha …)`, `package six 1.16.0 removed`."""
    old = {p.key: p for p in before}
    new = {p.key: p for p in after}
    out: list[str] = []
    for key, part in new.items():
        was = old.get(key)
        if was is None:
            out.append(f"{part.label()} added")
        elif was != part:
            out.append(f"{_named(part)} {_value(was)} → {_value(part).removeprefix('sha ')}")
    out.extend(f"{part.label()} removed" for key, part in old.items() if key not in new)
    return out


def _named(part: VersionPart) -> str:
    return part.kind if part.kind in ("prompt", "settings", "tools") else f"{part.kind} {part.name}"


def _value(part: VersionPart) -> str:
    return f"sha {part.sha}" if part.sha else part.version or "—"


def source_sha(source: bytes) -> str:
    """Hash of a module's source as stored (its bytes): any edit, even a comment, is a new version,
    since the agent's code is what runs and Polygon cannot tell which edits change behaviour."""
    return hashlib.sha256(source).hexdigest()[:12]


@dataclass(frozen=True)
class ImportedName:
    """A module an import statement names, absolute. `maybe_attribute`: from `from pkg import x`,
    `pkg.x` may be a submodule or just a name `pkg` defines; only a lookup can tell."""

    name: str
    maybe_attribute: bool = False


def imported_modules(source: bytes | str, module: str, *, is_package: bool) -> list[ImportedName]:
    """Every module the source's import statements name (at any depth: a function's lazy import
    runs too), with the packages each one's import runs (`a.b.c` runs `a` and `a.b`), relative
    imports resolved against `module` (a package's own name when `is_package`). A file that does
    not parse names nothing (its own hash still counts); a relative import past the top is ignored.
    """
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    package = module if is_package else module.rpartition(".")[0]
    found: dict[str, bool] = {}

    def add(name: str, maybe_attribute: bool = False) -> None:
        parts = name.split(".")
        for i in range(1, len(parts)):
            found.setdefault(".".join(parts[:i]), False)
        found[name] = found.get(name, True) and maybe_attribute

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            base = _from_base(node, package)
            if base is None:
                continue
            add(base)
            for alias in node.names:
                if alias.name != "*":
                    add(f"{base}.{alias.name}", maybe_attribute=True)
    return [ImportedName(name, maybe) for name, maybe in found.items() if name]


def _from_base(node: ast.ImportFrom, package: str) -> str | None:
    if not node.level:
        return node.module or None
    parts = package.split(".") if package else []
    if node.level - 1 >= len(parts):
        return None  # past the top-level package (Python refuses it too)
    base = ".".join(parts[: len(parts) - (node.level - 1)])
    if node.module:
        base = f"{base}.{node.module}" if base else node.module
    return base or None


def _settings(config: AgentConfig) -> dict[str, Any]:
    settings = config.model_dump(mode="json", exclude=set(_NOT_BEHAVIOUR), exclude_none=True)
    if settings.get("tool_calls") == "api":
        # The default, hashed only when changed: versions from before the field stay as they were.
        del settings["tool_calls"]
    return settings


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
