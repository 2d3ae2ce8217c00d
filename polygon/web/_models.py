"""The payloads of the JSON API, as pydantic models: what `/openapi.json` documents for each route.

Routes keep returning plain dicts (see `_schema.documented`: nothing is re-validated on the way
out, which would cost a page of a thousand rows a second pass). These models are the contract,
and schemathesis (tests/hardening/test_web_schemathesis.py) checks every response against them.
Payloads read back from the database as stored JSON (a run's stored scorecard) are typed loosely
(`extra="allow"`), since a run stored by an older Polygon may carry fields this one does not know;
freshly computed ones (comparisons) and stored records served as they are (a run, its judgments,
probe answers and assertions, calibrations) use the domain models themselves, so no field is
declared twice (docs/design.md, "Stored records").
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from polygon_core.calibration import Calibration
from polygon_core.compare import Difference, MatrixRow, NoiseFloor, ProbeRate, Scorecard
from polygon_core.models import AssertionResult, GateHit, Judgment, ProbeAnswer, Run

from ._schema import Page

__all__ = [
    "CalibrationPage",
    "CalibrationStatus",
    "ComparisonOut",
    "ConversationPage",
    "ConversationRow",
    "ConversationView",
    "DivergencesOut",
    "Facets",
    "JudgmentPage",
    "PairView",
    "RunDetail",
    "RunDistributions",
    "RunPage",
    "RunProbes",
    "RunRow",
    "StoredScorecard",
    "SweepCurves",
    "Trends",
]


class Loose(BaseModel):
    """A payload whose named fields are guaranteed; more may follow."""

    model_config = ConfigDict(extra="allow")


class StoredScorecard(Loose):
    """A run's scorecard as stored when it finished (or computed while it runs): see `Scorecard`."""

    label: str
    run_id: str
    conversations: int
    scored: int
    mean_composite: float | None
    judge_model: str | None = None


class RunRow(Run):
    """A run's row on the runs list: the stored `Run` plus counts, verdicts and cost."""

    model_config = ConfigDict(extra="allow")

    conversations: int | None
    scored: int | None
    mean_composite: float | None
    ci_low: float | None
    ci_high: float | None
    verdicts: dict[str, int]
    gates: dict[str, int]
    cost_usd: float | None
    tokens: int | None
    judge_model: str | None
    summarised: bool


class RunPage(Page):
    """One page of runs."""

    items: list[RunRow]  # type: ignore[assignment]


class CalibrationStatus(Loose):
    """The calibration a run's judge shows on its calls (docs/calibration.md); `line` says it in words.

    `calibrated` is true only for a record measured on these calls (`match`: same_run, same_calls,
    same_source), which alone carries `rho`, `rho_low`, `rho_high`; with `other_calls` the record is
    named by its data alone. A named record adds `dataset`, `sample` (the packaged hand-written
    sample), `labels_recorded`, `n`, `run_id`, `labels_hash`, `judge_prompt_hash`, `current` and
    `created_at` (docs/calibration.md)."""

    judge_model: str
    rubric_version: str
    calibrated: bool
    match: Literal["same_run", "same_calls", "same_source", "other_calls", "none"]
    line: str


class RunDetail(RunRow):
    """One run: its row, stored scorecard, manifest, rubric versions judged and judge calibration."""

    scorecard: StoredScorecard
    manifest: dict[str, Any]
    rubric_versions: list[str]
    calibration: CalibrationStatus
    judge_warning: str | None = Field(
        description="the warning of a fitted judge stored with `--force` that judged the scorecard "
                    "(`warning: fitted:NAME@… was stored with --force: …`, docs/calibration.md), else null")


class CallOriginOut(BaseModel):
    """Where a production conversation came from: its source and the platform's call id (as
    stored: an id holding personal data is its `redacted-…` HMAC)."""

    source: str
    external_id: str


class ConversationRow(Loose):
    """A conversation's headline facts and its judgment under the rubric version asked for;
    `origin` is a production call's source and platform call id (None for a simulated one)."""

    conversation_id: str
    scenario_id: str
    seed: int
    caller_type: str
    difficulty: int
    end_reason: str
    turn_count: int
    composite: float | None
    verdict: str | None
    partial: bool
    gates: list[str]
    judge_model: str | None
    assertions_failed: list[str]
    status: str | None
    reason: str | None
    origin: CallOriginOut | None = None


class ConversationPage(Page):
    """One page of a run's conversations."""

    items: list[ConversationRow]  # type: ignore[assignment]


class JudgmentPage(Page):
    """One page of a run's judgments (`Judgment` without its raw judge output)."""

    items: list[Judgment]  # type: ignore[assignment]


class CalibrationPage(Page):
    """One page of stored calibrations, newest first."""

    items: list[Calibration]  # type: ignore[assignment]


class Bin(BaseModel):
    """A histogram bin: [start, end) composite points (the last bin holds 100)."""

    start: float
    end: float
    count: int


class ScoreCount(BaseModel):
    """How many conversations got one (whole) criterion score."""

    score: int
    count: int


class CriterionDistribution(BaseModel):
    """One criterion's scores over the run's judged conversations."""

    criterion: str
    not_scored: int
    counts: list[ScoreCount]


class RunDistributions(BaseModel):
    """The composite histogram and per-criterion score counts of a run (`run_distributions`)."""

    run_id: str
    rubric_version: str
    judge_model: str
    judged: int
    composites: int
    composite_bin: int
    composite: list[Bin]
    criteria: list[CriterionDistribution]
    method: str
    calibration: CalibrationStatus


class FacetValue(BaseModel):
    """One value a filter can take and how many conversations have it."""

    value: str
    count: int


class Facets(BaseModel):
    """Every value of each conversation filter of a run."""

    run_id: str
    total: int
    verdict: list[FacetValue]
    scenario: list[FacetValue]
    caller_type: list[FacetValue]
    end_reason: list[FacetValue]
    gate: list[FacetValue]
    assertion: list[FacetValue]


class ConversationView(Loose):
    """A conversation as the viewer shows it (see `_views.conversation_view`)."""

    run: Run
    conversation: dict[str, Any]
    turns: list[dict[str, Any]]
    assertions: list[AssertionResult]
    gates: list[GateHit]
    rubric_version: str
    judgments: list[dict[str, Any]]
    probes: list[ProbeAnswer]
    origin: CallOriginOut | None = None  # a production call's source and platform call id


class RunProbes(BaseModel):
    """A run's probe conformance per probe and wording, with Wilson 95% intervals."""

    run_id: str
    items: list[ProbeRate]


class TrendPoint(BaseModel):
    """One run's value on a trend line, with its interval where the metric has one."""

    run_id: str
    created_at: str | None
    agent_version: str
    value: float
    low: float | None
    high: float | None
    n: int | None


class MetricSeries(BaseModel):
    """Runs whose numbers are comparable, of one agent: one agent version, rubric version, source
    and judge."""

    agent: str
    agent_version: str
    label: str = Field(description="the line's name: agent@version, or for production calls the source "
                                   "they came from")
    rubric_version: str
    source: str
    judge_model: str
    points: list[TrendPoint]
    calibration: CalibrationStatus = Field(
        description="the judge's calibration shown for this line's runs (docs/calibration.md)")


class ProbeSeries(BaseModel):
    """A probe's conformance over runs of one agent version (`label`, as `MetricSeries`'), wording
    and source."""

    probe_id: str
    label: str
    wording_hash: str
    source: str
    polarity: str | None
    points: list[TrendPoint]


class TrendChoice(BaseModel):
    """A suite that has runs, with their agents and the sources and rubric versions they were made
    under; `sweep` when every run of it is a sweep point's."""

    suite: str
    runs: int
    agents: list[str]
    sources: list[str]
    rubric_versions: list[str]
    sweep: bool


class Trends(BaseModel):
    """A metric and every probe over runs of one suite, a line per agent (`metric_trends`)."""

    agent: str | None
    suite: str | None
    source: str | None
    rubric_version: str | None
    metric: str
    metrics: list[str]
    choices: list[TrendChoice]
    runs: int
    series: list[MetricSeries]
    probes: list[ProbeSeries]


class ComparisonOut(Loose):
    """A comparison without its per-conversation rows and transcripts (`/api/divergences` pages
    the divergences; `items` of each set here are only the first `divergences` of them)."""

    baseline: str
    labels: list[str]
    runs: list[Run]
    cards: list[Scorecard]
    matrix: list[MatrixRow]
    differences: list[Difference]
    noise_floors: dict[str, NoiseFloor]
    probes: list[dict[str, Any]]
    divergence_sets: list[dict[str, Any]]
    prose: str
    ci: dict[str, Any]
    run_ids: dict[str, str]
    calibrations: dict[str, CalibrationStatus]
    judge_warnings: dict[str, str | None] = Field(
        description="per card label, the warning of a fitted judge stored with `--force` that judged it, else null")


class DivergencesOut(BaseModel):
    """One page of the divergences between the baseline and one candidate, most divergent first."""

    a: str
    b: str
    total: int
    offset: int
    limit: int
    items: list[dict[str, Any]]


class PairView(Loose):
    """One scenario's conversations of two runs, aligned by turn, with the divergence marked."""

    scenario_id: str
    seed: int
    a: dict[str, Any]
    b: dict[str, Any]
    divergence: dict[str, Any] | None
    consequential: dict[str, Any] | None
    rows: list[dict[str, Any]]
    seeds: list[int]
    runs: dict[str, dict[str, str]]


class CurvePoint(BaseModel):
    """A finished sweep point placed on one parameter's axis."""

    label: str
    run_id: str
    value: Any
    others: str = Field(description="the point's other parameter values ('' when only this one varies)")
    mean_composite: float | None
    ci_low: float | None
    ci_high: float | None


class Curve(BaseModel):
    """The metric against one swept parameter; `base` is the base point (its value is the agent's own)."""

    parameter: str
    numeric: bool
    points: list[CurvePoint]
    base: CurvePoint | None


class SweepCurves(BaseModel):
    """A sweep's points against each swept parameter, with their 95% intervals."""

    name: str
    metric: str
    curves: list[Curve]

