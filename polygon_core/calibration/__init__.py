"""Calibration of a judge against people's ratings (docs/calibration.md).

- `parse_labels`: the labels file (CSV or JSON Lines), strictly, every bad row with file:line.
- `calibrate`: per criterion and `overall`, Spearman's rho, Kendall's tau, quadratic-weighted
  Cohen's kappa, exact and within-one agreement and mean bias (judge - people), each with a seeded
  bootstrap 95% interval, and the people's own agreement (Krippendorff's alpha, ordinal).
- `calibration_line`: the line a scorecard shows about its judge (which record: see
  `polygon.usecases.shown_calibration`); `LabelsFingerprint`: which labels a record was made on.
- `LabelledConversation`: the contract with judge fitting (`polygon calibrate --fit`).
- `fit_judge` / `FittedJudge` / `judge_fitted`: a judge fitted to the labels (signals and the
  call's ending, ridge regression per target, grouped cross-validation beside the offline judge's
  agreement; `fit_problem` refuses a collapsed or no-better fit), stored as JSON, never a pickle.

Pure: no Prefect, database, network, clock or environment (tests/test_layers.py).
"""

from ._calibrate import (
    SAMPLE_DATASET,
    Calibration,
    CalibrationRow,
    Estimate,
    LabelsFingerprint,
    Ratings,
    calibrate,
    people_means,
)
from ._fit import (
    FitRefusedError,
    FitReport,
    FittedJudge,
    agreement_text,
    artifact_text,
    cv_folds,
    fit_judge,
    fit_problem,
    judge_fitted,
    offline_agreement,
    training_hash,
)
from ._labels import FIELDS, Label, LabelsError, labels_hash, parse_labels
from ._scale import SCALE, judge_value, overall_from_composite, round_scores
from ._stats import (
    CONFIDENCE,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    STATISTICS,
    agreement,
    bootstrap_intervals,
    people_alpha,
)
from ._summary import (
    EARLIER_PROMPT,
    MATCHES,
    ON_THESE_CALLS,
    Match,
    calibration_line,
    calibration_status,
    format_estimate,
)
from ._types import OVERALL, LabelledConversation

__all__ = [
    "CONFIDENCE",
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "EARLIER_PROMPT",
    "FIELDS",
    "MATCHES",
    "ON_THESE_CALLS",
    "OVERALL",
    "SAMPLE_DATASET",
    "SCALE",
    "STATISTICS",
    "Calibration",
    "CalibrationRow",
    "Estimate",
    "FitRefusedError",
    "FitReport",
    "FittedJudge",
    "Label",
    "LabelledConversation",
    "LabelsError",
    "LabelsFingerprint",
    "Match",
    "Ratings",
    "agreement",
    "agreement_text",
    "artifact_text",
    "bootstrap_intervals",
    "calibrate",
    "calibration_line",
    "calibration_status",
    "cv_folds",
    "fit_judge",
    "fit_problem",
    "format_estimate",
    "judge_fitted",
    "judge_value",
    "labels_hash",
    "offline_agreement",
    "overall_from_composite",
    "parse_labels",
    "people_alpha",
    "people_means",
    "round_scores",
    "training_hash",
]
