"""What identifies a judge's behaviour beyond its name: the judge-prompt hash.

A calibration holds only for the judge that was calibrated: the same model sent another prompt is
another judge. Calibration records are keyed by (judge model, rubric version, judge-prompt hash).
"""

from __future__ import annotations

from .._hashing import content_hash
from ..providers import COMPACT_PREFIX
from ..scoring import Rubric
from ._compact import compact_judge_schema, compact_judge_system_prompt
from ._heuristic import HEURISTIC_JUDGE
from ._heuristic_version import HEURISTIC_VERSION
from ._prompt import judge_response_schema, judge_system_prompt

__all__ = ["FITTED_JUDGE_PREFIX", "judge_prompt_hash"]

FITTED_JUDGE_PREFIX = "fitted:"

# Names that mean the heuristic judge (the CLI and settings accept the short "offline").
_HEURISTIC_NAMES = frozenset({HEURISTIC_JUDGE, "offline"})


def judge_prompt_hash(judge_model: str, rubric: Rubric) -> str:
    """A stable hash of what makes this judge judge the way it does, under `rubric`.

    - `offline-heuristic` (or `offline`): the hash of `HEURISTIC_VERSION` (the heuristic has no
      prompt; its code version stands for one).
    - `fitted:<name>@<hash>`: the `<hash>` part, which already identifies the fitted model.
    - a model judge: the hash of the system prompt it is sent plus the reply's JSON Schema (for a
      `compact:` judge, the compact prompt and schema, its turn enum left open).
    """
    if judge_model in _HEURISTIC_NAMES:
        return content_hash({"heuristic": HEURISTIC_VERSION})
    if judge_model.startswith(FITTED_JUDGE_PREFIX) and "@" in judge_model:
        return judge_model.rsplit("@", 1)[1]
    if judge_model.startswith(COMPACT_PREFIX):  # its schema's turn enum is per conversation: hash the shape
        return content_hash({"system": compact_judge_system_prompt(rubric), "schema": compact_judge_schema(rubric)})
    return content_hash({"system": judge_system_prompt(rubric), "schema": judge_response_schema(rubric)})
