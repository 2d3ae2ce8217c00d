"""Joining judgments with people's ratings: the scale, what is left out, and the summary line."""

from __future__ import annotations

import pytest

from polygon_core.calibration import (
    OVERALL,
    SAMPLE_DATASET,
    LabelsFingerprint,
    agreement,
    bootstrap_intervals,
    calibrate,
    calibration_line,
    calibration_status,
    judge_value,
)
from polygon_core.models import CriterionScore, Judgment


def _judgment(cid: str, composite: float | None, **scores: float | str) -> Judgment:
    criteria = [CriterionScore(criterion=k, score=None, status=v) if isinstance(v, str)
                else CriterionScore(criterion=k, score=v) for k, v in scores.items()]
    return Judgment(conversation_id=cid, rubric_version="v2", judge_model="offline-heuristic",
                    composite=composite, criteria=criteria)


JUDGMENTS = {
    "c1": _judgment("c1", 100.0, dialogue_quality=5),
    "c2": _judgment("c2", 50.0, dialogue_quality=3),
    "c3": _judgment("c3", 25.0, dialogue_quality="not_applicable"),
    "c4": _judgment("c4", 75.0, dialogue_quality="unreadable"),
    "c5": Judgment(conversation_id="c5", rubric_version="v2", judge_model="offline-heuristic",
                   status="judge_error", reason="timed out"),
    "c6": Judgment(conversation_id="c6", rubric_version="v2", judge_model="offline-heuristic",
                   status="agent_failure", verdict="fail", reason="agent_error"),
    "c8": _judgment("c8", 0.0, dialogue_quality=1.5),
}
RATINGS = {
    "c1": {"overall": {"a": 5, "b": 4}, "dialogue_quality": {"a": 5, "b": 5}},
    "c2": {"overall": {"a": 3, "b": 2}, "dialogue_quality": {"a": 3}},
    "c3": {"overall": {"a": 2, "b": 2}, "dialogue_quality": {"a": 2, "b": 3}},
    "c4": {"overall": {"a": 4}, "dialogue_quality": {"b": 4}},
    "c5": {"overall": {"a": 1, "b": 2}},
    "c6": {"overall": {"a": 1, "b": 1}},
    "c7": {"overall": {"b": 3}},  # never judged
    "c8": {"overall": {"a": 1, "b": 2}, "dialogue_quality": {"a": 2, "b": 1}},
}


def test_judge_values_on_the_people_scale() -> None:
    assert [judge_value(JUDGMENTS.get(c), OVERALL) for c in ("c1", "c2", "c3", "c5", "c6", "c7", "c8")] == [
        5.0, 3.0, 2.0, "judge_error", "agent_failure", "no_judgment", 1.0]
    assert [judge_value(JUDGMENTS[c], "dialogue_quality") for c in ("c1", "c3", "c4", "c8")] == [
        5.0, "not_applicable", "not_scored", 1.5]
    assert judge_value(JUDGMENTS["c1"], "persona_tone") == "not_scored"


def test_rows_compare_the_judge_with_the_raters_mean() -> None:
    result = calibrate(RATINGS, JUDGMENTS, keys=["dialogue_quality", OVERALL], judge_model="offline-heuristic",
                       rubric_version="v2", judge_prompt_hash="h1", run_id="r1", labels_hash="l1",
                       seed=0, resamples=50)
    assert [r.criterion for r in result.rows] == ["dialogue_quality", OVERALL]
    assert (result.conversations, result.raters, result.n) == (8, 2, 5)
    dq, overall = result.rows
    assert (dq.n, dq.left_out, dq.raters) == (3, {"not_applicable": 1, "not_scored": 1}, 2)
    assert (overall.n, overall.left_out) == (5, {"agent_failure": 1, "judge_error": 1, "no_judgment": 1})
    # overall: c1 c2 c3 c4 c8 -> judge 5, 3, 2, 4, 1; people 4.5, 2.5, 2, 4, 1.5
    judge, people = [5.0, 3.0, 2.0, 4.0, 1.0], [4.5, 2.5, 2.0, 4.0, 1.5]
    point, ci = agreement(judge, people), bootstrap_intervals(judge, people, seed=0, resamples=50)
    for name in ("rho", "tau", "kappa", "exact", "within_one", "bias"):
        estimate = getattr(overall, name)
        assert (estimate.value, estimate.low, estimate.high) == (point[name], *ci[name]), name
    assert overall.rho.value == pytest.approx(1.0)
    assert overall.bias.value == pytest.approx(0.1)
    # Rounded (halves up) the people are 5, 3, 2, 4, 2: four of five equal, all within one.
    assert (overall.exact.value, overall.within_one.value) == (0.8, 1.0)
    assert (dq.bias.value, dq.exact.value) == (0.0, 1.0)  # c1 5/5, c2 3/3, c8 1.5/1.5


def test_calibration_line() -> None:
    labels = LabelsFingerprint(dataset="support-q3", file="labels.csv", sha256="l1", ratings=12, bytes=300)
    result = calibrate(RATINGS, JUDGMENTS, keys=[OVERALL], judge_model="offline-heuristic", rubric_version="v2",
                       judge_prompt_hash="h1", run_id="r1", labels_hash="l1", seed=0, resamples=50, labels=labels)
    assert (result.conversation_ids, result.import_sources, result.dataset, result.sample) == (
        sorted(RATINGS), [], "support-q3", False)
    rho = result.rows[0].rho
    kw = {"judge_model": "offline-heuristic", "rubric_version": "v2"}
    line = calibration_line(result, "same_run", **kw, current_prompt_hash="h1")
    assert line == (f"judge offline-heuristic, rubric v2: rho {rho.value:.2f} [{rho.low:.2f}, {rho.high:.2f}] "
                    "over 5 rated calls of support-q3")
    assert calibration_line(result, "same_source", **kw, current_prompt_hash="h2") == (
        line + " (calibrated for an earlier prompt)")
    # Measured on other calls: the data is named, its rho never quoted.
    assert calibration_line(result, "other_calls", **kw, current_prompt_hash="h1") == (
        "judge offline-heuristic, rubric v2: calibrated on support-q3 (5), not on these calls")
    assert calibration_line(None, "none", judge_model="openai:gpt-4o", rubric_version="v1",
                            current_prompt_hash="h") == "judge openai:gpt-4o, rubric v1: not calibrated"
    status = calibration_status(result, "same_calls", **kw, current_prompt_hash="h2")
    assert {k: status[k] for k in ("calibrated", "match", "current", "n", "run_id", "rho", "dataset", "sample")} == {
        "calibrated": True, "match": "same_calls", "current": False, "n": 5, "run_id": "r1", "rho": rho.value,
        "dataset": "support-q3", "sample": False}
    other = calibration_status(result, "other_calls", **kw, current_prompt_hash="h1")
    assert (other["calibrated"], other["match"], other["dataset"], other["n"], "rho" in other) == (
        False, "other_calls", "support-q3", 5, False)
    assert calibration_status(None, "none", judge_model="j", rubric_version="v2", current_prompt_hash=None) == {
        "judge_model": "j", "rubric_version": "v2", "calibrated": False, "match": "none",
        "line": "judge j, rubric v2: not calibrated"}


def test_a_record_without_labels_is_about_unknown_data() -> None:
    """A record stored before labels were fingerprinted: what it covered is unknown."""
    result = calibrate(RATINGS, JUDGMENTS, keys=[OVERALL], judge_model="offline-heuristic", rubric_version="v2",
                       judge_prompt_hash="h1", run_id="r1", labels_hash="l1", seed=0, resamples=50)
    assert (result.labels, result.dataset, result.sample) == (None, "unknown data", False)
    assert calibration_line(result, "other_calls", judge_model="offline-heuristic", rubric_version="v2",
                            current_prompt_hash="h1") == (
        "judge offline-heuristic, rubric v2: calibrated on unknown data (5), not on these calls")


def test_the_sample_is_named_as_the_sample() -> None:
    labels = LabelsFingerprint(dataset=SAMPLE_DATASET, file="labels.csv", sha256="l1", ratings=12, bytes=300,
                               sample=True)
    result = calibrate(RATINGS, JUDGMENTS, keys=[OVERALL], judge_model="offline-heuristic", rubric_version="v2",
                       judge_prompt_hash="h1", run_id="r1", labels_hash="l1", seed=0, resamples=50, labels=labels)
    assert calibration_line(result, "same_run", judge_model="offline-heuristic", rubric_version="v2",
                            current_prompt_hash="h1").endswith(
        " over 5 rated calls of the packaged sample (hand-written, not real data)")
