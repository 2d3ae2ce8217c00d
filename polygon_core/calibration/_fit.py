"""A judge fitted to people's labels: signals + TF-IDF → ridge regression per target, as plain JSON.

`fit_judge(examples, name=…, seed=…)` trains one ridge regression (alpha chosen by scikit-learn's
leave-one-out RidgeCV, deterministic) per target: `overall` and each criterion with at least
`MIN_LABELLED` labelled conversations. Inputs: the deterministic signals (signed log1p, then
standardised) and TF-IDF of the transcript's words (`_features.py`). Agreement is measured by
cross-validation grouped by conversation id (GroupKFold, shuffled by the seed): the whole pipeline,
vocabulary and scaler included, is refitted on each training part, so a conversation never
informs its own prediction; the out-of-fold predictions give Spearman's rho per target with a
seeded bootstrap 95% interval (the draws of `bootstrap_intervals`).

The result is JSON only (vocabulary, idf, scaler, coefficients, intercepts, feature names, training
hash), never a pickle: loading one cannot execute code. `FittedJudge` predicts from that JSON;
`judge_fitted` turns predictions into the raw judge shape `build_judgment` reads.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

# scipy and scikit-learn are imported where a fit needs them: judging with a fitted judge (plain
# numpy from its JSON) and every `polygon` command's start-up do not pay for them.
from .._hashing import canonical_json, content_hash
from ..checks import Checks
from ..judging import conversation_signals
from ..models import Conversation, Persona
from ..scoring import CRITERIA, Rubric
from ._features import numeric_features, text_tokens, tfidf_row
from ._types import OVERALL, LabelledConversation

__all__ = ["FORMAT", "MIN_LABELLED", "FitReport", "FittedJudge", "cv_folds", "fit_judge", "judge_fitted",
           "training_hash"]

FORMAT = "polygon-fitted-judge/1"
MIN_LABELLED = 8  # a target with fewer labelled conversations is not fitted (its criteria use overall)
ALPHAS = (0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0, 300.0)
MAX_TERMS = 3000
MIN_DF = 2
N_SPLITS = 5
RESAMPLES = 1000


@dataclass(frozen=True)
class FitReport:
    """What `fit_and_store` returns: the judge's name, its training set's hash, size and CV agreement."""

    model_name: str
    training_hash: str
    n: int
    cv: dict[str, dict[str, float | list[float]]]


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
    rows = [numeric_features(e.conversation, e.checks) for e in examples]
    names = list(rows[0])
    return names, _signed_log(np.array([[r[n] for n in names] for r in rows], dtype=float))


def _fit_params(examples: Sequence[LabelledConversation], targets: Sequence[str]) -> dict[str, Any]:
    """The JSON parameters of one fit (no CV): features, scaler, vocabulary, idf, per-target ridge."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import RidgeCV

    names, raw = _numeric(examples)
    mean = raw.mean(axis=0)
    scale = raw.std(axis=0)
    scale[scale == 0] = 1.0
    vectorizer = TfidfVectorizer(analyzer=lambda tokens: tokens, sublinear_tf=True, min_df=min(MIN_DF, len(examples)),
                                 max_features=MAX_TERMS)
    text = vectorizer.fit_transform([text_tokens(e.conversation) for e in examples]).toarray()
    vocabulary = {str(t): int(i) for t, i in sorted(vectorizer.vocabulary_.items())}
    x = np.hstack([(raw - mean) / scale, text])
    fitted: dict[str, Any] = {}
    for target in targets:
        rows = [i for i, e in enumerate(examples) if target in e.labels]
        y = np.array([examples[i].labels[target] for i in rows], dtype=float)
        ridge = RidgeCV(alphas=ALPHAS).fit(x[rows], y)
        coef = [float(c) for c in ridge.coef_]
        fitted[target] = {"alpha": float(ridge.alpha_), "intercept": float(ridge.intercept_),
                          "coef_numeric": coef[:len(names)], "coef_text": coef[len(names):], "n": len(rows)}
    return {"features": names, "scaler": {"mean": [float(v) for v in mean], "scale": [float(v) for v in scale]},
            "tfidf": {"vocabulary": vocabulary, "idf": [float(v) for v in vectorizer.idf_],
                      "sublinear_tf": True, "ngrams": [1, 2]},
            "target_order": list(targets), "targets": fitted}


def _rho_interval(pred: Sequence[float], truth: Sequence[float], seed: int) -> tuple[float, list[float]]:
    """Spearman's rho and its 95% percentile bootstrap interval (`rng.integers(0, n, n)` per draw)."""
    from scipy.stats import spearmanr

    p, t = np.asarray(pred, dtype=float), np.asarray(truth, dtype=float)
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


def cross_validate(examples: Sequence[LabelledConversation], targets: Sequence[str], *,
                   seed: int = 0) -> dict[str, dict[str, float | list[float]]]:
    """Out-of-fold Spearman rho per target with its bootstrap interval, grouped by conversation."""
    folds = cv_folds(examples, seed=seed)
    out: dict[str, dict[str, float | list[float]]] = {}
    if not folds:
        return out
    predictions: dict[str, dict[int, float]] = {t: {} for t in targets}
    for train, test in folds:
        part = [examples[i] for i in train]
        fold_targets = [t for t in targets if sum(t in e.labels for e in part) >= 2]
        judge = FittedJudge("cv", "", _fit_params(part, fold_targets))
        for i in test:
            pred = judge.predict(examples[i].conversation, examples[i].checks)
            for t in fold_targets:
                if t in examples[i].labels:
                    predictions[t][i] = pred[t]
    for t in targets:
        idx = sorted(predictions[t])
        if len(idx) < 3:
            continue
        rho, interval = _rho_interval([predictions[t][i] for i in idx], [examples[i].labels[t] for i in idx], seed)
        out[t] = {"rho": rho, "interval": interval, "n": float(len(idx)), "folds": float(len(folds))}
    return out


def fit_judge(examples: Sequence[LabelledConversation], *, name: str, seed: int = 0) -> dict[str, Any]:
    """Fit on every example and cross-validate; the JSON-ready artifact body (see `artifact_text`)."""
    if not examples:
        raise ValueError("no labelled conversations to fit a judge on")
    targets = targets_of(examples)
    if OVERALL not in targets:
        raise ValueError(f"a fitted judge needs at least {MIN_LABELLED} conversations with an "
                         f"'{OVERALL}' label; got {sum(OVERALL in e.labels for e in examples)}")
    return {"format": FORMAT, "name": name, "seed": seed, "n": len(examples),
            "training_hash": training_hash(examples), "cv": cross_validate(examples, targets, seed=seed),
            **_fit_params(examples, targets)}


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
        self._vocabulary: dict[str, int] = body["tfidf"]["vocabulary"]
        self._idf = np.array(body["tfidf"]["idf"], dtype=float)
        self._terms = {i: t for t, i in self._vocabulary.items()}

    @classmethod
    def from_text(cls, text: str, *, expected_hash: str | None = None) -> FittedJudge:
        """Load an artifact; ValueError when it is not one or its content does not match its hash."""
        try:
            doc = json.loads(text)
            body, digest = doc["model"], doc["hash"]
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"not a fitted-judge artifact: {exc}") from exc
        if not isinstance(body, dict) or body.get("format") != FORMAT:
            raise ValueError(f"not a fitted-judge artifact (format {FORMAT!r} expected)")
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

    def _inputs(self, conv: Conversation, checks: Checks) -> tuple[np.ndarray, np.ndarray]:
        feats = numeric_features(conv, checks)
        raw = _signed_log(np.array([feats.get(n, 0.0) for n in self.body["features"]], dtype=float))
        return (raw - self._mean) / self._scale, tfidf_row(text_tokens(conv), self._vocabulary, self._idf)

    def predict(self, conv: Conversation, checks: Checks) -> dict[str, float]:
        """Target → predicted score (unclipped, on the labels' 1-5 scale)."""
        x_num, x_text = self._inputs(conv, checks)
        fitted = self.body["targets"]
        return {t: float(fitted[t]["intercept"] + np.dot(fitted[t]["coef_numeric"], x_num)
                         + np.dot(fitted[t]["coef_text"], x_text)) for t in self.targets}

    def most_influential(self, conv: Conversation, checks: Checks, target: str) -> tuple[str, int | None]:
        """(what, turn index): the observed signal (or else word) that moved `target`'s prediction most."""
        x_num, x_text = self._inputs(conv, checks)
        p = self.body["targets"][target]
        turns_at = conversation_signals(conv, checks).turns_at
        signals = [(abs(c * x), n) for c, x, n in zip(p["coef_numeric"], x_num, self.body["features"], strict=True)
                   if n in turns_at]
        if signals:
            _, name = max(signals)
            return name, turns_at[name]
        words = [(abs(c * x), i) for i, (c, x) in enumerate(zip(p["coef_text"], x_text, strict=True)) if x > 0]
        if not words:
            return "", None
        term = self._terms[max(words)[1]]
        turn = next((t.index for t in conv.turns if term in text_tokens(conv.model_copy(update={"turns": [t]}))),
                    None)
        return f"the words {term[2:]!r}", turn


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
    clipped to 1-5 and rounded half up. `persona` is accepted for the judge interface and unused
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
        out[name] = {"score": math.floor(min(5.0, max(1.0, value)) + 0.5), "evidence": _quote(conv, turn),
                     "reason": f"fitted judge {model.name}@{model.hash[:12]}: {target} predicted {value:.2f}"
                               + (f"; most influential: {what}" if what else "")}
    return out
