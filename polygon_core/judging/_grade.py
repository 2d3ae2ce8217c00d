"""Turn a judge's raw repeats into a Judgment: aggregate, gates, verdict."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rapidfuzz import fuzz

from ..models import AssertionResult, Conversation, CriterionScore, EndReason, Judgment, ProbeAnswer
from ..probes import Probe
from ..scoring import (
    Rubric,
    aggregate_judgments,
    compute_gates,
    decide_verdict,
    get_rubric,
)
from ._prompt import UNPARSEABLE_REPLY

_EVIDENCE_MIN_SCORE = 85.0
# End reasons that are the agent's own doing.
_AGENT_ENDS = frozenset({EndReason.AGENT_END, EndReason.TRANSFER, EndReason.CALLBACK})


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


def agent_failure(conversation: Conversation) -> str | None:
    """Why the conversation is the agent's failure without any judging, or None.

    It ended `agent_error` (the agent raised, refused connections, answered garbage), the agent
    never said a word, or the agent ended the call (hung up, transferred, booked a callback) before
    the caller said anything: no conversation took place. Such a call is never judged: a judge's view of silence is not a measurement,
    and a broken agent must never pass (docs/design.md, "Verdicts").
    """
    if conversation.end_reason == EndReason.AGENT_ERROR:
        return f"agent_error: {conversation.end_detail or 'the agent failed'}"
    if not any(t.speaker == "agent" and t.text.strip() for t in conversation.turns):
        return "the agent never spoke"
    if conversation.end_reason in _AGENT_ENDS and not any(
            t.speaker == "caller" and t.text.strip() for t in conversation.turns):
        return "the agent ended the call before the caller spoke"
    return None


def agent_failure_judgment(conversation: Conversation, reason: str, *, rubric_version: str,
                           judge_model: str) -> Judgment:
    """The stored result of a broken call: verdict fail with its reason, no composite, no criteria."""
    return Judgment(conversation_id=conversation.id, rubric_version=rubric_version, judge_model=judge_model,
                    repeats=0, verdict="fail", status="agent_failure", reason=reason)


def judge_error_judgment(conversation_id: str, reason: str, *, rubric_version: str,
                         judge_model: str) -> Judgment:
    """The stored result of a judge that failed (after its retries) or timed out: not scored."""
    return Judgment(conversation_id=conversation_id, rubric_version=rubric_version, judge_model=judge_model,
                    repeats=0, status="judge_error", reason=reason)


def probe_error_answers(conversation_id: str, probes: Sequence[Probe], reason: str, *,
                        answered_by: str) -> list[ProbeAnswer]:
    """A failed probe pass, stored as `error` answers carrying the reason (never in a rate)."""
    return [ProbeAnswer(conversation_id=conversation_id, probe_id=p.id, wording_hash=p.wording_hash,
                        polarity=p.polarity, answer="error", evidence=reason, answered_by=answered_by)
            for p in probes]


def _unreadable_reason(repeats: Sequence[dict[str, Any]]) -> str:
    reasons = [str(r[UNPARSEABLE_REPLY]) for r in repeats if UNPARSEABLE_REPLY in r]
    if reasons:
        return f"unreadable reply: {reasons[0]}"
    return "no criterion in the reply could be read"


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
    assertions: Sequence[AssertionResult] = (),
) -> Judgment:
    """Aggregate `repeats` (criterion → {score, evidence} or a bare score) under a rubric.

    `not_applicable` criteria (e.g. on production calls) are recorded with that status and left
    out of the composite; so is a criterion every repeat marks `"not_applicable": True` (the
    offline judge's way of saying it observed nothing to score).

    A repeat carrying `UNPARSEABLE_REPLY` (see `read_judge_reply`) counts as unreadable for every
    criterion: it is dropped from the medians, so with no other repeat the judgment is partial
    with nothing scored (composite and verdict None), never a silent row of ones.
    """
    rubric = get_rubric(rubric_version)
    raw_scores = [_raw_scores(r, rubric) for r in repeats]
    marked = [c for c in rubric.criterion_names if repeats and c not in not_applicable
              and all(isinstance(r.get(c), dict) and r[c].get("not_applicable") is True for r in repeats)]
    agg = aggregate_judgments(raw_scores, rubric, [*not_applicable, *marked])
    gates = compute_gates(conversation.turns, rubric, agg, list(forbidden_phrases), assertions)
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
    unreadable = agg.composite is None and any(c.status == "unreadable" for c in criteria)
    return Judgment(
        conversation_id=conversation.id, rubric_version=rubric.version, judge_model=judge_model,
        repeats=len(repeats), raw=[dict(r) for r in repeats], criteria=criteria,
        composite=agg.composite, partial=agg.partial, not_scored=list(agg.not_scored), gates=gates,
        verdict=verdict,
        status="judge_error" if unreadable else "judged",
        reason=_unreadable_reason(repeats) if unreadable else None,
    )
