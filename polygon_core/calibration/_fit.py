"""A judge fitted to people's labels: signals + how the call ended → ridge regression per target, as JSON.

`fit_judge(examples, name=…, seed=…)` trains one ridge regression (alpha chosen by scikit-learn's
leave-one-out RidgeCV, deterministic) per target: `overall` and each criterion with at least
`MIN_LABELLED` labelled conversations. Inputs: the deterministic signals (signed log1p, then
standardised) and the end of the call: the caller's last turns by cue (`_features.py`). Agreement
is measured by cross-validation grouped by conversation id (GroupKFold, shuffled by the seed): the
whole pipeline, scaler and alpha included, is refitted on each training part, so a conversation never
informs its own prediction; the out-of-fold predictions give Spearman's rho per target with a
seeded bootstrap 95% interval (the draws of `bootstrap_intervals`). Beside it, on the same
conversations and labels, the offline judge's rho with its interval (`offline_agreement`): a fit is
only worth storing when it agrees with people better than the judge that costs nothing, and when
its out-of-fold predictions are not one number for every call (`fit_problem`, MIN_DISTINCT).

The result is JSON only (feature names, scaler, coefficients, intercepts, training hash, both
agreements, and the `warning` of a fit stored with --force), never a pickle: loading one cannot execute code. `FittedJudge` predicts from that JSON;
`judge_fitted` turns predictions into the raw judge shape `build_judgment` reads, on the
continuous 1-5 scale (`build_judgment(..., continuous_scores=True)`): a regression to the mean
predicts about 3 for most calls, and rounding every prediction to a whole number made every call
score 50.0 (issue 27).
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

# scipy and scikit-learn are imported where a fit needs them: judging with a fitted judge (plain
# numpy from its JSON) and every `polygon` command's start-up do not pay for them.
from .._hashing import canonical_json, content_hash
from ..checks import Checks
from ..judging import HEURISTIC_JUDGE, build_judgment, conversation_signals, judge_offline
from ..models import Conversation, Persona
from ..scoring import CRITERIA, Rubric, get_rubric
from ._features import numeric_features
from ._types import OVERALL, LabelledConversation

__all__ = ["FORMAT", "MIN_DISTINCT", "MIN_LABELLED", "FitRefusedError", "FitReport", "FittedJudge", "cv_folds",
           "fit_judge", "fit_problem", "judge_fitted", "offline_agreement", "training_hash"]

FORMAT = "polygon-fitted-judge/2"  # /1 read TF-IDF of the words, and is refused (fit again)
MIN_LABELLED = 8  # a target with fewer labelled conversations is not fitted (its criteria use overall)
ALPHAS = tuple(float(a) for a in np.logspace(-1, 4, 16))  # 0.1 to 10,000; chosen per target by leave-one-out
N_SPLITS = 5
RESAMPLES = 1000
MIN_DISTINCT = 3  # out-of-fold overall predictions with fewer distinct values (at 2 decimals) are a collapse
DECIMALS = 2  # a fitted judge's scores, and the distinct predictions counted, at this precision


#: One agreement figure: rho (None when undefined), its 95% interval (or None), n, folds.
Agreement = dict[str, Any]


class FitRefusedError(ValueError):
    """A fit `fit_problem` refuses to store (collapsed, or no better than the offline judge)."""


@dataclass(frozen=True)
class FitReport:
    """What `fit_and_store` returns: the judge's name, its training set's hash, size and CV agreement."""

    model_name: str
    training_hash: str
    n: int
    cv: dict[str, Agreement]
    offline: dict[str, Agreement] = field(default_factory=dict)
    distinct: int = 0
    warning: str | None = None


def training_hash(examples: Sequence[LabelledConversation]) -> str:
    """SHA-256 of the training examples' conversation ids and labels (order-independent)."""
    return content_hash(sorted([e.conversation.id, sorted(e.labels.items())] for e in examples), 64)


def targets_of(examples: Sequence[LabelledConversation]) -> list[str]:
    """`overall` first, then the criteria in rubric order, then any other label; each with enough labels."""
    counts: dict[str, int] = {}
    for e in examples:
        for key in e.labels:
            counts[key] = counts.get(key, 0) + 1
    order = [OVERALL, *CRITERIA, *sorted(set(counts) - {OVERALL, *CRITERIA})]
    return [k for k in order if counts.get(k, 0) >= MIN_LABELLED]


def cv_folds(examples: Sequence[LabelledConversation], *, seed: int = 0,
             n_splits: int = N_SPLITS) -> list[tuple[list[int], list[int]]]:
    """(train, test) index lists, grouped by conversation id: one conversation never sits in both."""
    from sklearn.model_selection import GroupKFold

    groups = [e.conversation.id for e in examples]
    k = min(n_splits, len(set(groups)))
    if k < 2:
        return []
    split = GroupKFold(n_splits=k, shuffle=True, random_state=seed).split(np.zeros(len(groups)), groups=groups)
    return [(sorted(int(i) for i in train), sorted(int(i) for i in test)) for train, test in split]


def _signed_log(values: np.ndarray) -> np.ndarray:
    return np.sign(values) * np.log1p(np.abs(values))


def _numeric(examples: Sequence[LabelledConversation]) -> tuple[list[str], np.ndarray]:
    """(feature names, one signed-log row per example): computed once, however many folds use them."""
    rows = [numeric_features(e.conversation, e.checks) for e in examples]
    names = list(rows[0])
    return names, _signed_log(np.array([[r[n] for n in names] for r in rows], dtype=float))


def _fit_params(examples: Sequence[LabelledConversation], targets: Sequence[str],
                matrix: tuple[list[str], np.ndarray] | None = None) -> dict[str, Any]:
    """The JSON parameters of one fit (no CV): feature names, scaler, per-target ridge regression.

    `matrix` is `_numeric(examples)` when the caller has it already. Each target's alpha is chosen
    by RidgeCV's efficient leave-one-out over ALPHAS on these examples alone, so inside
    `out_of_fold` the choice never sees the held-out fold (nested CV).
    """
    from sklearn.linear_model import RidgeCV

    names, raw = matrix if matrix is not None else _numeric(examples)
    mean = raw.mean(axis=0)
    scale = raw.std(axis=0)
    scale[scale == 0] = 1.0
    x = (raw - mean) / scale
    fitted: dict[str, Any] = {}
    for target in targets:
        rows = [i for i, e in enumerate(examples) if target in e.labels]
        y = np.array([examples[i].labels[target] for i in rows], dtype=float)
        ridge = RidgeCV(alphas=ALPHAS).fit(x[rows], y)
        fitted[target] = {"alpha": float(ridge.alpha_), "intercept": float(ridge.intercept_),
                          "coef": [float(c) for c in ridge.coef_], "n": len(rows)}
    return {"features": names, "scaler": {"mean": [float(v) for v in mean], "scale": [float(v) for v in scale]},
            "target_order": list(targets), "targets": fitted}


def _predict_row(params: dict[str, Any], raw: np.ndarray, target: str) -> float:
    """One target's prediction from a signed-log feature row (what `FittedJudge.predict` computes)."""
    x = (raw - np.asarray(params["scaler"]["mean"])) / np.asarray(params["scaler"]["scale"])
    p = params["targets"][target]
    return float(p["intercept"] + np.dot(p["coef"], x))


def _rho_interval(pred: Sequence[float], truth: Sequence[float], seed: int) -> tuple[float, list[float]]:
    """Spearman's rho and its 95% percentile bootstrap interval (`rng.integers(0, n, n)` per draw).

    rho is NaN when either side is constant (no ranking); draws where a resample is constant are
    left out, as `bootstrap_intervals` leaves them out.
    """
    from scipy.stats import spearmanr

    p, t = np.asarray(pred, dtype=float), np.asarray(truth, dtype=float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy warns on a constant side: that is the NaN we test for
        rho = float(spearmanr(p, t).statistic)
        rng = np.random.default_rng(seed)
        draws = []
        for _ in range(RESAMPLES):
            idx = rng.integers(0, len(p), len(p))
            value = spearmanr(p[idx], t[idx]).statistic
            if not math.isnan(value):
                draws.append(float(value))
    low, high = (np.percentile(draws, [2.5, 97.5]) if draws else (math.nan, math.nan))
    return rho, [float(low), float(high)]


def out_of_fold(examples: Sequence[LabelledConversation], targets: Sequence[str], *, seed: int = 0,
                matrix: tuple[list[str], np.ndarray] | None = None) -> tuple[dict[str, dict[int, float]], int]:
    """(target → example index → its out-of-fold prediction, number of folds), grouped by conversation.

    Each fold refits the whole pipeline on the other folds (vocabulary, scaler and RidgeCV's alpha,
    itself chosen by leave-one-out inside the training part: the reported figure is nested CV).
    """
    folds = cv_folds(examples, seed=seed)
    predictions: dict[str, dict[int, float]] = {t: {} for t in targets}
    names, raw = matrix if matrix is not None else _numeric(examples)
    for train, test in folds:
        part = [examples[i] for i in train]
        fold_targets = [t for t in targets if sum(t in e.labels for e in part) >= 2]
        params = _fit_params(part, fold_targets, (names, raw[train]))
        for i in test:
            for t in fold_targets:
                if t in examples[i].labels:
                    predictions[t][i] = _predict_row(params, raw[i], t)
    return predictions, len(folds)


def _agreement(values: dict[int, float], examples: Sequence[LabelledConversation], target: str,
               seed: int, folds: int) -> Agreement | None:
    idx = sorted(values)
    if len(idx) < 3:
        return None
    rho, interval = _rho_interval([values[i] for i in idx], [examples[i].labels[target] for i in idx], seed)
    if math.isnan(rho):  # constant predictions (or labels): no ranking to agree with; JSON has no NaN
        return {"rho": None, "interval": None, "n": float(len(idx)), "folds": float(folds)}
    return {"rho": rho, "interval": None if any(map(math.isnan, interval)) else interval,
            "n": float(len(idx)), "folds": float(folds)}


def cross_validate(examples: Sequence[LabelledConversation], targets: Sequence[str], *,
                   seed: int = 0) -> dict[str, Agreement]:
    """Out-of-fold Spearman rho per target with its bootstrap interval, grouped by conversation."""
    predictions, folds = out_of_fold(examples, targets, seed=seed)
    found = {t: _agreement(predictions[t], examples, t, seed, folds) for t in targets}
    return {t: a for t, a in found.items() if a is not None}


def _offline_values(example: LabelledConversation, rubric: Rubric) -> dict[str, float]:
    """The offline judge on one labelled conversation: `overall` from its composite (1 + 4c/100),
    each criterion it scored; a production call (no persona) graded as grading grades it."""
    # Imported here: the import parsers (and their PII patterns) load only when a fit runs, not with
    # every `polygon run`, whose storage adapter imports this package (tests/test_lazy_imports.py).
    from ..imports import NOT_APPLICABLE_CRITERIA

    conv = example.conversation
    skipped = list(NOT_APPLICABLE_CRITERIA) if example.persona is None else []
    judgment = build_judgment(conv, [judge_offline(conv, example.checks, example.persona, rubric)],
                              rubric_version=rubric.version, judge_model=HEURISTIC_JUDGE, not_applicable=skipped)
    out = {c.criterion: float(c.score) for c in judgment.criteria if c.score is not None}
    if judgment.composite is not None:
        out[OVERALL] = 1.0 + 4.0 * judgment.composite / 100.0
    return out


def offline_agreement(examples: Sequence[LabelledConversation], targets: Sequence[str], *, seed: int = 0,
                      rubric_version: str = "v1") -> dict[str, Agreement]:
    """The offline judge's Spearman rho per target on the same labels, with the same bootstrap."""
    rubric = get_rubric(rubric_version)
    values = [_offline_values(e, rubric) for e in examples]
    out: dict[str, Agreement] = {}
    for t in targets:
        found = _agreement({i: v[t] for i, v in enumerate(values) if t in v and t in examples[i].labels},
                           examples, t, seed, 0)
        if found is not None:
            found.pop("folds")
            out[t] = found
    return out


def distinct_predictions(predictions: dict[int, float]) -> int:
    """How many different scores the out-of-fold predictions are, at the judge's precision."""
    return len({round(min(5.0, max(1.0, v)), DECIMALS) for v in predictions.values()})


def agreement_text(a: Agreement | None) -> str:
    """`0.28 [0.22, 0.34]`, or `undefined` when there is no rho (constant predictions)."""
    if a is None or a.get("rho") is None:
        return "undefined"
    interval = a.get("interval")
    return f"{a['rho']:.2f}" + (f" [{interval[0]:.2f}, {interval[1]:.2f}]" if interval else "")


def fit_problem(body: dict[str, Any]) -> str | None:
    """Why this fit must not be stored, in one line, or None: its out-of-fold `overall` predictions take
    fewer than MIN_DISTINCT values, or its cross-validated rho is not above the offline judge's."""
    n = body["n"]
    if body["distinct"] < MIN_DISTINCT:
        return (f"its out-of-fold predictions of {OVERALL} take {body['distinct']} distinct value(s) over {n} "
                f"conversations (at least {MIN_DISTINCT} needed): it gives nearly every call the same score")
    fitted, offline = body["cv"].get(OVERALL), body["offline"].get(OVERALL)
    rho = fitted.get("rho") if fitted else None
    base = offline.get("rho") if offline else None
    if rho is None or (base is not None and rho <= base):
        return (f"its cross-validated rho for {OVERALL}, {agreement_text(fitted)}, is not above the offline judge's, "
                f"{agreement_text(offline)}, on the same {n} conversations")
    return None


def fit_judge(examples: Sequence[LabelledConversation], *, name: str, seed: int = 0,
              rubric_version: str = "v1") -> dict[str, Any]:
    """Fit on every example and cross-validate; the JSON-ready artifact body (see `artifact_text`).

    Beside the fit's own agreement (`cv`), the offline judge's under `rubric_version` on the same
    labels (`offline`) and the number of distinct out-of-fold `overall` predictions (`distinct`).
    """
    if not examples:
        raise ValueError("no labelled conversations to fit a judge on")
    targets = targets_of(examples)
    if OVERALL not in targets:
        raise ValueError(f"a fitted judge needs at least {MIN_LABELLED} conversations with an "
                         f"'{OVERALL}' label; got {sum(OVERALL in e.labels for e in examples)}")
    matrix = _numeric(examples)
    predictions, folds = out_of_fold(examples, targets, seed=seed, matrix=matrix)
    cv = {t: a for t in targets if (a := _agreement(predictions[t], examples, t, seed, folds)) is not None}
    return {"format": FORMAT, "name": name, "seed": seed, "n": len(examples),
            "training_hash": training_hash(examples), "cv": cv,
            "offline": offline_agreement(examples, targets, seed=seed, rubric_version=rubric_version),
            "distinct": distinct_predictions(predictions[OVERALL]), **_fit_params(examples, targets, matrix)}


def artifact_text(body: dict[str, Any]) -> tuple[str, str]:
    """(the artifact's JSON text, its content hash): `{"hash": sha256 of the body, "model": body}`."""
    digest = content_hash(body, 64)
    return canonical_json({"hash": digest, "model": body}), digest


class FittedJudge:
    """Predictions from a fitted judge's JSON parameters (no scikit-learn needed to predict)."""

    def __init__(self, name: str, digest: str, body: dict[str, Any]) -> None:
        self.name, self.hash, self.body = name, digest, body
        self._mean = np.array(body["scaler"]["mean"], dtype=float)
        self._scale = np.array(body["scaler"]["scale"], dtype=float)

    @classmethod
    def from_text(cls, text: str, *, expected_hash: str | None = None) -> FittedJudge:
        """Load an artifact; ValueError when it is not one or its content does not match its hash."""
        try:
            doc = json.loads(text)
            body, digest = doc["model"], doc["hash"]
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"not a fitted-judge artifact: {exc}") from exc
        if not isinstance(body, dict) or body.get("format") != FORMAT:
            found = body.get("format") if isinstance(body, dict) else None
            raise ValueError(f"not a fitted-judge artifact of this Polygon (format {FORMAT!r} expected, found "
                             f"{found!r}): fit it again with polygon calibrate --fit")
        actual = content_hash(body, 64)
        if actual != digest or (expected_hash and not digest.startswith(expected_hash)):
            raise ValueError(f"fitted judge {body.get('name')!r}: content hash {actual[:12]} does not match "
                             f"the recorded {str(digest)[:12]}{f' / the name @{expected_hash}' if expected_hash else ''}")
        return cls(str(body["name"]), digest, body)

    @property
    def model_name(self) -> str:
        """`fitted:<name>@<first 12 hex of the content hash>`, the name used wherever a judge is named."""
        return f"fitted:{self.name}@{self.hash[:12]}"

    @property
    def targets(self) -> list[str]:
        """The fitted targets, `overall` first, then criteria in rubric order (JSON keys are sorted)."""
        return list(self.body["target_order"])

    def _inputs(self, conv: Conversation, checks: Checks) -> np.ndarray:
        feats = numeric_features(conv, checks)
        raw = _signed_log(np.array([feats.get(n, 0.0) for n in self.body["features"]], dtype=float))
        return (raw - self._mean) / self._scale

    def predict(self, conv: Conversation, checks: Checks) -> dict[str, float]:
        """Target → predicted score (unclipped, on the labels' 1-5 scale)."""
        x = self._inputs(conv, checks)
        fitted = self.body["targets"]
        return {t: float(fitted[t]["intercept"] + np.dot(fitted[t]["coef"], x)) for t in self.targets}

    def most_influential(self, conv: Conversation, checks: Checks, target: str) -> tuple[str, int | None]:
        """(what, turn index): the observed signal that moved `target`'s prediction most, else the
        ending feature that did (at the turn it reads), else ("", None)."""
        x = self._inputs(conv, checks)
        p = self.body["targets"][target]
        turns_at = conversation_signals(conv, checks).turns_at
        moved = sorted(((abs(c * v), n) for c, v, n in zip(p["coef"], x, self.body["features"], strict=True)
                        if c * v != 0), reverse=True)
        observed = [n for _, n in moved if n in turns_at]
        if observed:
            return observed[0], turns_at[observed[0]]
        if not moved:
            return "", None
        name = moved[0][1]
        return name, _ending_turn(conv, name)


def _ending_turn(conv: Conversation, feature: str) -> int | None:
    """The turn an ending feature reads (`last_caller_*`, `prior_caller_*`, `last_agent_*`), else None."""
    for prefix, speaker, back in (("last_caller_", "caller", 1), ("prior_caller_", "caller", 2),
                                  ("last_agent_", "agent", 1)):
        if feature.startswith(prefix):
            turns = [t.index for t in conv.turns if t.speaker == speaker and t.text.strip()]
            return turns[-back] if len(turns) >= back else None
    return None


def _quote(conv: Conversation, index: int | None, limit: int = 160) -> str:
    turn = next((t for t in conv.turns if index is not None and t.index >= index and t.text.strip()), None)
    if turn is None:
        turn = next((t for t in conv.turns if t.speaker == "agent" and t.text.strip()), None)
    if turn is None:
        return ""
    return turn.text if len(turn.text) <= limit else turn.text[:limit].rsplit(" ", 1)[0]


def judge_fitted(conv: Conversation, checks: Checks, persona: Persona | None, rubric: Rubric | None,
                 model: FittedJudge) -> dict[str, Any]:
    """One fitted-judge pass, in `judge_offline`'s raw shape: criterion → {score, evidence, reason}.

    A criterion with its own fitted target gets that prediction, any other the `overall` one,
    clipped to 1-5 and kept on the continuous scale (two decimals; judge with
    `build_judgment(..., continuous_scores=True)`). `persona` is accepted for the judge interface and unused
    (a fitted judge reads only what it was trained on).
    """
    del persona
    predictions = model.predict(conv, checks)
    names = rubric.criterion_names if rubric is not None else list(CRITERIA)
    out: dict[str, Any] = {}
    influential: dict[str, tuple[str, int | None]] = {}
    for name in names:
        target = name if name in predictions else OVERALL
        value = predictions[target]
        if target not in influential:  # once per target, not per criterion
            influential[target] = model.most_influential(conv, checks, target)
        what, turn = influential[target]
        out[name] = {"score": round(min(5.0, max(1.0, value)), DECIMALS), "evidence": _quote(conv, turn),
                     "reason": f"fitted judge {model.name}@{model.hash[:12]}: {target} predicted {value:.2f}"
                               + (f"; most influential: {what}" if what else "")}
    return out
