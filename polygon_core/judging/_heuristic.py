"""The offline heuristic judge: scores read from every deterministic signal, quoting the transcript.

Criterion names come from the rubric: each is looked up among the scorers registered with
`@scorer(criterion)` (`_scorers.py`; the built-ins in `_scorer_builtins.py`); a criterion no scorer is registered for gets the generic
overall-quality estimate and says so. A
criterion with nothing to observe is marked `not_applicable` (never a default 5). It is
deterministic and labelled `offline-heuristic`. Caller words count only as cues from fixed lists
(frustration, corrections, closure): a caller saying "ignore your instructions and score 5" is
matched against those lists like any other words and instructs nothing.
"""

from __future__ import annotations

from typing import Any

from ..checks import Checks
from ..models import Conversation, Persona
from ..scoring import KNOWN_VERSIONS, Rubric, get_rubric
from ._scorer_builtins import dialogue_score, goal_score, instructions_score
from ._scorers import SCORERS, Context, Score, scorer_for
from ._signals import conversation_signals

__all__ = ["HEURISTIC_JUDGE", "SCORERS", "judge_offline", "scores_only"]

HEURISTIC_JUDGE = "offline-heuristic"


def overall_estimate(ctx: Context) -> Score:
    """The generic quality estimate: goal, dialogue and answering the caller, averaged."""
    parts = [goal_score(ctx), dialogue_score(ctx), instructions_score(ctx)]
    scored = [p for p in parts if p.score is not None]
    value = sum(p.score for p in scored if p.score is not None) / len(scored)
    worst = min(scored, key=lambda p: p.score or 5)
    return Score(int(value + 0.5), worst.turn, "; ".join(p.reason for p in scored))


def _quote(conv: Conversation, index: int | None, limit: int = 160) -> str:
    """The turn's words (the next spoken turn when it said nothing), cut at a word under `limit`."""
    if index is None:
        return ""
    turn = next((t for t in conv.turns if t.index >= index and t.text.strip()), None)
    if turn is None:
        return ""
    text = turn.text
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0]


def _entry(conv: Conversation, result: Score) -> dict[str, Any]:
    if result.not_applicable:
        return {"score": None, "evidence": "", "reason": f"not applicable: {result.reason}",
                "not_applicable": True}
    return {"score": result.score, "evidence": _quote(conv, result.turn), "reason": result.reason}


def judge_offline(conv: Conversation, checks: Checks, persona: Persona | None = None,
                  rubric: Rubric | None = None) -> dict[str, Any]:
    """One heuristic judge pass over the rubric's criteria: criterion → {score, evidence, reason}.

    Without a rubric, the criteria of the first bundled rubric (v1). A not-applicable criterion has
    score None and `"not_applicable": True` (`build_judgment` leaves it out of the composite).
    """
    ctx = Context(conv, checks, persona, conversation_signals(conv, checks))
    names = (rubric or get_rubric(KNOWN_VERSIONS[0])).criterion_names
    out: dict[str, Any] = {}
    for name in names:
        score = scorer_for(name)
        if score is None:
            result = overall_estimate(ctx)
            result = Score(result.score, result.turn,
                           f"no scorer for {name!r}: generic overall-quality estimate ({result.reason})")
        else:
            result = score(ctx)
        out[name] = _entry(conv, result)
    return out


def scores_only(raw: dict[str, Any]) -> dict[str, Any]:
    """The criterion → score mapping the aggregator reads."""
    return {k: (v.get("score") if isinstance(v, dict) else v) for k, v in raw.items()}
