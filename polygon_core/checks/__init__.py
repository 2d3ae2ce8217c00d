"""Deterministic checks and metrics, computed before any judge."""

from ._checks import (
    GOAL_PREFIX,
    Checks,
    Metrics,
    compute_metrics,
    run_checks,
    turns_to_goal,
)

__all__ = ["GOAL_PREFIX", "Checks", "Metrics", "compute_metrics", "run_checks", "turns_to_goal"]
