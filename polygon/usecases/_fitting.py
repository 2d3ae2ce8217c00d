"""Fitting a judge to people's labels (`polygon calibrate --fit`): fit, store the artifact, report.

Imported only when a judge is fitted (scikit-learn is needed by nothing else).
"""

from __future__ import annotations

from collections.abc import Sequence

from polygon_core.adapters.fitted_judges import check_fitted_name, store_fitted
from polygon_core.calibration import FitRefusedError, FitReport, LabelledConversation, fit_judge, fit_problem

from ._common import Stores

__all__ = ["FitReport", "fit_and_store"]


def fit_and_store(stores: Stores, examples: Sequence[LabelledConversation], *, name: str,
                  seed: int = 0, rubric_version: str = "v1", force: bool = False) -> FitReport:
    """Fit a judge on `examples` (see `fit_judge`), store its JSON artifact, report its CV agreement
    beside the offline judge's (under `rubric_version`) on the same labels.

    A fit `fit_problem` refuses (its out-of-fold predictions collapse, or it does not agree with
    people better than the offline judge) is a FitRefusedError and nothing is stored; with `force`
    it is stored with that reason as its `warning`, which every scorecard of a run it judged shows
    (`fitted_judge_warning`).
    """
    body = fit_judge(examples, name=check_fitted_name(name), seed=seed,  # a bad name fails before fitting
                     rubric_version=rubric_version)
    problem = fit_problem(body)
    if problem is not None and not force:
        raise FitRefusedError(f"fitted judge {name!r} is not stored: {problem} (--force stores it with a warning)")
    if problem is not None:
        body["warning"] = problem
    return FitReport(model_name=store_fitted(stores, name, body), training_hash=body["training_hash"],
                     n=len(examples), cv=body["cv"], offline=body["offline"], distinct=body["distinct"],
                     warning=body.get("warning"))
