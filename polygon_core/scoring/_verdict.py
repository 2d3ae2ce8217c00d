"""The verdict: gates first, then the composite against the rubric's thresholds."""

from __future__ import annotations

from collections.abc import Sequence

from polygon_core.models import GateHit, Verdict

from ._aggregate import Aggregate
from ._rubric import Rubric

DEFAULT_PASS_THRESHOLD = 75.0
DEFAULT_WARN_THRESHOLD = 50.0


def decide_verdict(
    aggregate: Aggregate, gates: Sequence[GateHit], rubric: Rubric | None = None
) -> Verdict:
    """"fail" when any gate fired; else "pass" at composite ≥ pass, "warn" at ≥ warn, else "fail".

    Thresholds come from `rubric` when given, else 75 / 50 (the v1 and v2 values).

    A composite of None (nothing could be scored) yields "fail", never "warn" or "pass": a
    conversation the judge could not read must not look acceptable. Callers that want the
    Judgment's `verdict=None` for that case check `aggregate.composite is None` before calling.
    """
    if gates:
        return "fail"
    if aggregate.composite is None:
        return "fail"
    pass_at = rubric.pass_threshold if rubric is not None else DEFAULT_PASS_THRESHOLD
    warn_at = rubric.warn_threshold if rubric is not None else DEFAULT_WARN_THRESHOLD
    if aggregate.composite >= pass_at:
        return "pass"
    if aggregate.composite >= warn_at:
        return "warn"
    return "fail"
