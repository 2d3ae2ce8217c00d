"""The model caller: a ChatModel plays the persona like a person on the phone.

The prompt gives the persona's facts (ground truth), what it does not know, its goal and manner, and
asks it to reveal a fact only when the agent asks for it, never to invent one, and to end its last
line with an explicit signal (`[END:hangup]`, `[END:accept_transfer]`, `[END:accept_callback]`).
The signal is parsed tolerantly (case, spacing, brackets) and stripped: the agent never hears it.
"""

from __future__ import annotations

import re
from typing import Any

from .._hashing import stable_seed
from ..conversation import CallerEnd, CallerUtterance, CallerView
from ..models import Persona
from ..providers import ChatMessage, ChatModel, ChatRequest

__all__ = ["ModelCaller", "caller_prompt", "parse_end_signal"]

_END = re.compile(r"[\[<(]?\s*END\s*[:=\-_ ]\s*(hang[\s_-]?up|accept[\s_-]?transfer|accept[\s_-]?callback)"
                  r"\s*[\])>]?", re.IGNORECASE)
_BARE_END = re.compile(r"[\[<(]\s*END\s*[\])>]", re.IGNORECASE)


def parse_end_signal(text: str) -> tuple[str, CallerEnd | None]:
    """(text without the signal, signal). `[END]` alone means hang up."""
    end: Any = None
    match = _END.search(text)
    if match:
        end = re.sub(r"[\s_-]", "", match.group(1).lower()).replace("accept", "accept_")
    elif _BARE_END.search(text):
        end = "hangup"
    cleaned = _BARE_END.sub("", _END.sub("", text))
    return re.sub(r"\s+", " ", cleaned).strip(), end


def caller_prompt(persona: Persona, language: str) -> str:
    """The system prompt of the simulated caller."""
    data = persona.model_dump(mode="json", exclude_none=True)
    facts = "\n".join(f"- {k}: {v}" for k, v in (data.get("ground_truth") or {}).items()) or "- (none)"
    unknown = ", ".join(data.get("unknown") or []) or "(nothing listed)"
    manner = {k: v for k, v in data.items() if k not in ("ground_truth", "unknown", "hidden", "prompt_version")}
    return (
        "You are a person calling a company's phone line. You are NOT an assistant: you are the "
        "caller. Speak the way people talk on the phone: short, natural sentences, one thing at a time.\n"
        f"Language: {language}.\n"
        f"Who you are and what you want: {manner}\n"
        f"Facts you know (reveal a fact only when the agent asks for it or it is needed for your goal):\n"
        f"{facts}\n"
        f"Things you do not know: {unknown}. If asked, say you don't know.\n"
        "Never invent facts that are not listed above (no account numbers, names, amounts or dates of "
        "your own making).\n"
        "When the call is over for you (your goal is met, or you give up), say your last words and end "
        "that line with [END:hangup]. If the agent offers a transfer and you accept, end with "
        "[END:accept_transfer]; a callback, [END:accept_callback]. Never say these markers otherwise."
    )


class ModelCaller:
    """The simulated caller, played by a model (one instance per conversation)."""

    def __init__(self, persona: Persona, model: ChatModel, *, conversation_id: str, seed: int,
                 language: str = "en", temperature: float | None = 0.7) -> None:
        self.persona, self.model = persona, model
        self.cid, self.seed, self.language, self.temperature = conversation_id, seed, language, temperature
        self._said: list[str] = []
        self._heard: list[str] = []

    async def speak(self, view: CallerView) -> CallerUtterance:
        """Say the next line; ProviderFailure propagates (the conversation ends provider_error)."""
        self._heard.append(view.agent_said or "(silence)")
        messages = [ChatMessage(role="system", content=caller_prompt(self.persona, self.language), cache=True)]
        for i, agent_line in enumerate(self._heard):
            # The caller's own earlier lines are what it said (not what noise let the agent hear).
            messages.append(ChatMessage(role="user", content=agent_line))
            if i < len(self._said):
                messages.append(ChatMessage(role="assistant", content=self._said[i]))
        reply = await self.model.chat(ChatRequest(
            messages=messages, temperature=self.temperature, role="caller",
            seed=stable_seed(self.cid, self.seed, view.turn) % (2**31)))
        text, end = parse_end_signal(reply.text)
        self._said.append(text)
        return CallerUtterance(text=text, end=end, usage=reply.usage)

    async def aclose(self) -> None:
        """Close the model's client."""
        close = getattr(self.model, "aclose", None)
        if close:
            await close()
