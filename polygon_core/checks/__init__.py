"""Deterministic checks and metrics, computed before any judge."""

from ._checks import Checks, Metrics, compute_metrics, run_checks

__all__ = ["Checks", "Metrics", "compute_metrics", "run_checks"]
