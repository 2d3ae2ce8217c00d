"""Deterministic checks: what can be said about a conversation before any judge reads it."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import Field, SerializerFunctionWrapHandler, model_serializer

from ..assertions import evaluate_assertions
from ..loops import is_loop
from ..models import (
    AssertionResult,
    Conversation,
    DomainModel,
    GateHit,
    InteractionMetric,
    Scenario,
    ToolCall,
    ToolDef,
)
from ..scoring import forbidden_phrase_hits, invalid_tool_call_hits, normalise_speech
from ._facts import FactMismatch, fact_mismatches

# Assertions whose name starts with this are the scenario's goal (`goal_met: refund_issued(...)`).
GOAL_PREFIX = "goal"

_CLARIFY = ("say that again", "didn't catch", "didn't quite catch", "could you repeat", "pardon",
            "line is a bit unclear", "tell me again")


class Metrics(DomainModel):
    """Counts and flags about one conversation (deterministic: no judge, no model)."""

    turns: int = Field(..., description="every turn, caller and agent")
    agent_turns: int
    agent_words_per_turn: float = Field(
        ..., description="words the agent said per agent turn that said something, 2 decimals"
    )
    tool_calls: int = Field(..., description="every call, valid or not, failed or not")
    tool_errors: int = Field(..., description="calls whose tool answered with an error (injected fault)")
    invalid_calls: int = Field(..., description="calls whose arguments failed the tool's JSON Schema")
    recovered_after_error: bool | None = Field(
        None,
        description="None when no tool answered with an error; else whether every tool that did "
        "was later called again successfully (valid arguments, no error)",
    )
    turns_to_goal: int | None = Field(
        None,
        description="turns (counted from 1) until the scenario's goal assertions (named goal*) "
        "first held; None without such assertions or when they do not hold at the end",
    )
    repeated_questions: int = Field(
        0, description="agent questions asked again word for word (case and spacing ignored)"
    )
    clarifications: int = 0
    end_reason: str
    loop: bool = False
    voice: dict[str, InteractionMetric] | None = Field(
        None, description="on a call: its interaction metrics (`VoiceCall.metrics`), stored with the "
        "conversation's row so a scorecard reads them in SQL; left out of the dump on a text conversation")
    voice_stack: dict[str, str] | None = Field(
        None, description="on a call: what its metrics were made with (`VoiceCall.made_with`: the engines by "
        "role, the line's conditions, the cascade's turn-taking), stored beside `voice` so a scorecard says "
        "it; left out of the dump on a text conversation")

    @model_serializer(mode="wrap")
    def _no_voice_on_text(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # A text conversation's metrics (stored, and shown to the judge) stay as they were before calls.
        data: dict[str, Any] = handler(self)
        for key in ("voice", "voice_stack"):
            if data.get(key) is None:
                data.pop(key, None)
        return data


class Checks(DomainModel):
    """Assertion results, gate candidates, loop flag and metrics for one conversation."""

    conversation_id: str
    assertions: list[AssertionResult] = Field(default_factory=list)
    forbidden_hits: list[GateHit] = Field(default_factory=list)
    invalid_tool_hits: list[GateHit] = Field(default_factory=list)
    metrics: Metrics
    acting_tools: list[str] = Field(
        default_factory=list, description="the tool library's tools that act (`ToolBase.acts`), sorted; "
        "empty without a tool library (imported calls)")
    fact_mismatches: list[FactMismatch] = Field(
        default_factory=list, description="tool arguments that contradict the caller's ground truth, "
        "uncorrected (`_facts.py`)")

    @property
    def assertions_passed(self) -> bool | None:
        """All assertions pass (None when the scenario has none or one errored)."""
        statuses = [a.status for a in self.assertions if a.status != "not_applicable"]
        if not statuses or "error" in statuses:
            return None
        return all(s == "pass" for s in statuses)


_SENTENCE = re.compile(r"[^.!?]*[.!?]+|[^.!?]+$")


def _questions(text: str) -> list[str]:
    """The questions in `text`, normalised (casefold, spacing collapsed) for word-for-word matching."""
    out = []
    for sentence in _SENTENCE.findall(text):
        if "?" in sentence:
            words = normalise_speech(sentence).replace("?", " ").split()
            if words:
                out.append(" ".join(words))
    return out


def _recovered(calls: Sequence[ToolCall]) -> bool | None:
    bad = [i for i, c in enumerate(calls) if c.error]
    if not bad:
        return None
    # Each tool that failed must have succeeded after its last failure.
    last_bad = {calls[i].name: i for i in bad}
    return all(
        any(c.name == name and c.valid and not c.error for c in calls[i + 1 :])
        for name, i in last_bad.items()
    )


def compute_metrics(conversation: Conversation, *, turns_to_goal: int | None = None) -> Metrics:
    """Metrics of one conversation (no judge, no ground truth needed).

    `turns_to_goal` needs the scenario's assertions: `run_checks` computes it (see `turns_to_goal`).
    """
    agent = [t for t in conversation.turns if t.speaker == "agent"]
    speaking = [t for t in agent if t.text.strip()]
    calls = conversation.tool_calls
    seen: set[str] = set()
    repeated = 0
    for turn in agent:
        for q in _questions(turn.text):
            repeated += q in seen
            seen.add(q)
    words = sum(len(t.text.split()) for t in speaking)
    call = conversation.voice if conversation.channel == "voice" else None
    return Metrics(
        turns=len(conversation.turns),
        agent_turns=len(agent),
        agent_words_per_turn=round(words / len(speaking), 2) if speaking else 0.0,
        tool_calls=len(calls),
        tool_errors=sum(1 for c in calls if c.error),
        invalid_calls=sum(1 for c in calls if not c.valid),
        recovered_after_error=_recovered(calls),
        turns_to_goal=turns_to_goal,
        repeated_questions=repeated,
        clarifications=sum(1 for t in agent if any(c in t.text.lower() for c in _CLARIFY)),
        end_reason=conversation.end_reason.value,
        loop=conversation.end_reason.value == "loop"
        or is_loop([t.text for t in agent]),
        voice=dict(call.metrics) if call else None,
        voice_stack=call.made_with() if call else None,
    )


def turns_to_goal(
    conversation: Conversation,
    goal_assertions: Mapping[str, str],
    *,
    knowledge_base: Sequence[str] = (),
    tools: Mapping[str, ToolDef] | None = None,
) -> int | None:
    """How many turns it took until every goal assertion held; None if they never all hold.

    The assertions are re-evaluated on each prefix of the conversation (its turns and the events
    up to that turn). A prefix cannot know the intermediate environment state, so it sees the
    initial state until its first successful tool call and the final state after it: a goal over
    `state` is dated to the first successful call, an approximation that never dates it too late.
    """
    if not goal_assertions:
        return None

    def holds(conv: Conversation) -> bool:
        results = evaluate_assertions(goal_assertions, conv, knowledge_base=knowledge_base, tools=tools)
        return all(r.status == "pass" for r in results)

    if not holds(conversation):
        return None
    turns = conversation.turns
    for cut, turn in enumerate(turns):
        prefix_turns = turns[: cut + 1]
        acted = any(c.valid and not c.error for t in prefix_turns for c in t.tool_calls)
        prefix = conversation.model_copy(update={
            "turns": prefix_turns,
            "events": [e for e in conversation.events if e.turn <= turn.index],
            "final_state": conversation.final_state if acted else conversation.initial_state,
        })
        if holds(prefix):
            return cut + 1
    return len(turns)


def run_checks(
    conversation: Conversation,
    scenario: Scenario | None,
    *,
    forbidden_phrases: Sequence[str] = (),
    tools: Mapping[str, ToolDef] | None = None,
) -> Checks:
    """Every deterministic check on one conversation; `scenario` is None for imported calls."""
    phrases = list(dict.fromkeys([*forbidden_phrases, *(scenario.forbidden_phrases if scenario else [])]))
    assertions = (
        evaluate_assertions(scenario.assertions, conversation,
                            knowledge_base=scenario.knowledge_base, tools=tools)
        if scenario and scenario.assertions else []
    )
    if scenario and scenario.gating_assertions:
        gating = set(scenario.gating_assertions)
        assertions = [a.model_copy(update={"gate": True}) if a.name in gating else a for a in assertions]
    goals = {name: expr for name, expr in (scenario.assertions if scenario else {}).items()
             if name.casefold().startswith(GOAL_PREFIX)}
    to_goal = turns_to_goal(conversation, goals, knowledge_base=scenario.knowledge_base,
                            tools=tools) if scenario and goals else None
    acting = sorted(name for name, tool in (tools or {}).items() if tool.acts())
    return Checks(
        conversation_id=conversation.id,
        assertions=assertions,
        forbidden_hits=forbidden_phrase_hits(conversation.turns, phrases),
        invalid_tool_hits=invalid_tool_call_hits(conversation.turns),
        metrics=compute_metrics(conversation, turns_to_goal=to_goal),
        acting_tools=acting,
        fact_mismatches=fact_mismatches(conversation, scenario.persona if scenario else None, acting),
    )
