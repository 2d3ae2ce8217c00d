"""Reading a prompt before running it: five axes (higher is worse), four tiers, exact highlights.

Tiers, cheapest first: rules (patterns per language), surprisal (wordfreq), embeddings (TF-IDF) and
judge (a model, through structured output). The first three run offline and are the default; an
axis score is set by the highest tier that is confident on it (a score of at least 0.5 with the
passages that made it), else it is the weighted mean of the tiers that judged it; it names them.
"""

from ._analyze import JUDGE_FAILED, analyze_prompt, analyze_prompt_with
from ._diff import AxisChange, compare_analyses
from ._judge import judge_findings, judge_request, judge_schema, run_judge
from ._models import (
    AXES,
    OFFLINE_TIERS,
    TIERS,
    Axis,
    AxisResult,
    Highlight,
    PromptAnalysis,
    Tier,
    TierFindings,
)
from ._text import detect_language

__all__ = [
    "AXES",
    "JUDGE_FAILED",
    "OFFLINE_TIERS",
    "TIERS",
    "Axis",
    "AxisChange",
    "AxisResult",
    "Highlight",
    "PromptAnalysis",
    "Tier",
    "TierFindings",
    "analyze_prompt",
    "analyze_prompt_with",
    "compare_analyses",
    "detect_language",
    "judge_findings",
    "judge_request",
    "judge_schema",
    "run_judge",
]
