"""Tier 4, judge: a model reads the prompt and returns axis scores and spans (structured output).

The model quotes the weak spots instead of giving character offsets (models count characters
badly); each quote is located in the prompt, so every span still slices the text exactly, and a
quote that is not in the prompt is dropped. Nothing here calls a model: `judge_request` builds the
request, `judge_findings` reads the response, and `run_judge` joins them for any `ChatModel`.
"""

from __future__ import annotations

import json
from typing import Any

from ..providers import ChatMessage, ChatModel, ChatRequest, ChatResponse
from ._models import AXES, Highlight, TierFindings

_AXIS_MEANING = {
    "overload": "too many simultaneous constraints for one reply",
    "attention_dilution": "key rules lost in the middle of a long prompt, or related rules scattered",
    "conflict": "rules that exclude or water down each other",
    "ambiguity": "wording with more than one reading",
    "redundancy": "the same rule stated several ways",
}

_SYSTEM = """You review the system prompt of a voice or chat agent before it is tested.
Score each axis from 0 (no problem) to 1 (severe); higher is worse:
{axes}
For every problem quote the exact words of the prompt (copy them character for character, at most one
sentence) and give a one-line reason. Answer in the JSON schema given; no other text."""


def judge_schema() -> dict[str, Any]:
    """JSON Schema of the judge's reply: per axis a score and quoted findings."""
    finding = {"type": "object", "additionalProperties": False, "required": ["quote", "reason"],
               "properties": {"quote": {"type": "string"}, "reason": {"type": "string"}}}
    axis = {"type": "object", "additionalProperties": False, "required": ["score", "findings"],
            "properties": {"score": {"type": "number", "minimum": 0, "maximum": 1},
                           "findings": {"type": "array", "items": finding}}}
    return {"type": "object", "additionalProperties": False, "required": list(AXES),
            "properties": {name: axis for name in AXES}}


def judge_request(text: str, language: str) -> ChatRequest:
    """The structured-output request that asks a model to analyse `text` (temperature 0, fixed seed)."""
    axes = "\n".join(f"- {name}: {meaning}" for name, meaning in _AXIS_MEANING.items())
    system = _SYSTEM.format(axes=axes)
    if language == "ru":
        system += "\nThe prompt is in Russian: quote it in Russian, write reasons in English."
    return ChatRequest(
        messages=[ChatMessage(role="system", content=system, cache=True),
                  ChatMessage(role="user", content=f"<prompt>\n{text}\n</prompt>")],
        response_schema=judge_schema(), schema_name="prompt_analysis",
        temperature=0.0, seed=0, role="analysis",
    )


def judge_findings(text: str, response: ChatResponse) -> TierFindings | None:
    """The judge's scores and located quotes; None when the reply does not fit the schema."""
    data = response.parsed
    if data is None and not response.unparseable:
        try:
            data = json.loads(response.text)
        except ValueError:
            return None
    if response.unparseable or not isinstance(data, dict):
        return None
    scores: dict[str, float] = {}
    highlights: list[Highlight] = []
    for axis in AXES:
        entry = data.get(axis)
        if not isinstance(entry, dict) or not isinstance(entry.get("score"), (int, float)):
            continue
        scores[axis] = min(1.0, max(0.0, float(entry["score"])))
        for finding in entry.get("findings") or []:
            quote = finding.get("quote") if isinstance(finding, dict) else None
            start = text.find(quote) if isinstance(quote, str) and quote.strip() else -1
            if start >= 0 and isinstance(quote, str):
                highlights.append(Highlight(start=start, end=start + len(quote), axis=axis, tier="judge",
                                            reason=str(finding.get("reason") or "named by the judge")))
    if not scores:
        return None
    return TierFindings(tier="judge", scores=scores, highlights=highlights)  # type: ignore[arg-type]


async def run_judge(model: ChatModel, text: str, language: str) -> TierFindings | None:
    """Ask `model` for the judge tier; None when its reply is unreadable."""
    response = await model.chat(judge_request(text, language))
    return judge_findings(text, response)
