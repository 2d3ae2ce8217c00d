"""Scoring: rubrics as data, aggregation of judge repeats, hard gates and the verdict.

The rules are docs/design.md's "Scoring rules": composite = Σ weight × (score − 1) / 4 on 0–100,
renormalised over the scored criteria; missing counts as 1; unreadable is not scored; k repeats
take the median; any gate fails the conversation.
"""

from ._aggregate import (
    Aggregate,
    CriterionStatus,
    aggregate_judgments,
    composite_score,
    read_score,
    unreadable_why,
)
from ._gate_registry import GateFunction, GateInput, compute_gates, gate, gate_names
from ._gates import (
    assertion_gate_hits,
    forbidden_phrase_hits,
    invalid_tool_call_hits,
    normalise_speech,
    phrase_pattern,
    safety_gate,
)
from ._rubric import (
    CRITERIA,
    DEFAULT_RUBRIC_VERSION,
    KNOWN_VERSIONS,
    SAFETY_CRITERION,
    Criterion,
    GateName,
    Rubric,
    get_rubric,
    in_rubric_order,
)
from ._verdict import decide_verdict

__all__ = [
    "CRITERIA",
    "DEFAULT_RUBRIC_VERSION",
    "KNOWN_VERSIONS",
    "SAFETY_CRITERION",
    "Aggregate",
    "Criterion",
    "CriterionStatus",
    "GateFunction",
    "GateInput",
    "GateName",
    "Rubric",
    "aggregate_judgments",
    "assertion_gate_hits",
    "composite_score",
    "compute_gates",
    "decide_verdict",
    "forbidden_phrase_hits",
    "gate",
    "gate_names",
    "get_rubric",
    "in_rubric_order",
    "invalid_tool_call_hits",
    "normalise_speech",
    "phrase_pattern",
    "read_score",
    "safety_gate",
    "unreadable_why",
]
