"""Telling Polygon's file kinds apart, by file name first and by top-level keys second."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

FileKind = Literal["suite", "suite_config", "tools", "scenario", "agent", "sweep", "probes"]
FILE_KINDS: tuple[FileKind, ...] = ("suite", "suite_config", "tools", "scenario", "agent", "sweep", "probes")

SUITE_CONFIG_NAMES = ("suite.yaml", "suite.yml")
TOOLS_NAMES = ("tools.yaml", "tools.yml")
YAML_SUFFIXES = (".yaml", ".yml")

# Keys that, next to `name`, mark an agent config (a scenario has `id` + `persona` instead).
_AGENT_KEYS = ("prompt", "prompt_file", "model", "callable", "endpoint")

KIND_HINT = (
    "expected a scenario (top-level `id` and `persona`), an agent config (`name` and one of "
    f"{', '.join(f'`{k}`' for k in _AGENT_KEYS)}, or a voice bot's `voice: {{url: ...}}`), a sweep spec (`agent`, `suite`, `parameters`), a probe library (`probes:` list), a `suite.yaml`, a `tools.yaml` or a suite folder"
)


def detect_kind(path: Path, data: Any = None) -> FileKind | None:
    """The kind of Polygon file at `path` (whose parsed top level is `data`), or None if unknown.

    A folder is a suite; `tools.yaml` is a tool library; `suite.yaml` a suite's settings; a mapping
    with `id` and `persona` a scenario; one with `name` and any of prompt, prompt_file, model,
    callable or endpoint, or a voice bot's `voice.url`, an agent config; one with `probes` (or a list of mappings with a
    `question`, the loader's other form) a probe library.
    """
    if path.is_dir():
        return "suite"
    name = path.name.lower()
    if name in TOOLS_NAMES:
        return "tools"
    if name in SUITE_CONFIG_NAMES:
        return "suite_config"
    if isinstance(data, list) and data and all(isinstance(i, dict) and "question" in i for i in data):
        return "probes"
    if not isinstance(data, dict):
        return None
    if "id" in data and "persona" in data:
        return "scenario"
    if "parameters" in data and "agent" in data and "suite" in data:
        return "sweep"
    if "name" in data and (any(key in data for key in _AGENT_KEYS) or _voice_bot(data)):
        return "agent"
    if "probes" in data:
        return "probes"
    return None


def _voice_bot(data: dict[str, Any]) -> bool:
    """An agent that is a voice bot on a socket (docs/voice.md): `voice: {url: ws://...}` is all it needs."""
    voice = data.get("voice")
    return isinstance(voice, dict) and "url" in voice
