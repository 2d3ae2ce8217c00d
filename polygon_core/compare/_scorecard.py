"""Scorecards: one configuration's results summarised, every number labelled with how it was made."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np
from pydantic import Field

from ..models import CALL_STACK_KEYS, DomainModel, InteractionMetric, ProbeAnswer
from ..probes import Polarity, conformance, wilson_interval
from ..voice import MetricSummary, summarise
from ._passk import pass_hat_k_by_seed
from ._resample import LARGE_SAMPLE, bootstrap_means, normal_interval, normal_method

_UNSCORED = {"provider_error", "simulator_error"}


class ResultRow(DomainModel):
    """One conversation's graded result, the unit every comparison works on."""

    conversation_id: str
    scenario_id: str
    seed: int
    caller_type: str
    difficulty: int
    end_reason: str
    composite: float | None = None
    verdict: str | None = None
    partial: bool = False
    gates: list[str] = Field(default_factory=list)
    criteria: dict[str, float | None] = Field(default_factory=dict)
    assertions_passed: bool | None = None
    policy_safe: bool | None = None
    tokens: int = 0
    tokens_estimated: bool = True
    latency_ms: float | None = Field(None, description="mean agent-turn latency; None when unknown")
    cost_usd: float | None = Field(None, description="None when no price is known (offline)")
    assertions: dict[str, str] = Field(default_factory=dict, description="name → pass/fail/error/…")
    assertion_turns: dict[str, int] = Field(default_factory=dict, description="name → turn that broke it")
    assertion_errors: dict[str, str] = Field(default_factory=dict,
                                             description="name → why it could not be evaluated (status error)")
    status: str | None = Field(None, description="judged | judge_error | agent_failure; None = no judgment")
    reason: str | None = Field(None, description="the judge's or the agent's failure")
    voice: dict[str, InteractionMetric] = Field(
        default_factory=dict, description="on a call: its interaction metrics (name → value, count); "
        "empty on a text conversation")
    voice_stack: dict[str, str] = Field(
        default_factory=dict, description="on a call: what its metrics were made with (`VoiceCall.made_with`: "
        "engines by role, conditions, cascade); empty on a text conversation or a call stored before it was kept")


class ProbeRate(DomainModel):
    """A probe's conformance with its Wilson 95% interval."""

    probe_id: str
    wording_hash: str
    polarity: str
    k: int
    n: int
    rate: float | None
    low: float | None
    high: float | None


class Scorecard(DomainModel):
    """One configuration's summary."""

    label: str
    run_id: str
    agent_version: str
    rubric_version: str
    judge_model: str
    models: dict[str, str] = Field(default_factory=dict)
    conversations: int
    scored: int
    mean_composite: float | None
    ci_low: float | None = None
    ci_high: float | None = None
    ci_method: str = "bootstrap over conversations, 2000 resamples, seed 0"
    verdicts: dict[str, int] = Field(default_factory=dict)
    gates: dict[str, int] = Field(default_factory=dict)
    criteria: dict[str, float | None] = Field(
        default_factory=dict, description="criterion -> mean 1-5 over the readable judgments that scored it "
        "(judge errors and broken calls are left out, as from the composite)")
    criteria_counts: dict[str, int] = Field(default_factory=dict,
                                            description="criterion -> the judgments its mean is over")
    judged: int = Field(0, description="readable judgments: the conversations the criterion means are over")
    resolution_rate: float | None = None
    resolution_ci: tuple[float, float] | None = Field(None, description="Wilson 95%")
    policy_safety_rate: float | None = None
    policy_safety_ci: tuple[float, float] | None = Field(None, description="Wilson 95%")
    pass_hat_k: dict[int, float] = Field(default_factory=dict, description="k → pass^k over seeds; empty for "
                                         "production calls, whose 'seeds' are different calls, not repeats")
    source: str = Field("synthetic", description="synthetic (simulated conversations) or production (real calls)")
    partial: int = 0
    provider_errors: int = 0
    simulator_errors: int = 0
    agent_failures: int = Field(0, description="broken calls (agent_error, or the agent never spoke): fail")
    agent_failure_reason: str | None = Field(None, description="the first broken call's reason")
    judge_errors: int = Field(0, description="conversations the judge failed on: not scored")
    judge_error_reason: str | None = Field(None, description="the first judge error's reason")
    probe_errors: int = Field(0, description="conversations the probe answerer failed on")
    probe_error_reason: str | None = None
    probes: list[ProbeRate] = Field(default_factory=list)
    tokens: int = 0
    tokens_estimated: bool = True
    latency_ms: float | None = Field(None, description="mean agent-turn latency over conversations")
    cost_usd: float | None = Field(None, description="None when any conversation's cost is unknown")
    noise_floor: float | None = Field(None, description="from repeated runs of this configuration")
    noise_floor_runs: list[str] = Field(default_factory=list)
    voice: dict[str, MetricSummary] = Field(
        default_factory=dict, description="the interaction panel of a run of calls: per call metric, the "
        "mean over the calls with a value, its 95% interval, those calls and their events "
        "(`polygon_core.voice.summarise`); empty for a run with no call")
    voice_stack: dict[str, str] = Field(
        default_factory=dict, description="what the panel's calls were made with (`call_stack`): per key "
        "(`CALL_STACK_KEYS`), the calls' value when they agree, else each value with its calls joined by ' | '; "
        "empty for a run with no call (or whose calls were stored before it was kept)")
    grader_warnings: list[str] = Field(
        default_factory=list, description="a judge or probe answerer that gave one value everywhere "
        "(`grader_warnings`): readable, and probably not reading the calls")


def bootstrap_ci(values: Sequence[float], *, seed: int = 0, resamples: int = 2000,
                 confidence: float = 0.95) -> tuple[float, float] | None:
    """Percentile bootstrap interval of the mean; None for fewer than two values.

    From `LARGE_SAMPLE` values on, the normal approximation (see `_resample`)."""
    if len(values) < 2:
        return None
    if len(values) >= LARGE_SAMPLE:
        return normal_interval(values, confidence)
    means = bootstrap_means(values, seed=seed, resamples=resamples)
    alpha = (1 - confidence) / 2
    return float(np.quantile(means, alpha)), float(np.quantile(means, 1 - alpha))


def _rate(flags: Sequence[bool | None]) -> float | None:
    known = [f for f in flags if f is not None]
    return sum(known) / len(known) if known else None


def _wilson(flags: Sequence[bool | None]) -> tuple[float, float] | None:
    known = [f for f in flags if f is not None]
    if not known:
        return None
    low, high = wilson_interval(sum(known), len(known))
    return round(low, 4), round(high, 4)


def probe_rates(answers: Sequence[ProbeAnswer]) -> list[ProbeRate]:
    """Conformance per (probe, wording hash)."""
    grouped: dict[tuple[str, str, Polarity], list[str]] = defaultdict(list)
    for a in answers:
        grouped[(a.probe_id, a.wording_hash, a.polarity)].append(a.answer)
    rates = []
    for (pid, wh, pol), values in sorted(grouped.items()):
        c = conformance(values, pol)
        rates.append(ProbeRate(probe_id=pid, wording_hash=wh, polarity=pol, k=c.k, n=c.n,
                               rate=c.rate, low=c.low, high=c.high))
    return rates


def _failures(rows: Sequence[ResultRow], answers: Sequence[ProbeAnswer]) -> dict[str, Any]:
    """Counts and first reasons of broken calls, judge errors and probe errors (nothing silent)."""
    broken = [r for r in rows if r.status == "agent_failure"]
    judge = [r for r in rows if r.status == "judge_error"]
    probe: dict[str, str] = {}
    for a in answers:
        if a.answer == "error":
            probe.setdefault(a.conversation_id, a.evidence or "the probe answerer failed")
    return {
        "agent_failures": len(broken), "agent_failure_reason": broken[0].reason if broken else None,
        "judge_errors": len(judge), "judge_error_reason": judge[0].reason if judge else None,
        "probe_errors": len(probe), "probe_error_reason": next(iter(probe.values()), None),
    }


def interaction_panel(rows: Sequence[ResultRow]) -> dict[str, MetricSummary]:
    """The interaction panel of the rows that are calls (see `Scorecard.voice`); empty without one.

    Means and bounds are rounded to 4 decimals, as the scorecard's other numbers.
    """
    calls = [r.voice for r in rows if r.voice]
    if not calls:
        return {}
    return {name: summary.model_copy(update={key: None if (v := getattr(summary, key)) is None else round(v, 4)
                                             for key in ("mean", "low", "high")})
            for name, summary in summarise(calls).items()}


NOT_RECORDED = "not recorded"
"""A call's value of a `voice_stack` key when the call was stored without it (before it was kept)."""


def call_stack(rows: Sequence[ResultRow]) -> dict[str, str]:
    """What the calls among `rows` were made with (see `Scorecard.voice_stack`), in `CALL_STACK_KEYS`'
    order (other keys after, by name): per key the value when every call agrees, else each value
    with its number of calls, most calls first, joined by " | " (`phone@0.5 (6) | street@0.5 (6)`).
    Empty without a call, or when no call's row kept it."""
    stacks = [r.voice_stack for r in rows if r.voice or r.voice_stack]
    if not any(stacks):
        return {}
    known = {key for stack in stacks for key in stack}
    keys = [k for k in CALL_STACK_KEYS if k in known] + sorted(known - set(CALL_STACK_KEYS))
    out: dict[str, str] = {}
    for key in keys:
        counts = Counter(stack.get(key, NOT_RECORDED) for stack in stacks)
        if len(counts) == 1:
            out[key] = next(iter(counts))
        else:
            out[key] = " | ".join(f"{value} ({n})" for value, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    return out


UNREADABLE = frozenset({"judge_error", "agent_failure"})
"""Row statuses whose criteria are not a judgment to average: the judge failed, or the call broke."""


def criterion_means(rows: Sequence[ResultRow]) -> tuple[dict[str, float | None], dict[str, int], int]:
    """Each criterion's mean over the readable judgments among `rows` (4 decimals), how many judgments
    each mean is over, and how many readable judgments there are. A judge error's criteria are left
    out: a run whose every judgment failed has no criterion mean (it showed 5.00 from the failures)."""
    readable = [r for r in rows if r.status not in UNREADABLE]
    criteria: dict[str, float | None] = {}
    counts: dict[str, int] = {}
    for name in sorted({k for r in rows for k in r.criteria}):
        vals = [v for r in readable if (v := r.criteria.get(name)) is not None]
        criteria[name] = round(float(np.mean(vals)), 4) if vals else None
        counts[name] = len(vals)
    return criteria, counts, sum(1 for r in readable if r.criteria)


# Fewest judged calls (or probed calls) on which one value everywhere is a warning, not chance.
CONSTANT_GRADER_MIN_CALLS = 5


def grader_warnings(rows: Sequence[ResultRow], answers: Sequence[ProbeAnswer]) -> list[str]:
    """A judge that gave one score to every criterion of every call it judged, and a probe answerer
    that said yes (or no) to every probe on every call, never na (at least `CONSTANT_GRADER_MIN_CALLS`
    calls, two probes; guardrails and wanted behaviours alike): readable, so not a judge error, but most likely not reading the calls (a small
    local model's 5 everywhere, docs/local-models.md). Nothing is changed: the warning is shown."""
    out: list[str] = []
    judged = [r for r in rows if r.status not in UNREADABLE and r.criteria]
    scores = {v for r in judged for v in r.criteria.values() if v is not None}
    if len(judged) >= CONSTANT_GRADER_MIN_CALLS and len(scores) == 1:
        out.append(f"the judge gave {next(iter(scores)):g} on every criterion of all {len(judged)} calls it "
                   "judged: it is probably not reading them (docs/local-models.md)")
    given = [a for a in answers if a.answer in ("yes", "no", "na")]
    if (len({a.conversation_id for a in given}) >= CONSTANT_GRADER_MIN_CALLS
            and len({a.probe_id for a in given}) >= 2 and {a.answer for a in given} in ({"yes"}, {"no"})):
        out.append(f"the probe answerer said {given[0].answer} to all {len(given)} probe questions on "
                   f"{len({a.conversation_id for a in given})} calls: it is probably not reading them")
    return out


def criterion_cell(card: Scorecard, name: str) -> str:
    """A criterion's mean as a scorecard shows it (2 decimals, — when none), with `(n=K)` when its
    count differs from the card's readable judgments (a criterion not applicable to some calls)."""
    mean = card.criteria.get(name)
    text = "—" if mean is None else f"{mean:.2f}"
    count = card.criteria_counts.get(name)
    return text if count is None or count == card.judged else f"{text} (n={count})"


def build_scorecard(label: str, run_id: str, agent_version: str, rubric_version: str,
                    judge_model: str, rows: Sequence[ResultRow], answers: Sequence[ProbeAnswer] = (),
                    models: dict[str, str] | None = None, source: str = "synthetic") -> Scorecard:
    """Summarise one configuration; provider and simulator errors are counted apart, never scored.
    pass^k is for repeated seeds of one scenario: a production run (`source`) has none."""
    agent_rows = [r for r in rows if r.end_reason not in _UNSCORED]
    scored = [r.composite for r in agent_rows if r.composite is not None]
    ci = bootstrap_ci(scored)
    criteria, counts, judged = criterion_means(agent_rows)
    verdicts = Counter(r.verdict for r in agent_rows if r.verdict)
    latencies = [r.latency_ms for r in rows if r.latency_ms is not None]
    costs = [r.cost_usd for r in rows]
    return Scorecard(
        label=label, run_id=run_id, agent_version=agent_version, rubric_version=rubric_version,
        judge_model=judge_model, models=dict(models or {}), conversations=len(rows),
        scored=len(scored), mean_composite=round(float(np.mean(scored)), 4) if scored else None,
        ci_low=round(ci[0], 4) if ci else None, ci_high=round(ci[1], 4) if ci else None,
        verdicts={k: verdicts.get(k, 0) for k in ("pass", "warn", "fail")},
        gates=dict(Counter(g for r in agent_rows for g in r.gates)),
        criteria=criteria, criteria_counts=counts, judged=judged,
        resolution_rate=_rate([r.assertions_passed for r in agent_rows]),
        resolution_ci=_wilson([r.assertions_passed for r in agent_rows]),
        policy_safety_rate=_rate([r.policy_safe for r in agent_rows]),
        policy_safety_ci=_wilson([r.policy_safe for r in agent_rows]),
        pass_hat_k=pass_hat_k_by_seed(agent_rows) if source == "synthetic" else {}, source=source,
        partial=sum(1 for r in agent_rows if r.partial),
        provider_errors=sum(1 for r in rows if r.end_reason == "provider_error"),
        simulator_errors=sum(1 for r in rows if r.end_reason == "simulator_error"),
        **_failures(agent_rows, answers),
        probes=probe_rates(answers), tokens=sum(r.tokens for r in rows),
        tokens_estimated=any(r.tokens_estimated for r in rows),
        latency_ms=round(float(np.mean(latencies)), 2) if latencies else None,
        ci_method=(normal_method(len(scored), "conversations") if len(scored) >= LARGE_SAMPLE
                   else Scorecard.model_fields["ci_method"].default),
        cost_usd=(round(sum(c for c in costs if c is not None), 6)
                  if rows and all(c is not None for c in costs) else None),
        voice=interaction_panel(agent_rows),
        voice_stack=call_stack(agent_rows),
        grader_warnings=grader_warnings(agent_rows, answers),
    )
