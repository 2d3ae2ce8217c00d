"""Results: assertion outcomes, gates, judgments, probe answers, runs."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from ._base import DomainModel
from ._provenance import JUDGMENT_FORMAT, Provenance

Verdict = Literal["pass", "warn", "fail"]
AssertionStatus = Literal["pass", "fail", "error", "not_applicable"]
ProbeValue = Literal["yes", "no", "na", "unanswered", "error"]
# How a judgment came to be (docs/design.md, "Verdicts"): `judged` by a judge; `judge_error` when the
# judge failed or returned nothing readable (not scored, and the command exits 1); `agent_failure`
# when the conversation is the agent's failure without any judging (it ended `agent_error`, or the
# agent never spoke): verdict fail with the reason, no composite.
JudgmentStatus = Literal["judged", "judge_error", "agent_failure"]


class AssertionResult(DomainModel):
    """One scenario assertion evaluated on a finished conversation."""

    name: str
    expression: str
    status: AssertionStatus
    message: str | None = None
    turn: int | None = Field(None, description="the turn that broke it, when one did")
    answered_by: str = Field("deterministic", description="deterministic | offline-heuristic | model")
    gate: bool = Field(False, description="marked `gate: true`: a fail fails the call under rubric v3")


class GateHit(DomainModel):
    """A hard gate that fired, with where and why."""

    gate: str = Field(..., description="the registered gate that fired (forbidden_phrase, safety, "
                      "invalid_tool_call, assertion)")
    turn: int | None = None
    detail: str


class CriterionScore(DomainModel):
    """One criterion after aggregation over repeats."""

    criterion: str
    score: float | None = Field(None, description="None = not scored")
    status: Literal["scored", "missing", "unreadable", "not_applicable"] = "scored"
    evidence: str | None = None
    evidence_turn: int | None = Field(None, description="the turn the evidence quotes, when the judge "
                                      "named one (the compact format); the quote must be in that turn")
    unsupported_evidence: bool = False


class Judgment(DomainModel):
    """One judge pass over one conversation under one rubric version."""

    conversation_id: str
    rubric_version: str
    judge_model: str = Field(..., description="provider:model, or offline-heuristic")
    repeats: int = 1
    raw: list[dict[str, Any]] = Field(default_factory=list, description="each repeat's raw output")
    criteria: list[CriterionScore] = Field(default_factory=list)
    composite: float | None = None
    partial: bool = False
    not_scored: list[str] = Field(default_factory=list)
    gates: list[GateHit] = Field(default_factory=list)
    verdict: Verdict | None = Field(None, description="None when nothing could be scored")
    status: JudgmentStatus = "judged"
    reason: str | None = Field(None, description="why: the judge's failure, or the agent's failure")
    format_version: int = Field(JUDGMENT_FORMAT, description="the judgment format it was stored in; 0: "
                                "stored before formats were versioned")

    @property
    def not_applicable(self) -> list[str]:
        """Criteria that do not apply to this conversation (e.g. ground truth on a real call)."""
        return [c.criterion for c in self.criteria if c.status == "not_applicable"]


class ProbeAnswer(DomainModel):
    """One probe's answer on one conversation."""

    conversation_id: str
    probe_id: str
    wording_hash: str
    polarity: Literal["wanted", "guardrail"]
    answer: ProbeValue
    evidence: str | None = None
    answered_by: str = "offline-heuristic"


class Run(DomainModel):
    """One agent config × one suite × seeds, under one rubric version."""

    id: str
    suite: str
    agent_name: str
    agent_version: str
    rubric_version: str
    seeds: list[int]
    models: dict[str, str] = Field(default_factory=dict, description="role → provider:model")
    # interrupted: its flow run crashed (an interrupt, a killed process); failed: its flow run failed.
    # Either keeps what it stored and resumes with its id (`polygon run … --run-id`).
    status: Literal["running", "complete", "failed", "interrupted"] = "running"
    source: Literal["synthetic", "production"] = "synthetic"
    created_at: str | None = Field(None, description="ISO time, set at the edge (core has no clock)")
    provenance: Provenance | None = Field(None, description="what made it (Polygon and package versions, "
                                          "formats), recorded when it is created; None: a run stored before")
