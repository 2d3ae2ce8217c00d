"""The fitted judge: grouped CV, JSON artifacts that round-trip and refuse tampering, determinism, rho."""

from __future__ import annotations

import json

import pytest
from scipy.stats import spearmanr

from polygon.usecases import fit_and_store
from polygon_core.adapters.artifacts import LocalArtifactStore
from polygon_core.adapters.fitted_judges import fitted_key, list_fitted, load_fitted
from polygon_core.calibration import (
    OVERALL,
    FitReport,
    FittedJudge,
    LabelledConversation,
    bootstrap_intervals,
    cv_folds,
    fit_judge,
    judge_fitted,
    training_hash,
)
from polygon_core.calibration._fit import _rho_interval, artifact_text
from polygon_core.imports import NOT_APPLICABLE_CRITERIA
from polygon_core.judging import build_judgment
from polygon_core.scoring import CRITERIA, get_rubric
from tests.judging.dialogues import load_rated

from .conftest import FakeStores

RATED = load_rated()
EXAMPLES = [LabelledConversation(r.conversation, r.checks, None, {OVERALL: float(r.rating)},
                                 {"author": {OVERALL: r.rating}}) for r in RATED]
# Two criteria labelled on every other conversation, to fit per-criterion targets too.
LABELLED = [e if i % 2 else LabelledConversation(e.conversation, e.checks, None,
                                                 {**e.labels, "goal_completion": e.labels[OVERALL]}, e.raters)
            for i, e in enumerate(EXAMPLES)]


@pytest.fixture(scope="module")
def fitted(tmp_path_factory: pytest.TempPathFactory) -> tuple[FakeStores, FitReport]:
    """One judge fitted on all 66 dialogues (overall, and goal_completion on half of them), stored."""
    stores = FakeStores(LocalArtifactStore(tmp_path_factory.mktemp("fitted") / "artifacts"))
    return stores, fit_and_store(stores, LABELLED, name="support-v1", seed=0)


@pytest.fixture(scope="module")
def half() -> dict:
    return fit_judge(EXAMPLES[0::2], name="half", seed=0)


def test_grouped_folds_never_split_a_conversation() -> None:
    # The same conversation labelled twice (two labelling rounds) must stay on one side.
    doubled = [*EXAMPLES[:20], *EXAMPLES[:5]]
    folds = cv_folds(doubled, seed=3)
    assert len(folds) == 5
    tested = sorted(i for _, test in folds for i in test)
    assert tested == list(range(len(doubled)))  # every example is held out exactly once
    for train, test in folds:
        train_ids = {doubled[i].conversation.id for i in train}
        test_ids = {doubled[i].conversation.id for i in test}
        assert not train_ids & test_ids
    assert cv_folds(doubled, seed=3) == folds
    assert cv_folds(doubled, seed=4) != folds  # the seed shuffles the groups


def test_rho_interval_draws_like_the_calibration_bootstrap() -> None:
    pred, truth = [1.2, 2.5, 2.0, 4.1, 3.3, 4.8, 1.9, 3.0], [1, 3, 2, 4, 4, 5, 2, 2]
    rho, interval = _rho_interval(pred, truth, seed=0)
    assert rho == pytest.approx(spearmanr(pred, truth).statistic)
    assert tuple(interval) == pytest.approx(bootstrap_intervals(pred, truth, seed=0)["rho"])


def test_fitting_is_deterministic_for_a_seed(half: dict) -> None:
    again = fit_judge(EXAMPLES[0::2], name="half", seed=0)
    assert artifact_text(again) == artifact_text(half)
    other = fit_judge(EXAMPLES[0::2], name="half", seed=1)
    assert other["cv"] != half["cv"] and other["targets"] == half["targets"]  # only the folds moved


def test_a_judge_fitted_on_one_half_ranks_the_other_half(half: dict) -> None:
    """Trained on the even-numbered dialogues, scored on the odd ones (never seen)."""
    judge = FittedJudge.from_text(artifact_text(half)[0])
    test = EXAMPLES[1::2]
    truth = [e.labels[OVERALL] for e in test]
    predicted = [judge.predict(e.conversation, e.checks)[OVERALL] for e in test]
    composites = [build_judgment(e.conversation, [judge_fitted(e.conversation, e.checks, None, None, judge)],
                                 rubric_version="v1", judge_model=judge.model_name,
                                 not_applicable=list(NOT_APPLICABLE_CRITERIA), continuous_scores=True).composite
                  for e in test]
    rho, rho_composite = spearmanr(predicted, truth).statistic, spearmanr(composites, truth).statistic
    assert (round(rho, 4), round(rho_composite, 4)) == (0.8889, 0.8884)
    assert rho_composite >= 0.50
    cv = half["cv"][OVERALL]
    assert (round(cv["rho"], 4), [round(v, 4) for v in cv["interval"]], cv["n"], cv["folds"]) == (
        0.8585, [0.7341, 0.934], 33.0, 5.0)


def test_store_load_and_predict_byte_identically(fitted: tuple[FakeStores, FitReport]) -> None:
    stores, report = fitted
    digest = report.model_name.rsplit("@", 1)[1]
    assert report.model_name.startswith("fitted:support-v1@") and len(digest) == 12
    assert (report.n, report.training_hash) == (66, training_hash(LABELLED))
    assert set(report.cv) == {OVERALL, "goal_completion"}
    assert list_fitted(stores) == [report.model_name]
    text = stores.artifacts.get_text(fitted_key("support-v1", digest))
    body = json.loads(text)["model"]
    assert (body["training_hash"], body["features"][:2], body["target_order"]) == (
        report.training_hash, ["turns", "caller_turns"], [OVERALL, "goal_completion"])
    assert "pickle" not in text and "tfidf" not in body and len(body["targets"][OVERALL]["coef"]) == len(
        body["features"])
    judge = load_fitted(stores, report.model_name)
    fresh = FittedJudge.from_text(artifact_text(fit_judge(LABELLED, name="support-v1", seed=0))[0])
    for e in EXAMPLES[:10]:
        assert judge.predict(e.conversation, e.checks) == fresh.predict(e.conversation, e.checks)
        assert judge_fitted(e.conversation, e.checks, None, None, judge) == judge_fitted(
            e.conversation, e.checks, None, None, fresh)


def test_fitted_raw_judgment_shape(fitted: tuple[FakeStores, FitReport]) -> None:
    stores, report = fitted
    judge = load_fitted(stores, report.model_name)
    conv = RATED[4].conversation  # rest-05: the agent asks the same question and the caller gives up
    raw = judge_fitted(conv, RATED[4].checks, None, get_rubric("v3"), judge)
    assert list(raw) == list(CRITERIA)
    # continuous: goal_completion its own prediction, every other criterion overall's
    assert {k: v["score"] for k, v in raw.items()} == {**dict.fromkeys(CRITERIA, 1.04), "goal_completion": 1.09}
    label = f"fitted judge support-v1@{report.model_name[-12:]}: "
    assert raw["goal_completion"]["reason"].startswith(label + "goal_completion predicted ")
    assert raw["dialogue_quality"]["reason"].startswith(label + "overall predicted ")
    assert "; most influential: " in raw["persona_tone"]["reason"]
    quotes = {v["evidence"] for v in raw.values()}
    assert all(any(q == t.text or t.text.startswith(q) for t in conv.turns) for q in quotes)


def test_tampered_or_missing_artifacts_are_refused(stores: FakeStores) -> None:
    report = fit_and_store(stores, EXAMPLES[:30], name="tamper", seed=0)
    digest = report.model_name.rsplit("@", 1)[1]
    key = fitted_key("tamper", digest)
    doc = json.loads(stores.artifacts.get_text(key))
    doc["model"]["targets"][OVERALL]["intercept"] += 1.0
    stores.artifacts.put_text(key, json.dumps(doc))
    with pytest.raises(ValueError, match=rf"fitted judge '{report.model_name}' is refused: .*does not match"):
        load_fitted(stores, report.model_name)
    with pytest.raises(ValueError, match=r"no fitted judge 'fitted:tamper@000000000000' is stored; stored: "
                                         rf"{report.model_name}"):
        load_fitted(stores, "fitted:tamper@000000000000")
    with pytest.raises(ValueError, match="is not a fitted judge name"):
        load_fitted(stores, "fitted:tamper")
    stores.artifacts.put_text(key, "not json")
    with pytest.raises(ValueError, match="refused: not a fitted-judge artifact"):
        load_fitted(stores, report.model_name)


def test_too_few_labels_and_bad_names_are_refused(stores: FakeStores) -> None:
    with pytest.raises(ValueError, match="needs at least 8 conversations with an 'overall' label; got 3"):
        fit_judge(EXAMPLES[:3], name="tiny")
    with pytest.raises(ValueError, match=r"fitted judge name '\.\./x'"):
        fit_and_store(stores, EXAMPLES, name="../x")
