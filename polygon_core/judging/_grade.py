"""Turn a judge's raw repeats into a Judgment: aggregate, gates, verdict."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rapidfuzz import fuzz

from ..models import Conversation, CriterionScore, Judgment
from ..scoring import (
    Rubric,
    aggregate_judgments,
    compute_gates,
    decide_verdict,
    get_rubric,
)
from ._prompt import UNPARSEABLE_REPLY

_EVIDENCE_MIN_SCORE = 85.0


def evidence_supported(quote: str | None, conversation: Conversation) -> bool:
    """The quote is (fuzzily) in the transcript, as said or as heard."""
    if not quote:
        return False
    quote = quote.strip().lower()
    for turn in conversation.turns:
        for text in (turn.text, turn.heard or ""):
            if text and fuzz.partial_ratio(quote, text.lower()) >= _EVIDENCE_MIN_SCORE:
                return True
    return False


def _raw_scores(repeat: dict[str, Any], rubric: Rubric) -> dict[str, Any]:
    if UNPARSEABLE_REPLY in repeat:
        reason = f"unparseable reply: {repeat[UNPARSEABLE_REPLY]}"
        return {name: reason for name in rubric.criterion_names}  # a string no score reads as
    return {k: (v.get("score") if isinstance(v, dict) else v) for k, v in repeat.items()}


def build_judgment(
    conversation: Conversation,
    repeats: Sequence[dict[str, Any]],
    *,
    rubric_version: str,
    judge_model: str,
    forbidden_phrases: Sequence[str] = (),
    not_applicable: Sequence[str] = (),
) -> Judgment:
    """Aggregate `repeats` (criterion → {score, evidence} or a bare score) under a rubric.

    `not_applicable` criteria (e.g. on production calls) are recorded with that status and left
    out of the composite.

    A repeat carrying `UNPARSEABLE_REPLY` (see `read_judge_reply`) counts as unreadable for every
    criterion: it is dropped from the medians, so with no other repeat the judgment is partial
    with nothing scored (composite and verdict None), never a silent row of ones.
    """
    rubric = get_rubric(rubric_version)
    raw_scores = [_raw_scores(r, rubric) for r in repeats]
    agg = aggregate_judgments(raw_scores, rubric, not_applicable)
    gates = compute_gates(conversation.turns, rubric, agg, list(forbidden_phrases))
    criteria: list[CriterionScore] = []
    for c in rubric.criteria:
        quotes = [r[c.name].get("evidence") for r in repeats
                  if isinstance(r.get(c.name), dict) and r[c.name].get("evidence")]
        quote = quotes[0] if quotes else None
        criteria.append(CriterionScore(
            criterion=c.name, score=agg.scores.get(c.name), status=agg.statuses.get(c.name, "scored"),
            evidence=quote,
            unsupported_evidence=bool(quote) and not evidence_supported(quote, conversation),
        ))
    verdict = decide_verdict(agg, gates) if agg.composite is not None or gates else None
    return Judgment(
        conversation_id=conversation.id, rubric_version=rubric.version, judge_model=judge_model,
        repeats=len(repeats), raw=[dict(r) for r in repeats], criteria=criteria,
        composite=agg.composite, partial=agg.partial, not_scored=list(agg.not_scored), gates=gates,
        verdict=verdict,
    )
