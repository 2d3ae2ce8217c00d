"""Fitting a judge to people's labels (`polygon calibrate --fit`): fit, store the artifact, report.

Imported only when a judge is fitted (scikit-learn is needed by nothing else).
"""

from __future__ import annotations

from collections.abc import Sequence

from polygon_core.adapters.fitted_judges import check_fitted_name, store_fitted
from polygon_core.calibration import FitReport, LabelledConversation, fit_judge

from ._common import Stores

__all__ = ["FitReport", "fit_and_store"]


def fit_and_store(stores: Stores, examples: Sequence[LabelledConversation], *, name: str,
                  seed: int = 0) -> FitReport:
    """Fit a judge on `examples` (see `fit_judge`), store its JSON artifact, report its CV agreement."""
    body = fit_judge(examples, name=check_fitted_name(name), seed=seed)  # a bad name fails before fitting
    return FitReport(model_name=store_fitted(stores, name, body), training_hash=body["training_hash"],
                     n=len(examples), cv=body["cv"])
