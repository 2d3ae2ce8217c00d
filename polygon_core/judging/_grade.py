"""Turn a judge's raw repeats into a Judgment: aggregate, gates, verdict."""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable, Sequence
from typing import Any

from rapidfuzz import fuzz

from ..models import AssertionResult, Conversation, CriterionScore, EndReason, Judgment, ProbeAnswer, Turn
from ..probes import Probe
from ..scoring import (
    Rubric,
    aggregate_judgments,
    compute_gates,
    decide_verdict,
    get_rubric,
    unreadable_why,
)
from ._prompt import UNPARSEABLE_REPLY, no_criterion_reason

_EVIDENCE_MIN_SCORE = 85.0
# A judge may describe rather than quote for a criterion or two ("no tool call was made"); one that
# quotes at least this often and never the transcript did not read it.
_INVENTED_MIN_QUOTES = 3
_ELLIPSIS = re.compile(r"\.{3,}|…|\[\s*\.*\s*\]|\n")
_SPEAKER_LABEL = re.compile(r"^(?:turn \d+ )?(?:agent|caller|user|assistant|customer|bot)(?: said| heard)? ")
# How many failed criteria a judge_error reason spells out (the rest are named).
_REASON_CRITERIA = 2
# End reasons that are the agent's own doing.
_AGENT_ENDS = frozenset({EndReason.AGENT_END, EndReason.TRANSFER, EndReason.CALLBACK})


def _plain(text: str) -> str:
    """`text` casefolded (NFKC), punctuation and symbols as spaces, whitespace collapsed: what an
    honest quote keeps of a turn when it changes case, quote marks, commas or line breaks."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    kept = "".join(ch if ch.isalnum() else " " for ch in folded)
    return " ".join(kept.split())


def _quote_pieces(quote: str) -> list[str]:
    """The parts of a quote that must each be in the transcript: split at ellipses and line
    breaks (a judge joining two excerpts), a leading speaker label ("agent:") dropped."""
    pieces = []
    for part in _ELLIPSIS.split(quote):
        plain = _SPEAKER_LABEL.sub("", _plain(part))
        if plain:
            pieces.append(plain)
    return pieces


def _turn_texts(turn: Turn) -> list[str]:
    """What a judge may quote of one turn: said, heard, and its tool calls (name, arguments, result,
    errors)."""
    texts = [turn.text, turn.heard or ""]
    for call in turn.tool_calls:
        texts.append(json.dumps({"name": call.name, "arguments": call.arguments, "result": call.result,
                                 "error": call.error, "validation_error": call.validation_error},
                                ensure_ascii=False, default=str))
    return texts


def _plain_all(texts: Sequence[str]) -> list[str]:
    """The non-empty texts made plain (`_plain`), the empty ones left out."""
    return [plain for t in texts if t and (plain := _plain(t))]


# A quote's turn reference: the entry named no turn (full format), or this turn number, or a turn
# reference that is no integer (`TURN_UNREADABLE`), in which no quote is found.
NO_TURN = -1
TURN_UNREADABLE = -2


def evidence_supported(quote: str | None, conversation: Conversation, turn: int | None = None) -> bool:
    """The quote is (fuzzily) in the transcript the judge saw: as said or as heard, or in a tool
    call or the ending; with `turn`, in that turn (said, heard, its tool calls) and nowhere else.
    Tolerant of what honest quoting does: case, punctuation, quote marks and
    whitespace are ignored, a quote may be part of a turn, and a quote joining excerpts with an
    ellipsis is supported when each excerpt is (each one fuzzily, at `_EVIDENCE_MIN_SCORE`).
    An empty quote (nothing but punctuation) is not supported: it is no quote."""
    return bool(quote) and _quote_checker(conversation)(quote or "", NO_TURN if turn is None else turn)


def _quote_checker(conversation: Conversation) -> Callable[[str, int], bool]:
    """`evidence_supported` for many quotes of one conversation: its texts made plain once, and a
    quote repeated across criteria or repeats looked up once. `supported(quote, turn)` looks in the
    whole transcript for `NO_TURN`, and only in that turn's texts for a turn number (the compact
    format's evidence by turn reference); a turn the conversation does not have holds no quote."""
    # Every text the judge was shown and may quote, made plain once: each turn's, then the ending.
    per_turn = [(t.index, _plain_all(_turn_texts(t))) for t in conversation.turns]
    by_turn = dict(per_turn)
    everywhere = [p for _, plains in per_turn for p in plains]
    everywhere += _plain_all([conversation.end_reason.value, conversation.end_detail or ""])
    seen: dict[tuple[str, int], bool] = {}

    def supported(quote: str, turn: int = NO_TURN) -> bool:
        key = (quote, turn)
        if key not in seen:
            texts = everywhere if turn == NO_TURN else by_turn.get(turn, [])
            pieces = _quote_pieces(quote)
            seen[key] = bool(pieces) and all(any(_found(piece, text) for text in texts) for piece in pieces)
        return seen[key]

    return supported


def _turn_of(entry: Any) -> int:
    """The turn an entry's evidence names: NO_TURN when it names none, TURN_UNREADABLE when its
    `turn` is not an integer turn number."""
    if not isinstance(entry, dict) or "turn" not in entry:
        return NO_TURN
    turn = entry["turn"]
    return turn if isinstance(turn, int) and not isinstance(turn, bool) and turn >= 0 else TURN_UNREADABLE


def _found(piece: str, text: str) -> bool:
    """`piece` is (fuzzily) in `text`. partial_ratio aligns the shorter string inside the longer, so
    a quote longer than the text would match any short turn it contains ("Yes, … guaranteed"
    holding a turn "Yes."): such a quote must match the whole text instead."""
    if len(piece) <= len(text):
        return fuzz.partial_ratio(piece, text) >= _EVIDENCE_MIN_SCORE
    return fuzz.ratio(piece, text) >= _EVIDENCE_MIN_SCORE


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


def _invented(repeats: Sequence[dict[str, Any]], supported: Callable[[str, int], bool]) -> str | None:
    """Why the judge did not read the transcript, or None: at least `_INVENTED_MIN_QUOTES` evidence
    quotes over the repeats, and not one of them is in it (in the turn it names, for a compact
    judge; docs/design.md "Scoring rules")."""
    quotes = [(entry["evidence"], _turn_of(entry)) for r in repeats if UNPARSEABLE_REPLY not in r
              for entry in r.values()
              if isinstance(entry, dict) and isinstance(entry.get("evidence"), str) and entry["evidence"].strip()]
    if len(quotes) < _INVENTED_MIN_QUOTES or any(supported(q, turn) for q, turn in quotes):
        return None
    first = quotes[0][0]
    shown = first if len(first) <= 80 else first[:80] + "…"
    where = "the turn it names" if any(turn != NO_TURN for _, turn in quotes) else "the transcript"
    return (f"none of the judge's {len(quotes)} evidence quotes is in {where} "
            f"(the first: {json.dumps(shown, ensure_ascii=False)})")


def _readable(repeat: dict[str, Any], rubric: Rubric) -> dict[str, Any]:
    """`repeat`, or the unparseable flag when it names no criterion of the rubric (`{}`, a reply
    not read by `read_judge_reply`): missing-as-1 applies only when at least one criterion was read,
    so an empty repeat never scores every criterion 1."""
    if UNPARSEABLE_REPLY in repeat or any(name in repeat for name in rubric.criterion_names):
        return repeat
    return {UNPARSEABLE_REPLY: no_criterion_reason(rubric.version, repeat)}


def _raw_scores(repeat: dict[str, Any], rubric: Rubric) -> dict[str, Any]:
    if UNPARSEABLE_REPLY in repeat:
        reason = f"unparseable reply: {repeat[UNPARSEABLE_REPLY]}"
        return {name: reason for name in rubric.criterion_names}  # a string no score reads as
    return {k: (v.get("score") if isinstance(v, dict) else v) for k, v in repeat.items()}


def _why(repeat: dict[str, Any], name: str) -> str:
    """Why `name` could not be read in this repeat, naming what the judge gave."""
    entry = repeat.get(name)
    return f"{name}: {unreadable_why(entry.get('score') if isinstance(entry, dict) else entry)}"


def _failure_reason(repeats: Sequence[dict[str, Any]], failed: Sequence[str]) -> str:
    """The judge_error reason: the unreadable reply, or the first failed criteria and what the
    judge gave for them (from the first repeat that is a reply at all), the rest named."""
    readable = [r for r in repeats if UNPARSEABLE_REPLY not in r]
    if not readable:
        return f"unreadable reply: {repeats[0][UNPARSEABLE_REPLY]}"
    reason = "; ".join(_why(readable[0], name) for name in failed[:_REASON_CRITERIA])
    if len(failed) > _REASON_CRITERIA:
        reason += f"; also unreadable: {', '.join(failed[_REASON_CRITERIA:])}"
    if len(repeats) > 1:
        reason += f" (in every one of {len(repeats)} repeats)"
    return reason


def build_judgment(
    conversation: Conversation,
    repeats: Sequence[dict[str, Any]],
    *,
    rubric_version: str,
    judge_model: str,
    forbidden_phrases: Sequence[str] = (),
    not_applicable: Sequence[str] = (),
    assertions: Sequence[AssertionResult] = (),
    continuous_scores: bool = False,
) -> Judgment:
    """Aggregate `repeats` (criterion → {score, evidence} or a bare score) under a rubric.

    `not_applicable` criteria (e.g. on production calls) are recorded with that status and left
    out of the composite; so is a criterion every repeat marks `"not_applicable": True` (the
    offline judge's way of saying it observed nothing to score).

    A criterion is unreadable in a repeat when its score is not an integer 1–5 or when the whole
    repeat is `UNPARSEABLE_REPLY` (see `read_judge_reply`) or names no criterion at all; such a repeat is dropped from that
    criterion's median. A criterion unreadable in every repeat means the judge failed on this
    conversation: status `judge_error`, no composite, no verdict, and a reason naming the criterion
    and what the judge gave (`safety_compliance: 0 is not an integer 1–5`), never a composite over
    the rest. So does a judge none of whose (at least `_INVENTED_MIN_QUOTES`) evidence quotes is in
    the transcript; a quote that is not there is flagged (`unsupported_evidence`), its score kept.
    `continuous_scores` (a fitted judge's regression predictions) reads any real score in 1–5
    as it is (`read_score`).
    """
    rubric = get_rubric(rubric_version)
    repeats = [_readable(r, rubric) for r in repeats]
    raw_scores = [_raw_scores(r, rubric) for r in repeats]
    marked = [c for c in rubric.criterion_names if repeats and c not in not_applicable
              and all(isinstance(r.get(c), dict) and r[c].get("not_applicable") is True for r in repeats)]
    agg = aggregate_judgments(raw_scores, rubric, [*not_applicable, *marked], continuous=continuous_scores)
    gates = compute_gates(conversation.turns, rubric, agg, list(forbidden_phrases), assertions)
    supported = _quote_checker(conversation)
    criteria: list[CriterionScore] = []
    for c in rubric.criteria:
        quotes = [(r[c.name]["evidence"], _turn_of(r[c.name])) for r in repeats
                  if isinstance(r.get(c.name), dict) and r[c.name].get("evidence")]
        quote, turn = quotes[0] if quotes else (None, NO_TURN)
        criteria.append(CriterionScore(
            criterion=c.name, score=agg.scores.get(c.name), status=agg.statuses.get(c.name, "scored"),
            evidence=quote, evidence_turn=turn if turn >= 0 else None,
            unsupported_evidence=bool(quote) and not supported(quote or "", turn),
        ))
    invented = _invented(repeats, supported)
    failed = bool(agg.failed) or invented is not None
    # A gate that fired decides the verdict whatever the judge did ("any gate → fail").
    verdict = ("fail" if gates else None) if failed else (
        decide_verdict(agg, gates) if agg.composite is not None or gates else None)
    reason = (_failure_reason(repeats, agg.failed) if agg.failed else invented) if failed else None
    return Judgment(
        conversation_id=conversation.id, rubric_version=rubric.version, judge_model=judge_model,
        repeats=len(repeats), raw=[dict(r) for r in repeats], criteria=criteria,
        composite=None if failed else agg.composite, partial=agg.partial, not_scored=list(agg.not_scored),
        gates=gates,
        verdict=verdict,
        status="judge_error" if failed else "judged",
        reason=reason,
    )
