"""The one rule every format uses to attach the agent's tool calls to its turns.

An export lists the agent's tool calls (and their results) as entries of their own between the
utterances. Polygon records a tool call on the agent turn it was made *before*, so the builder
keeps the calls waiting until the agent next speaks:

* ``call(...)`` adds a waiting call;
* ``result(...)`` sets the result of the waiting call with that id (with no id: the first waiting
  call of that name that has no result yet); it returns False when no waiting call matches, and
  the format decides whether that is an error (OpenAI's) or ignored (Vapi's, Retell's);
* ``say(speaker, text, at)`` adds an utterance: an agent utterance takes every waiting call; an
  agent utterance with no text while calls wait is a tool-calling step and adds no turn (the calls
  go with the agent's next words); a caller utterance leaves the calls waiting;
* ``turns()`` ends the conversation: calls still waiting become one last agent turn with no text.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..models import Speaker
from ._types import AGENT, ImportedToolCall, ImportedTurn

__all__ = ["TurnBuilder"]


class TurnBuilder:
    """Builds one conversation's turns from utterances and tool-call entries, in export order."""

    def __init__(self) -> None:
        self._turns: list[ImportedTurn] = []
        self._waiting: list[ImportedToolCall] = []

    @property
    def waiting(self) -> bool:
        """Whether tool calls are waiting for the agent's next words."""
        return bool(self._waiting)

    def call(self, call_id: str, name: str, arguments: dict[str, Any] | None = None, *,
             result: Any = None, error: str | None = None) -> None:
        """The agent called `name`; the call waits for the agent's next utterance."""
        self._waiting.append(ImportedToolCall(call_id, name, dict(arguments or {}), result, error))

    def result(self, call_id: str | None, result: Any, *, name: str | None = None,
               error: str | None = None) -> bool:
        """Attach a result to its waiting call (see the module docstring); False when none matches."""
        for i, waiting in enumerate(self._waiting):
            by_id = bool(call_id) and waiting.id == call_id
            by_name = not call_id and name is not None and waiting.name == name and waiting.result is None
            if by_id or by_name:
                self._waiting[i] = replace(waiting, result=result, error=error or waiting.error)
                return True
        return False

    def say(self, speaker: Speaker, text: str, at: str | None = None) -> None:
        """An utterance; an agent's takes the waiting calls (an empty one only defers them)."""
        if speaker == AGENT and not text and self._waiting:
            return
        calls: list[ImportedToolCall] = []
        if speaker == AGENT:
            calls, self._waiting = self._waiting, []
        self._turns.append(ImportedTurn(speaker, text, at, calls))

    def turns(self) -> list[ImportedTurn]:
        """The turns, with calls made after the agent's last words as a final, silent agent turn."""
        if self._waiting:
            self._turns.append(ImportedTurn(AGENT, "", None, self._waiting))
            self._waiting = []
        return self._turns
