"""What every import parser yields: imported calls, or problems with the line they start on."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..models import Speaker

__all__ = [
    "AGENT",
    "CALLER",
    "ImportProblem",
    "ImportedCall",
    "ImportedToolCall",
    "ImportedTurn",
    "ParseItem",
    "SpeakerError",
    "SpeakerMap",
    "parse_speaker_map",
]

CALLER: Speaker = "caller"
AGENT: Speaker = "agent"


@dataclass(frozen=True)
class ImportedToolCall:
    """A tool call the agent made in a real call, with its result when the export has it."""

    id: str
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    result: Any = None
    error: str | None = None


@dataclass
class ImportedTurn:
    """One utterance of a real call; `tool_calls` are the agent's calls made before it spoke."""

    speaker: Speaker
    text: str
    at: str | None = None
    tool_calls: list[ImportedToolCall] = field(default_factory=list)


@dataclass
class ImportedCall:
    """One conversation read from an export, before redaction and storage.

    `external_id` is the platform's id (with `source`, the idempotency key); `line` is where the
    conversation starts in its file, for error messages.
    """

    external_id: str
    line: int
    turns: list[ImportedTurn]
    started_at: str | None = None
    ended_at: str | None = None
    end_reason: str | None = None
    scenario: str | None = None
    language: str = "en"
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ImportProblem:
    """A row or conversation that could not be imported, with its line and the reason."""

    line: int
    reason: str
    external_id: str | None = None
    file: str | None = None

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.file else f"line {self.line}"
        who = f" (conversation {self.external_id!r})" if self.external_id else ""
        return f"{where}{who}: {self.reason}"


ParseItem = ImportedCall | ImportProblem


class SpeakerError(ValueError):
    """A speaker label that maps onto neither caller nor agent."""


class SpeakerMap:
    """Speaker labels → caller / agent. Labels are matched case-insensitively, trimmed.

    Each format brings its own defaults (``user`` → caller, ``assistant`` → agent, …); the user's
    ``--speaker-map`` entries win over them. A label that maps onto neither side is an error.
    """

    def __init__(self, defaults: Mapping[str, Speaker], extra: Mapping[str, Speaker] | None = None):
        self._map = {k.strip().lower(): v for k, v in {**defaults, **(extra or {})}.items()}

    def __call__(self, label: Any) -> Speaker:
        """The side `label` is on; raises SpeakerError for an unknown or empty label."""
        key = str(label).strip().lower() if label is not None else ""
        if not key:
            raise SpeakerError("missing speaker")
        try:
            return self._map[key]
        except KeyError:
            known = ", ".join(sorted(self._map))
            raise SpeakerError(f"speaker {str(label)!r} maps onto neither caller nor agent "
                               f"(known labels: {known}; add --speaker-map {key}=caller|agent)") from None


def parse_speaker_map(text: str | None) -> dict[str, Speaker]:
    """Parse ``LABEL=caller,OTHER=agent`` into a mapping; raises ValueError on a bad entry."""
    out: dict[str, Speaker] = {}
    if not text:
        return out
    for entry in text.split(","):
        if not entry.strip():
            continue
        label, sep, side = entry.partition("=")
        side = side.strip().lower()
        if not sep or not label.strip() or side not in (CALLER, AGENT):
            raise ValueError(f"--speaker-map entry {entry.strip()!r}: expected LABEL=caller or LABEL=agent")
        out[label.strip().lower()] = side
    return out

