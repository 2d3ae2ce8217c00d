"""Deterministic checks: what can be said about a conversation before any judge reads it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pydantic import Field

from ..assertions import evaluate_assertions
from ..loops import is_loop
from ..models import AssertionResult, Conversation, DomainModel, GateHit, Scenario, ToolDef
from ..scoring import forbidden_phrase_hits, invalid_tool_call_hits

_CLARIFY = ("say that again", "didn't catch", "didn't quite catch", "could you repeat", "pardon",
            "line is a bit unclear", "tell me again")


class Metrics(DomainModel):
    """Counts and flags about one conversation."""

    turns: int
    agent_turns: int
    agent_words_per_turn: float
    tool_calls: int
    tool_errors: int
    invalid_calls: int
    recovered_after_error: bool | None = Field(
        None, description="None when no tool failed; else whether a later call of it succeeded"
    )
    turns_to_goal: int | None = Field(None, description="turn of the first domain event, if any")
    repeated_questions: int = Field(0, description="agent questions asked twice word for word")
    clarifications: int = 0
    end_reason: str
    loop: bool = False


class Checks(DomainModel):
    """Assertion results, gate candidates, loop flag and metrics for one conversation."""

    conversation_id: str
    assertions: list[AssertionResult] = Field(default_factory=list)
    forbidden_hits: list[GateHit] = Field(default_factory=list)
    invalid_tool_hits: list[GateHit] = Field(default_factory=list)
    metrics: Metrics

    @property
    def assertions_passed(self) -> bool | None:
        """All assertions pass (None when the scenario has none or one errored)."""
        statuses = [a.status for a in self.assertions if a.status != "not_applicable"]
        if not statuses or "error" in statuses:
            return None
        return all(s == "pass" for s in statuses)


def _questions(text: str) -> list[str]:
    parts = [p.strip().lower() for p in text.replace("!", ".").split(".")]
    return [p for p in parts if p.endswith("?") or "?" in p]


def compute_metrics(conversation: Conversation) -> Metrics:
    """Metrics of one conversation (no judge, no ground truth needed)."""
    agent = [t for t in conversation.turns if t.speaker == "agent"]
    calls = conversation.tool_calls
    failed = [c for c in calls if c.error]
    recovered: bool | None = None
    if failed:
        last_fail = max(i for i, c in enumerate(calls) if c.error)
        name = calls[last_fail].name
        recovered = any(c.name == name and c.valid and not c.error for c in calls[last_fail + 1 :])
    seen: set[str] = set()
    repeated = 0
    for turn in agent:
        for q in _questions(turn.text):
            repeated += q in seen
            seen.add(q)
    words = sum(len(t.text.split()) for t in agent)
    return Metrics(
        turns=len(conversation.turns),
        agent_turns=len(agent),
        agent_words_per_turn=round(words / len(agent), 2) if agent else 0.0,
        tool_calls=len(calls),
        tool_errors=len(failed),
        invalid_calls=sum(1 for c in calls if not c.valid),
        recovered_after_error=recovered,
        turns_to_goal=min((e.turn for e in conversation.events), default=None),
        repeated_questions=repeated,
        clarifications=sum(1 for t in agent if any(c in t.text.lower() for c in _CLARIFY)),
        end_reason=conversation.end_reason.value,
        loop=conversation.end_reason.value == "loop"
        or is_loop([t.text for t in agent]),
    )


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
    return Checks(
        conversation_id=conversation.id,
        assertions=assertions,
        forbidden_hits=forbidden_phrase_hits(conversation.turns, phrases),
        invalid_tool_hits=invalid_tool_call_hits(conversation.turns),
        metrics=compute_metrics(conversation),
    )
