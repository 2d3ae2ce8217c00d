"""Rubrics and the judge-repeat builder shared by the scoring tests (tests/core/test_scoring_*.py)."""

from __future__ import annotations

from typing import Any

from polygon_core.scoring import CRITERIA, get_rubric

V1 = get_rubric("v1")
V2 = get_rubric("v2")


def judge(default: Any = 5, **overrides: Any) -> dict[str, Any]:
    """One judge repeat: every criterion `default`, then overrides; `...` removes a criterion."""
    out = {name: default for name in CRITERIA}
    for name, value in overrides.items():
        if value is ...:
            del out[name]
        else:
            out[name] = value
    return out
