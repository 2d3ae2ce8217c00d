"""Prefect flows (installed as `polygon.flows`): wiring only, no domain logic."""

from ._evaluate import evaluate_suite

__all__ = ["evaluate_suite"]
