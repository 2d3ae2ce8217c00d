"""The judge-prompt hash: which judge exactly a calibration holds for."""

from __future__ import annotations

from polygon_core._hashing import content_hash
from polygon_core.judging import (
    HEURISTIC_VERSION,
    judge_prompt_hash,
    judge_response_schema,
    judge_system_prompt,
)
from polygon_core.scoring import get_rubric


def test_heuristic_judge_is_identified_by_its_version() -> None:
    want = content_hash({"heuristic": HEURISTIC_VERSION})
    assert judge_prompt_hash("offline-heuristic", get_rubric("v1")) == want
    assert judge_prompt_hash("offline", get_rubric("v2")) == want  # the rubric is not its prompt


def test_fitted_judge_is_identified_by_its_own_hash() -> None:
    assert judge_prompt_hash("fitted:support@9f3a1c22", get_rubric("v2")) == "9f3a1c22"


def test_model_judge_is_identified_by_prompt_and_schema() -> None:
    v2 = get_rubric("v2")
    want = content_hash({"system": judge_system_prompt(v2), "schema": judge_response_schema(v2)})
    assert judge_prompt_hash("openai:gpt-4o-mini", v2) == want
    assert judge_prompt_hash("anthropic:claude-3-5-haiku", v2) == want  # the model is keyed apart
    # The system prompt names the rubric version: another version is another prompt.
    assert judge_prompt_hash("openai:gpt-4o-mini", get_rubric("v1")) != want
    assert len(want) == 12
