"""An honest fitted judge (issue 27, item 4), on the committed slice of real rated dialogues.

A fit reports its cross-validated agreement beside the offline judge's on the same labels; one
whose out-of-fold predictions collapse or that does not beat the offline judge is refused (nothing
stored) unless forced, and then carries its warning; predictions are continuous per criterion.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from polygon.usecases import fit_and_store
from polygon_core.adapters.fitted_judges import fitted_warning, list_fitted
from polygon_core.calibration import (
    OVERALL,
    FitRefusedError,
    LabelledConversation,
    fit_judge,
    fit_problem,
    judge_fitted,
)
from polygon_core.calibration._features import ending_features
from polygon_core.imports import NOT_APPLICABLE_CRITERIA
from polygon_core.judging import build_judgment
from polygon_core.scoring import read_score
from tests.calibration.uss_slice import load_slice

from .conftest import FakeStores

SLICE = load_slice()


def _relabel(e: LabelledConversation, labels: dict[str, float]) -> LabelledConversation:
    return replace(e, labels=labels)


def _thanked(e: LabelledConversation) -> dict[str, float]:
    """Labels that follow the caller's thanks at the end (what the fitted judge reads, the offline judge not)."""
    end = ending_features(e.conversation)
    overall = 1.0 + 2.0 * end["last_caller_courtesy"] + 2.0 * end["prior_caller_courtesy"]
    return {OVERALL: overall, "goal_completion": 6.0 - overall}


def test_the_slice_is_the_documented_one() -> None:
    assert len(SLICE) == 120
    assert (SLICE[0].conversation.id, SLICE[1].conversation.id, SLICE[-1].conversation.id) == (
        "mwoz-0001", "mwoz-0009", "mwoz-0953")
    assert SLICE[0].raters == {"r1": {OVERALL: 3}, "r2": {OVERALL: 3}, "r3": {OVERALL: 2}, "r4": {OVERALL: 3}}
    assert SLICE[0].labels == {OVERALL: 2.75}


def test_a_fit_not_above_the_offline_judge_is_refused_and_nothing_stored(stores: FakeStores) -> None:
    """Sixty real rated MultiWOZ dialogues: the fit learns nothing that generalises."""
    with pytest.raises(FitRefusedError) as refused:
        fit_and_store(stores, SLICE[:60], name="uss60", seed=0)
    assert str(refused.value) == (
        "fitted judge 'uss60' is not stored: its cross-validated rho for overall, -0.33 [-0.52, -0.08], is not "
        "above the offline judge's, -0.09 [-0.35, 0.14], on the same 60 conversations (--force stores it with a "
        "warning)")
    assert list_fitted(stores) == []


def test_a_collapsed_fit_is_refused_and_forced_it_carries_its_warning(stores: FakeStores) -> None:
    same = [_relabel(e, {OVERALL: 3.0}) for e in SLICE[:20]]
    problem = ("its out-of-fold predictions of overall take 1 distinct value(s) over 20 conversations "
               "(at least 3 needed): it gives nearly every call the same score")
    with pytest.raises(FitRefusedError, match=r"^fitted judge 'flat' is not stored: its out-of-fold predictions"):
        fit_and_store(stores, same, name="flat", seed=0)
    assert list_fitted(stores) == []
    report = fit_and_store(stores, same, name="flat", seed=0, force=True)
    assert (report.warning, report.distinct, report.cv[OVERALL]["rho"]) == (problem, 1, None)
    assert list_fitted(stores) == [report.model_name]
    assert fitted_warning(stores, report.model_name) == f"warning: {report.model_name} was stored with --force: {problem}"


@pytest.fixture(scope="module")
def thanked() -> dict:
    """A fit on labels that follow the caller's closing thanks (overall) and its opposite (goal_completion)."""
    return fit_judge([_relabel(e, _thanked(e)) for e in SLICE[:40]], name="thanked", seed=0)


def test_a_fit_above_the_offline_judge_is_stored_with_both_figures(thanked: dict, stores: FakeStores) -> None:
    assert fit_problem(thanked) is None
    cv, offline = thanked["cv"][OVERALL], thanked["offline"][OVERALL]
    assert (round(cv["rho"], 4), [round(v, 4) for v in cv["interval"]], cv["n"], cv["folds"]) == (
        0.6996, [0.5111, 0.8174], 40.0, 5.0)
    assert (round(offline["rho"], 4), [round(v, 4) for v in offline["interval"]], offline["n"]) == (
        -0.0555, [-0.384, 0.2791], 40.0)
    assert round(thanked["offline"]["goal_completion"]["rho"], 4) == 0.0735  # its own criterion score
    assert thanked["distinct"] == 35
    report = fit_and_store(stores, [_relabel(e, _thanked(e)) for e in SLICE[:40]], name="thanked", seed=0)
    assert (report.cv, report.offline, report.distinct, report.warning) == (
        thanked["cv"], thanked["offline"], thanked["distinct"], None)
    assert fitted_warning(stores, report.model_name) is None


def test_predictions_are_continuous_and_per_criterion(thanked: dict) -> None:
    from polygon_core.calibration import FittedJudge, artifact_text

    judge = FittedJudge.from_text(artifact_text(thanked)[0])
    raws = [judge_fitted(e.conversation, e.checks, None, None, judge) for e in SLICE[40:50]]
    overall = [r["dialogue_quality"]["score"] for r in raws]  # no criterion label of its own: overall's
    goal = [r["goal_completion"]["score"] for r in raws]
    assert overall == [4.35, 3.25, 2.66, 3.44, 1.0, 3.41, 3.99, 3.28, 3.05, 3.0]
    assert goal == [1.65, 2.75, 3.34, 2.56, 5.0, 2.59, 2.01, 2.72, 2.95, 3.0]  # its own target, not overall's
    assert len(set(overall)) >= 3 and any(not float(s).is_integer() for s in overall)
    judgments = [build_judgment(e.conversation, [raw], rubric_version="v1", judge_model=judge.model_name,
                                not_applicable=list(NOT_APPLICABLE_CRITERIA), continuous_scores=True)
                 for e, raw in zip(SLICE[40:50], raws, strict=True)]
    assert [j.status for j in judgments] == ["judged"] * 10
    # factuality does not apply to a real call; goal_completion has its own prediction, the rest overall's
    assert [c.score for c in judgments[0].criteria] == [1.65, 4.35, 4.35, None, 4.35, 4.35, 4.35, 4.35]
    assert [round(j.composite or 0, 4) for j in judgments] == [
        65.0, 52.7778, 46.2222, 54.8889, 27.7778, 54.5556, 61.0, 53.1111, 50.5556, 50.0]


def test_only_a_fitted_judge_reads_a_fractional_score() -> None:
    assert (read_score(3.42), read_score(3.42, continuous=True), read_score(3.0, continuous=True)) == (None, 3.42, 3.0)
    assert [read_score(v, continuous=True) for v in (0.99, 5.01, float("nan"), True, "3.5")] == [None] * 5
