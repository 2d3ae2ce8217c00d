"""A calibration: per criterion and overall, how a judge's scores agree with people's ratings."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence

from pydantic import Field

from ..models import DomainModel, Judgment
from ._scale import judge_value
from ._stats import DEFAULT_RESAMPLES, DEFAULT_SEED, STATISTICS, agreement, bootstrap_intervals, people_alpha
from ._types import OVERALL

__all__ = ["SAMPLE_DATASET", "Calibration", "CalibrationRow", "Estimate", "LabelsFingerprint", "Ratings", "calibrate",
           "people_means"]

# conversation id -> criterion or "overall" -> rater -> score (1-5)
Ratings = Mapping[str, Mapping[str, Mapping[str, int]]]

SAMPLE_DATASET = "the packaged sample (hand-written, not real data)"
"""The dataset name of the labels packaged in polygon_core/calibration/samples/: illustrations that
must never pass for a measurement of a judge (docs/calibration.md)."""


class Estimate(DomainModel):
    """A statistic with its bootstrap 95% interval; None where undefined on the data."""

    value: float | None = None
    low: float | None = None
    high: float | None = None


class CalibrationRow(DomainModel):
    """One criterion (or `overall`): the judge against the mean of the people's ratings."""

    criterion: str
    n: int = Field(..., description="conversations compared: rated by people and scored by the judge")
    left_out: dict[str, int] = Field(default_factory=dict,
                                     description="rated conversations left out, by reason")
    raters: int = Field(..., description="raters who rated this criterion")
    rho: Estimate
    tau: Estimate
    kappa: Estimate
    exact: Estimate
    within_one: Estimate
    bias: Estimate
    people_alpha: float | None = Field(None, description="Krippendorff's alpha (ordinal) among the people")
    people_alpha_reason: str | None = None


class LabelsFingerprint(DomainModel):
    """Which labels a calibration was measured on: named, hashed and counted, so a scorecard can say
    what the judge was calibrated on, and the packaged sample can never pass for real data."""

    dataset: str = Field(..., description="the data's name: `--dataset`, else the labels file's name; "
                                          "SAMPLE_DATASET for the packaged sample")
    file: str = Field(..., description="the labels file's name (without its folder)")
    sha256: str = Field(..., description="SHA-256 of the labels file's bytes (the record's labels_hash)")
    ratings: int = Field(..., description="rating rows in the file")
    bytes: int = Field(..., description="the file's size")
    sample: bool = Field(False, description="the labels are the packaged hand-written sample")


class Calibration(DomainModel):
    """A judge calibrated against people's labels on one run (what `polygon calibrate` stores).

    `labels`, `conversation_ids` and `import_sources` say what it covered; a record stored before
    they existed has None there (calibrated on unknown data: shown only on its own run).
    """

    judge_model: str
    rubric_version: str
    judge_prompt_hash: str
    run_id: str
    labels_hash: str
    seed: int = DEFAULT_SEED
    resamples: int = DEFAULT_RESAMPLES
    conversations: int = Field(..., description="labelled conversations of the run")
    raters: int
    rows: list[CalibrationRow]
    created_at: str | None = Field(None, description="ISO time, set at the edge (core has no clock)")
    labels: LabelsFingerprint | None = Field(None, description="the labels' fingerprint (None: not recorded)")
    conversation_ids: list[str] | None = Field(None, description="the labelled conversations of the run")
    import_sources: list[str] | None = Field(
        None, description="import sources of the labelled calls (empty on a synthetic run; None: not recorded)")

    @property
    def dataset(self) -> str:
        """What the scorecard names the data by ("unknown data" for a record without a fingerprint)."""
        return self.labels.dataset if self.labels is not None else "unknown data"

    @property
    def sample(self) -> bool:
        """Whether the labels are the packaged hand-written sample."""
        return self.labels is not None and self.labels.sample

    def row(self, criterion: str) -> CalibrationRow | None:
        """The row of `criterion` (or "overall"), if it was rated."""
        return next((r for r in self.rows if r.criterion == criterion), None)

    @property
    def n(self) -> int:
        """Rated calls behind the headline: the overall row's n (else the largest row's)."""
        overall = self.row(OVERALL)
        if overall is not None:
            return overall.n
        return max((r.n for r in self.rows), default=0)


def people_means(ratings: Ratings, key: str) -> dict[str, float]:
    """Per conversation, the mean of its raters' scores on `key` (conversations that have some)."""
    out = {}
    for conversation, by_key in ratings.items():
        scores = list(by_key.get(key, {}).values())
        if scores:
            out[conversation] = sum(scores) / len(scores)
    return out


def _row(key: str, ratings: Ratings, judgments: Mapping[str, Judgment | None], *, seed: int,
         resamples: int) -> CalibrationRow:
    people = people_means(ratings, key)
    judge, humans, left_out = [], [], Counter[str]()
    for conversation in sorted(people):
        value = judge_value(judgments.get(conversation), key)
        if isinstance(value, str):
            left_out[value] += 1
            continue
        judge.append(value)
        humans.append(people[conversation])
    point = agreement(judge, humans)
    intervals = bootstrap_intervals(judge, humans, seed=seed, resamples=resamples)
    estimates = {name: Estimate(value=point[name], low=(intervals[name] or (None, None))[0],
                                high=(intervals[name] or (None, None))[1]) for name in STATISTICS}
    by_rater = {c: dict(by_key[key]) for c, by_key in ratings.items() if by_key.get(key)}
    alpha, reason = people_alpha(by_rater)
    raters = {r for scores in by_rater.values() for r in scores}
    return CalibrationRow(criterion=key, n=len(judge), left_out=dict(sorted(left_out.items())),
                          raters=len(raters), people_alpha=alpha, people_alpha_reason=reason,
                          **estimates)


def calibrate(ratings: Ratings, judgments: Mapping[str, Judgment | None], *, keys: Sequence[str],
              judge_model: str, rubric_version: str, judge_prompt_hash: str, run_id: str,
              labels_hash: str, seed: int = DEFAULT_SEED, resamples: int = DEFAULT_RESAMPLES,
              labels: LabelsFingerprint | None = None, import_sources: Sequence[str] = (),
              progress: Callable[[int, int], None] | None = None) -> Calibration:
    """Compare one judge's judgments with people's ratings, row by row (`keys`, in order).

    `ratings` holds the people's scores by conversation, key and rater; `judgments` the judge's
    judgment of each conversation (None or absent: not judged). Every row resamples with its own
    `numpy.random.default_rng(seed)`, so a row's interval does not depend on the other rows.
    `labels` and `import_sources` (of the rated calls, when imported) are recorded with the rated
    conversations' ids: what the calibration covered. `progress(done, total)` is told each row
    bootstrapped (the long part: `resamples` per row).
    """
    raters = {r for by_key in ratings.values() for scores in by_key.values() for r in scores}
    rows = []
    for key in keys:
        rows.append(_row(key, ratings, judgments, seed=seed, resamples=resamples))
        if progress is not None:
            progress(len(rows), len(keys))
    return Calibration(judge_model=judge_model, rubric_version=rubric_version,
                       judge_prompt_hash=judge_prompt_hash, run_id=run_id, labels_hash=labels_hash,
                       seed=seed, resamples=resamples, conversations=len(ratings), raters=len(raters),
                       rows=rows, labels=labels, conversation_ids=sorted(ratings),
                       import_sources=sorted(set(import_sources)))
