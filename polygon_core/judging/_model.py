"""Model-backed judge and probe passes over an injected ChatModel (pure: the model is a parameter)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..checks import Checks
from ..models import Conversation, Persona, ProbeAnswer
from ..probes import Probe
from ..providers import ChatModel
from ..scoring import Rubric
from ._probe_prompt import probe_request, read_probe_reply, to_probe_answers
from ._prompt import judge_request, read_judge_reply


async def judge_with_model(
    model: ChatModel,
    conversation: Conversation,
    *,
    rubric: Rubric,
    persona: Persona | None,
    instructions: str | None,
    checks: Checks | None,
    repeats: int = 1,
    style: str = "full",
) -> list[dict[str, Any]]:
    """k judge calls on one conversation; each reply read by `read_judge_reply`.

    Repeat r > 0 shifts the request's seed by r: at temperature 0 the repeats would otherwise be
    one cached reply k times, and the median of identical copies measures nothing.
    """
    if repeats < 1:
        raise ValueError(f"repeats must be at least 1, got {repeats}")
    base = judge_request(conversation, rubric=rubric, persona=persona, instructions=instructions,
                         checks=checks, style=style)
    out: list[dict[str, Any]] = []
    for r in range(repeats):
        request = base if r == 0 else base.model_copy(update={"seed": ((base.seed or 0) + r) % 2**31})
        out.append(read_judge_reply(await model.chat(request), rubric))
    return out


async def probe_with_model(
    model: ChatModel, conversation: Conversation, probes: Sequence[Probe], *, checks: Checks | None,
    style: str = "full",
) -> list[ProbeAnswer]:
    """One probe call answering every probe on one conversation (its own prompt and pass)."""
    if not probes:
        return []
    reply = await model.chat(probe_request(conversation, probes, checks=checks, style=style))
    return to_probe_answers(conversation.id, probes, read_probe_reply(reply, probes, conversation),
                            answered_by=model.name)
