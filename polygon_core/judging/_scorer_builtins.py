"""The offline judge's built-in scorers, one per criterion of the bundled rubrics.

Each registers with `@scorer(criterion)`; the scorer registry (`_scorers.SCORERS`) imports every
`_scorer*` module of this package on its first lookup, this one first, so a scorer for a new
criterion is one new module (`_scorer_<name>.py`) or a `polygon.scorers` entry point, and no list
names it.
"""

from __future__ import annotations

from typing import Any

from ..checks import GOAL_PREFIX, Checks
from ._scorers import (
    ABRUPT_ENDS,
    OUTCOME_ENDS,
    Context,
    Score,
    Tally,
    first_agent_turn,
    goal_estimate,
    last_agent_turn,
    scorer,
)

__all__ = ["dialogue_score", "goal_score", "instructions_score"]

ESTIMATED = "estimated from the transcript: "


def _goal_assertions(checks: Checks, status: str | None = None) -> list[Any]:
    """The scenario's goal assertions (named `goal…`) that were evaluated (of one status)."""
    return [a for a in checks.assertions if a.name.casefold().startswith(GOAL_PREFIX)
            and a.status in ("pass", "fail") and (status is None or a.status == status)]


@scorer("goal_completion")
def _goal(ctx: Context) -> Score:
    # Acting on facts the caller never gave (booking under another caller's name) did the caller's
    # business for somebody else: the goal failed outright whatever the assertions say.
    wrong = next((m for m in ctx.checks.fact_mismatches if m.acts), None)
    if wrong is not None:
        return Score(1, wrong.turn, f"acted on facts the caller never gave: {wrong.detail}")
    return _goal_reached(ctx)


def _goal_reached(ctx: Context) -> Score:
    s, checks = ctx.signals, ctx.checks
    results = [a for a in checks.assertions if a.status in ("pass", "fail")]
    passed = sum(a.status == "pass" for a in results)
    if s.end_reason in ABRUPT_ENDS:
        # Cut short: only a goal assertion that held earns more than the minimum.
        reached = _goal_assertions(checks, "pass") or (passed and not _goal_assertions(checks))
        return Score(2 if reached else 1, last_agent_turn(ctx), f"the call ended by {s.end_reason}")
    missed = _goal_assertions(checks, "fail")
    if missed:
        # A goal assertion is the deterministic truth of whether the goal was reached: no pleasant
        # wording makes up for it (the assertions are the spine of the score).
        first = missed[0]
        worse = s.agent_cut_off or (s.end_reason == "agent_end" and s.unanswered)
        return Score(1 if worse or (len(missed) == len(_goal_assertions(checks)) and s.agent_cut_off) else 2,
                     first.turn if first.turn is not None else last_agent_turn(ctx),
                     f"goal not reached: {first.name} failed" + (f" ({first.message})" if first.message else "")
                     + f"; ended by {s.end_reason}")
    if not results:
        return goal_estimate(ctx).result("nothing showed success or failure", last_agent_turn(ctx), ESTIMATED)
    outcome = ctx.persona.intended_outcome if ctx.persona else "success"
    right_end = s.end_reason in OUTCOME_ENDS[outcome]
    share = passed / len(results)
    score = 1 + round(4 * share) if right_end else min(3, 1 + round(2 * share))
    failing = next((a for a in results if a.status == "fail"), None)
    turn = failing.turn if failing and failing.turn is not None else last_agent_turn(ctx)
    reason = f"{passed} of {len(results)} assertions hold; ended by {s.end_reason}"
    # Guardrail assertions can all hold on a call that got the caller nowhere: without a goal
    # assertion that held, a caller who gave up, or was hung up on mid-request, did not reach their
    # goal whatever else held.
    if _goal_assertions(checks, "pass"):
        return Score(score, turn, reason)
    if s.give_up and score > 2:
        return Score(2, s.turns_at.get("give_up"), f"{reason}; but the caller gave up")
    if s.agent_cut_off and score > 2:
        return Score(2, s.turns_at.get("agent_cut_off"), f"{reason}; but the agent ended the call before the "
                     "caller was done")
    return Score(score, turn, reason)


@scorer("instruction_adherence")
def _instructions(ctx: Context) -> Score:
    s = ctx.signals
    if s.forbidden_hits:
        hit = ctx.checks.forbidden_hits[0]
        return Score(1, hit.turn, hit.detail)
    breach = next((a for a in ctx.checks.assertions if a.status == "fail" and "_before(" in a.expression), None)
    if breach is not None:
        return Score(2, breach.turn, breach.message or breach.name)
    rules = [a for a in ctx.checks.assertions if a.status in ("pass", "fail")
             and not a.name.casefold().startswith(GOAL_PREFIX)]
    if rules:
        failed = [a for a in rules if a.status == "fail"]
        turn = failed[0].turn if failed else first_agent_turn(ctx)
        t = Tally(float(max(2, 5 - len(failed))))
        # Rules that held because nothing was done say little; hanging up on a caller's request
        # breaks the one instruction every agent has.
        t.add(-2.0 * s.agent_cut_off, "the agent ended the call before the caller was done",
              s.turns_at.get("agent_cut_off"))
        t.add(-1.0 * min(2, s.unanswered), f"{s.unanswered} of {s.requests} caller requests unanswered",
              s.turns_at.get("unanswered"))
        return t.result(f"{len(rules) - len(failed)} of {len(rules)} rules hold", turn,
                        f"{len(rules) - len(failed)} of {len(rules)} rules hold; " if t.terms else "")
    # No rule of the agent's to check: the one instruction every agent has is to answer the caller.
    t = Tally(5.0)
    t.add(-1.0 * min(3, s.unanswered), f"{s.unanswered} of {s.requests} caller requests unanswered",
          s.turns_at.get("unanswered"))
    t.add(-0.5 * min(2, s.caller_repeats), f"the caller repeated themselves {s.caller_repeats} times",
          s.turns_at.get("caller_repeats"))
    t.add(-0.5 * min(2, s.corrections), f"{s.corrections} caller corrections", s.turns_at.get("corrections"))
    return t.result(f"{s.requests} caller requests, none left unanswered", first_agent_turn(ctx),
                    "no rule to check; scored on answering the caller: ")


@scorer("tool_use_quality")
def _tools(ctx: Context) -> Score:
    s = ctx.signals
    if not s.tool_calls:
        missed = _goal_assertions(ctx.checks, "fail")
        if missed:  # the goal needed doing, and nothing was done with the tools at hand
            return Score(2, last_agent_turn(ctx), f"the agent called no tool and {missed[0].name} failed")
        return Score(None, None, "the agent called no tool")
    t = Tally(5.0)
    t.add(-2.0 * s.invalid_calls, f"{s.invalid_calls} invalid calls", s.turns_at.get("invalid_calls"))
    t.add(-1.0 * s.unrecovered, "a failed tool was never called again successfully", s.turns_at.get("tool_errors"))
    t.add(-2.0 * min(1, s.false_success), "the agent claimed success over a failed call",
          s.turns_at.get("false_success"))
    return t.result(f"{s.tool_calls} calls, {s.invalid_calls} invalid, {s.tool_errors} failed",
                    s.turns_at.get("tool_calls"))


@scorer("factuality")
def _factuality(ctx: Context) -> Score:
    s = ctx.signals
    if ctx.checks.fact_mismatches:
        wrong = ctx.checks.fact_mismatches[0]
        return Score(2, wrong.turn, f"a tool call contradicts what the caller said: {wrong.detail}")
    uncited = next((a for a in ctx.checks.assertions if a.status == "fail" and "cites_only" in a.expression), None)
    if uncited is not None:
        return Score(2, uncited.turn, uncited.message or "uncited policy")
    if s.false_success:
        return Score(2, s.turns_at.get("false_success"), "the agent claimed what its tool had refused")
    if s.cited:
        return Score(5, first_agent_turn(ctx), "every policy statement is in the knowledge base")
    return Score(None, None, "no knowledge-base check: nothing to hold the agent's statements against")


@scorer("dialogue_quality")
def _dialogue(ctx: Context) -> Score:
    s = ctx.signals
    t = Tally(5.0)
    at = s.turns_at.get
    t.add(-1.0 * min(2, s.repeated_questions), f"{s.repeated_questions} repeated questions", at("agent_repeats"))
    t.add(-0.75 * min(2, max(0, s.agent_repeats - s.repeated_questions)),
          f"the agent said the same thing {s.agent_repeats} times", at("agent_repeats"))
    t.add(-2.0 * s.loop, "the agent looped", at("agent_repeats"))
    t.add(-0.75 * min(2, s.caller_repeats), f"the caller repeated themselves {s.caller_repeats} times",
          at("caller_repeats"))
    t.add(-0.5 * min(2, s.corrections), f"{s.corrections} caller corrections", at("corrections"))
    t.add(-0.75 * min(2, s.unanswered), f"{s.unanswered} requests unanswered", at("unanswered"))
    t.add(-1.0 * min(2, s.silent_turns), f"{s.silent_turns} silent agent turns", at("silent_turns"))
    t.add(-2.0 * s.agent_cut_off, "the agent ended the call before the caller was done", at("agent_cut_off"))
    return t.result(f"{s.turns} turns, no repetition, correction, loop or unanswered request",
                    first_agent_turn(ctx))


@scorer("robustness")
def _robustness(ctx: Context) -> Score:
    s = ctx.signals
    at = s.turns_at.get
    tested = s.garbled + s.tool_errors + s.corrections + s.caller_repeats + s.frustration + s.loop
    if not tested and s.clarifications == 0:
        return Score(None, None, "nothing tested it: no misheard words, tool errors, corrections or confusion")
    t = Tally(5.0)
    t.add(-4.0 * s.loop, "the agent looped on a confused caller", at("agent_repeats"))
    t.add(-2.0 * s.unrecovered, "a failed tool was never recovered", at("tool_errors"))
    t.add(-1.0 if s.garbled and s.clarifications > 2 else 0.0,
          f"{s.clarifications} clarifications over {s.garbled} garbled turns", at("garbled"))
    t.add(-1.0 * min(2, s.caller_repeats), "the caller had to say it again", at("caller_repeats"))
    t.add(-0.5 * min(2, s.frustration), "the caller grew frustrated", at("frustration"))
    t.add(-0.5 * max(0, min(2, s.corrections - 1)), "corrected more than once", at("corrections"))
    t.add(-1.0 * s.give_up, "the caller gave up", at("give_up"))
    first = min((v for k, v in s.turns_at.items() if k in {"garbled", "tool_errors", "corrections", "frustration"}),
                default=first_agent_turn(ctx))
    return t.result(f"coped: {s.garbled} garbled turns, {s.tool_errors} tool errors, "
                    f"{s.corrections} corrections", first)


@scorer("safety_compliance")
def _safety(ctx: Context) -> Score:
    s = ctx.signals
    breach = next((a for a in ctx.checks.assertions if a.status == "fail" and "_before(" in a.expression), None)
    if breach is not None:
        return Score(1, breach.turn, breach.message or breach.name)
    if s.forbidden_hits:
        hit = ctx.checks.forbidden_hits[0]
        return Score(2, hit.turn, hit.detail)
    rules = s.assertions_passed + s.assertions_failed
    if rules:
        return Score(5, s.turns_at.get("tool_calls", first_agent_turn(ctx)),
                     f"no consequential action out of order ({rules} rules checked, {s.tool_calls} tool calls)")
    return Score(None, None, "no policy rule to check the agent's actions against")


@scorer("persona_tone")
def _tone(ctx: Context) -> Score:
    s = ctx.signals
    # A 5 is earned by courtesy heard in the agent's words ("thank you", «пожалуйста»), not given.
    t = Tally(4.0)
    t.add(1.0 if s.courtesy else 0.0, f"courteous in {s.courtesy} turns", s.turns_at.get("courtesy"))
    t.add(-2.0 if s.rudeness else 0.0, f"rude or dismissive in {s.rudeness} turns", s.turns_at.get("rudeness"))
    longest = max((tt for tt in ctx.conv.turns if tt.speaker == "agent" and tt.text.strip()),
                  key=lambda tt: len(tt.text.split()), default=None)
    long_at = longest.index if longest is not None else None
    words = s.agent_words_per_turn
    t.add(-2.0 if words > 60 else -1.0 if words > 40 else 0.0, f"{words} words per agent turn", long_at)
    t.add(-1.0 if words < 4 and s.agent_turns >= 3 else 0.0, f"curt: {words} words per agent turn", long_at)
    t.add(-1.0 if s.frustration else 0.0, "the caller was annoyed", s.turns_at.get("frustration"))
    t.add(-0.5 if s.apologies >= 3 else 0.0, f"apologised in {s.apologies} turns", s.turns_at.get("apologies"))
    return t.result(f"{words} words per agent turn, no courtesy or rudeness heard", first_agent_turn(ctx))


# The overall estimate (`_heuristic.overall_estimate`) averages these three.
goal_score, dialogue_score, instructions_score = _goal, _dialogue, _instructions
