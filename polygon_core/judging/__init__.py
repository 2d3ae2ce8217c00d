"""Judging: the offline heuristic judge and probe answerer, and turning raw passes into Judgments."""

from ._grade import build_judgment, evidence_supported
from ._heuristic import HEURISTIC_JUDGE, judge_offline, scores_only
from ._probes_offline import SIGNALS, answer_probes_offline

__all__ = [
    "HEURISTIC_JUDGE",
    "SIGNALS",
    "answer_probes_offline",
    "build_judgment",
    "evidence_supported",
    "judge_offline",
    "scores_only",
]
