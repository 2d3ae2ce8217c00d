"""Deterministic checks and metrics, computed before any judge."""

from ._checks import (
    GOAL_PREFIX,
    Checks,
    Metrics,
    compute_metrics,
    run_checks,
    turns_to_goal,
)
from ._facts import FactMismatch, fact_kind, fact_mismatches, same_fact_value

__all__ = ["GOAL_PREFIX", "Checks", "FactMismatch", "Metrics", "compute_metrics", "fact_kind", "fact_mismatches",
           "run_checks", "same_fact_value", "turns_to_goal"]
