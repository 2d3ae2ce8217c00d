"""Prefect flows (installed as `polygon.flows`): wiring only, no domain logic."""

from ._evaluate import evaluate_suite
from ._reevaluate import reevaluate_on_prompt_commit
from ._sweep import run_sweep

__all__ = ["evaluate_suite", "reevaluate_on_prompt_commit", "run_sweep"]
