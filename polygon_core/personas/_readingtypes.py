"""What a prompt reader finds, before it becomes a `PromptReading`."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_TRANSLIT = dict(zip("абвгдеёжзийклмнопрстуфхцчшщъыьэюя",
                     ["a", "b", "v", "g", "d", "e", "e", "zh", "z", "i", "y", "k", "l", "m", "n", "o",
                      "p", "r", "s", "t", "u", "f", "kh", "ts", "ch", "sh", "shch", "", "y", "", "e",
                      "yu", "ya"], strict=True))


@dataclass(frozen=True)
class TaskSpec:
    """A kind of call an agent can handle, with what a caller asking for it knows.

    `goals` are in the prompt's language, in the caller's words, starting with a verb.
    """

    name: str
    cues: tuple[str, ...]
    goals: tuple[str, ...]
    facts: tuple[str, ...] = ()
    refusal_goals: tuple[str, ...] = ()


@dataclass
class Parts:
    """Everything one reader found in one prompt, in prompt order (duplicates not yet removed)."""

    tasks: list[TaskSpec] = field(default_factory=list)
    facts: list[str] = field(default_factory=list)
    refusals: list[str] = field(default_factory=list)
    handovers: list[str] = field(default_factory=list)
    policies: list[str] = field(default_factory=list)
    amounts: list[float] = field(default_factory=list)
    callback: bool = False
    transfer: bool = False


def slug(text: str) -> str:
    """An ASCII id part: Cyrillic transliterated, anything else but letters and digits as ``_``."""
    out = "".join(_TRANSLIT.get(ch, ch) for ch in text.lower())
    return re.sub(r"[^a-z0-9]+", "_", out).strip("_") or "task"
