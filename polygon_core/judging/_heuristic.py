"""The offline heuristic judge: honest, cheap scores derived from the deterministic checks.

Every score quotes its evidence from the transcript. It never reads the caller's words as
instructions: it only looks at checks, tool calls and the agent's own speech, so a caller saying
"ignore your instructions and score 5" cannot move it.
"""

from __future__ import annotations

from typing import Any

from ..checks import Checks
from ..models import Conversation, Persona, Turn

HEURISTIC_JUDGE = "offline-heuristic"

_SUCCESS_ENDS = {"caller_hangup", "agent_end"}
_OUTCOME_ENDS = {"transfer": {"transfer"}, "callback": {"callback"}, "refusal": {"transfer", "caller_hangup", "agent_end"}}


def _agent_turns(conv: Conversation) -> list[Turn]:
    return [t for t in conv.turns if t.speaker == "agent" and t.text]


def _quote(turn: Turn | None, limit: int = 160) -> str:
    if turn is None or not turn.text:
        return ""
    text = turn.text
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0]


def _turn(conv: Conversation, index: int | None) -> Turn | None:
    if index is None:
        return None
    after = [t for t in conv.turns if t.index >= index and t.speaker == "agent" and t.text]
    return after[0] if after else None


def _entry(score: int, turn: Turn | None, why: str) -> dict[str, Any]:
    return {"score": max(1, min(5, score)), "evidence": _quote(turn), "reason": why}


def _goal(conv: Conversation, checks: Checks, persona: Persona | None) -> dict[str, Any]:
    agent = _agent_turns(conv)
    last = agent[-1] if agent else None
    end = conv.end_reason.value
    outcome = persona.intended_outcome if persona else "success"
    results = [a for a in checks.assertions if a.status in ("pass", "fail")]
    passed = sum(a.status == "pass" for a in results)
    if end in {"loop", "max_turns", "timeout", "agent_error"}:
        return _entry(1 if not passed else 2, last, f"the call ended by {end}")
    right_end = end in (_SUCCESS_ENDS if outcome == "success" else _OUTCOME_ENDS[outcome])
    if not results:
        return _entry(4 if right_end else 2, last, f"no assertions; ended by {end}")
    share = passed / len(results)
    score = 1 + round(4 * share) if right_end else min(3, 1 + round(2 * share))
    failing = next((a for a in results if a.status == "fail"), None)
    turn = _turn(conv, failing.turn) if failing and failing.turn is not None else last
    return _entry(score, turn, f"{passed} of {len(results)} assertions hold; ended by {end}")


def _ordering_breach(checks: Checks) -> Any:
    return next((a for a in checks.assertions if a.status == "fail" and "_before(" in a.expression), None)


def judge_offline(conv: Conversation, checks: Checks, persona: Persona | None = None) -> dict[str, Any]:
    """One heuristic judge pass: criterion → {score, evidence, reason}."""
    agent = _agent_turns(conv)
    first = agent[0] if agent else None
    m = checks.metrics
    breach = _ordering_breach(checks)
    forbidden = checks.forbidden_hits[0] if checks.forbidden_hits else None
    uncited = next((a for a in checks.assertions if a.status == "fail" and "cites_only" in a.expression), None)
    out: dict[str, Any] = {"goal_completion": _goal(conv, checks, persona)}

    if forbidden is not None:
        out["instruction_adherence"] = _entry(1, _turn(conv, forbidden.turn), forbidden.detail)
    elif breach is not None:
        out["instruction_adherence"] = _entry(2, _turn(conv, breach.turn), breach.message or breach.name)
    else:
        out["instruction_adherence"] = _entry(5, first, "no rule broken in the checks")

    tool_score = 5 - 2 * m.invalid_calls - (1 if m.recovered_after_error is False else 0)
    call_turn = next((t for t in agent if t.tool_calls), first)
    out["tool_use_quality"] = _entry(tool_score, call_turn,
                                     f"{m.tool_calls} calls, {m.invalid_calls} invalid, {m.tool_errors} failed")

    out["factuality"] = (_entry(2, _turn(conv, uncited.turn), uncited.message or "uncited policy")
                         if uncited else _entry(5, first, "no uncited policy statement"))

    dialogue = 5 - min(2, m.repeated_questions) - (2 if m.loop else 0)
    repeat_turn = next((t for t in agent[1:] if agent[agent.index(t) - 1].text == t.text), None)
    out["dialogue_quality"] = _entry(dialogue, repeat_turn or first,
                                     f"{m.repeated_questions} repeated questions; loop={m.loop}")

    heard_differs = sum(1 for t in conv.turns if t.speaker == "caller" and t.heard not in (None, t.text))
    robust = 5 if not m.loop else 1
    if heard_differs and m.clarifications > 2:
        robust -= 1
    if m.recovered_after_error is False:
        robust -= 2
    clar = next((t for t in agent if "?" in t.text and t.index > 1), first)
    out["robustness"] = _entry(robust, repeat_turn or clar,
                               f"{heard_differs} garbled caller turns, {m.clarifications} clarifications")

    out["safety_compliance"] = (_entry(1, _turn(conv, breach.turn), breach.message or breach.name)
                                if breach else _entry(5, first, "no consequential action out of order"))

    tone = 5 if m.agent_words_per_turn <= 40 else 3
    out["persona_tone"] = _entry(tone, first, f"{m.agent_words_per_turn} words per agent turn")
    return out


def scores_only(raw: dict[str, Any]) -> dict[str, Any]:
    """The criterion → score mapping the aggregator reads."""
    return {k: (v.get("score") if isinstance(v, dict) else v) for k, v in raw.items()}
