"""One scorer per rubric criterion the offline judge knows: observed signals → score, quote, reason.

Scorers register with `@scorer(criterion)`; the judge asks the rubric which criteria to score and
looks each up here (`scorer_for`), so a rubric with a new criterion needs one new scorer, not an
edit of the judge.

A scorer starts from a base and adds `Tally` terms, each an observed signal with its weight and
the turn it was seen at; the term that moved the score most supplies the evidence quote. A
scorer with nothing to observe returns `not_applicable` instead of a default score. The weights
are round numbers chosen by reading transcripts, not fitted: `polygon calibrate --fit` is the
place for learned weights (polygon_core/calibration/_fit.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from .._registry import Registry
from ..checks import Checks
from ..models import Conversation, Persona
from ._signals import Signals

__all__ = ["ABRUPT_ENDS", "OUTCOME_ENDS", "PLUGIN_GROUP", "SCORERS", "Context", "Score", "ScorerFn", "Tally", "first_agent_turn", "goal_estimate",
           "last_agent_turn", "scored_criteria", "scorer", "scorer_for"]

# Ends that stop a call before its business is done.
ABRUPT_ENDS = frozenset({"loop", "max_turns", "timeout", "agent_error"})
_SUCCESS_ENDS = {"caller_hangup", "agent_end"}
OUTCOME_ENDS = {"success": _SUCCESS_ENDS, "transfer": {"transfer"}, "callback": {"callback"},
                 "refusal": {"transfer", "caller_hangup", "agent_end"}}


@dataclass(frozen=True)
class Context:
    """What a scorer reads."""

    conv: Conversation
    checks: Checks
    persona: Persona | None
    signals: Signals


@dataclass(frozen=True)
class Score:
    """A scorer's result: a score (None when not applicable), the quoted turn and the reason."""

    score: int | None
    turn: int | None
    reason: str

    @property
    def not_applicable(self) -> bool:
        """Nothing in the conversation bears on the criterion."""
        return self.score is None


@dataclass
class Tally:
    """A base score plus observed terms; `result` clips to 1-5 and rounds half up."""

    base: float
    terms: list[tuple[float, str, int | None]] = field(default_factory=list)

    def add(self, delta: float, what: str, turn: int | None) -> None:
        """Count an observation (a zero delta is not an observation and is dropped)."""
        if delta:
            self.terms.append((delta, what, turn))

    @property
    def value(self) -> float:
        """The unclipped score."""
        return self.base + sum(d for d, _, _ in self.terms)

    def result(self, clean: str, fallback_turn: int | None, prefix: str = "") -> Score:
        """The score with the most influential term as evidence, or `clean` when none was seen."""
        score = int(max(1.0, min(5.0, self.value)) + 0.5)
        if not self.terms:
            return Score(score, fallback_turn, prefix + clean)
        _, _, turn = max(self.terms, key=lambda t: (abs(t[0]), t[2] is not None))
        seen = "; ".join(what for _, what, _ in self.terms)
        return Score(score, turn if turn is not None else fallback_turn, prefix + seen)


def _at(s: Signals, name: str) -> int | None:
    return s.turns_at.get(name)


def first_agent_turn(ctx: Context) -> int | None:
    """The index of the agent's first spoken turn (the quote when nothing else stands out)."""
    return next((t.index for t in ctx.conv.turns if t.speaker == "agent" and t.text.strip()), None)


def last_agent_turn(ctx: Context) -> int | None:
    """The index of the agent's last spoken turn."""
    spoken = [t.index for t in ctx.conv.turns if t.speaker == "agent" and t.text.strip()]
    return spoken[-1] if spoken else None


def goal_estimate(ctx: Context) -> Tally:
    """Goal completion read from the transcript alone (no assertions, no ground truth)."""
    s = ctx.signals
    t = Tally(3.0)
    # A confirmation counts when a tool call that acted backs it (or the call had no tools to say)
    # and the caller did not reject what was done.
    t.add(1.0 if s.successes and not s.unbacked_claims and not s.contested_actions else 0.0, "the agent confirmed the task done",
          _at(s, "successes"))
    t.add(1.0 if s.tool_completions and not s.contested_actions else 0.0,
          "an acting tool call did it, confirmed and accepted", _at(s, "tool_completions"))
    t.add(-1.5 * min(1, s.contested_actions), "the caller contested what the tool call did",
          _at(s, "contested_actions"))
    t.add(-1.5 * min(1, s.failed_actions), "an acting tool call failed and was not redone",
          _at(s, "failed_actions"))
    t.add(-2.0 * min(1, s.unbacked_claims), "the agent claimed or promised an action no tool call made",
          _at(s, "unbacked_claims"))
    t.add(1.0 if s.closure else 0.0, "the caller closed satisfied", _at(s, "closure"))
    t.add(-1.5 if s.give_up else 0.0, "the caller gave up", _at(s, "give_up"))
    t.add(-1.0 if s.final_inability else 0.0, "the agent's last word was that it could not help",
          last_agent_turn(ctx))
    t.add(-0.5 * min(3, s.inability), f"{s.inability} replies said it could not be done",
          _at(s, "inability"))
    t.add(-2.0 * s.unanswered_share, f"{s.unanswered} of {s.requests} requests unanswered",
          _at(s, "unanswered"))
    t.add(-1.0 * min(2, s.frustration), f"{s.frustration} caller turns of frustration",
          _at(s, "frustration"))
    t.add(-0.5 * min(2, s.corrections), f"the caller corrected the agent {s.corrections} times",
          _at(s, "corrections"))
    t.add(-0.5 * min(2, s.caller_repeats), f"the caller asked {s.caller_repeats} times again",
          _at(s, "caller_repeats"))
    t.add(-2.0 * min(1, s.false_success), "the agent claimed success over a failed tool call",
          _at(s, "false_success"))
    t.add(-1.5 * s.agent_cut_off, "the agent ended the call before the caller was done", _at(s, "agent_cut_off"))
    if ctx.persona is not None:
        right = s.end_reason in OUTCOME_ENDS.get(ctx.persona.intended_outcome, _SUCCESS_ENDS)
        t.add(0.5 if right else -1.0, f"ended by {s.end_reason}, "
              f"{'the' if right else 'not the'} intended {ctx.persona.intended_outcome}", last_agent_turn(ctx))
    else:
        t.add(-0.5 if s.end_reason == "transfer" else 0.0, "handed over to a person", last_agent_turn(ctx))
    return t


ScorerFn = Callable[[Context], Score]

PLUGIN_GROUP = "polygon.scorers"

# criterion → its scorer: every `_scorer*` module of this package is imported on the first lookup
# (the built-ins, `_scorer_builtins`, first), then the `polygon.scorers` entry points, so a scorer
# is one module and no list names it (as gates are found).
SCORERS: Registry[ScorerFn] = Registry("scorer of criterion", "polygon_core.judging", submodules="_scorer",
                                       first=("_scorer_builtins",), plugins=PLUGIN_GROUP)


def scorer(criterion: str) -> Callable[[ScorerFn], ScorerFn]:
    """Register the decorated function as the offline judge's scorer of a rubric criterion."""
    return SCORERS.register(criterion)


def scorer_for(criterion: str) -> ScorerFn | None:
    """The registered scorer of `criterion` (None: the judge falls back to its overall estimate)."""
    return SCORERS.get(criterion)


def scored_criteria() -> tuple[str, ...]:
    """The criteria a scorer is registered for, in registration order."""
    return SCORERS.names()
