"""What a prompt reader finds, before it becomes a `PromptReading`."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..callers import TRANSLIT
from ._facts import Ask


@dataclass(frozen=True)
class TaskSpec:
    """A kind of call an agent can handle, with what a caller asking for it knows.

    `goals` are in the prompt's language, in the caller's words, starting with a verb. `cues` are
    the stems of the prompt's own words for it (what an "ask for … to <task>" scope is matched
    against); `kind` is what a call about it ends in: ``success`` (a service or a question the agent
    answers), ``callback``, ``transfer`` (the trigger of a handover) or ``refusal``.
    """

    name: str
    cues: tuple[str, ...]
    goals: tuple[str, ...]
    facts: tuple[str, ...] = ()
    refusal_goals: tuple[str, ...] = ()
    kind: str = "success"


@dataclass
class Parts:
    """Everything one reader found in one prompt, in prompt order (duplicates not yet removed).

    `facts` are all the fact keys named; `asks` say which tasks each list of them is for.
    """

    tasks: list[TaskSpec] = field(default_factory=list)
    facts: list[str] = field(default_factory=list)
    refusals: list[str] = field(default_factory=list)
    handovers: list[str] = field(default_factory=list)
    policies: list[str] = field(default_factory=list)
    amounts: list[float] = field(default_factory=list)
    asks: list[Ask] = field(default_factory=list)
    transferred: list[str] = field(default_factory=list)  # refusals whose sentence hands the call over
    callback: bool = False
    transfer: bool = False


def slug(text: str) -> str:
    """An ASCII id part: Cyrillic transliterated, anything else but letters and digits as ``_``."""
    out = "".join(TRANSLIT.get(ch, ch) for ch in text.lower())
    return re.sub(r"[^a-z0-9]+", "_", out).strip("_") or "task"
