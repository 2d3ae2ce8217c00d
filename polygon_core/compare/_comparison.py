"""A whole comparison of configurations, assembled from results already loaded (pure).

The adapters load runs, result rows, probe answers, transcripts and judgments from the stores and
hand them here as `ConfigurationResults`; everything a report shows (scorecards with noise floors,
the matrix, divergences, noise-aware differences, the written analysis, the CI verdict) is computed
in one place so the terminal, JSON, JUnit, HTML and Prefect renderings never disagree.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import Field

from ..models import REPORT_FORMAT, Conversation, DomainModel, Judgment, ProbeAnswer, Run
from ..voice import HIGHER_IS_BETTER, INTERACTION_METRICS
from ._analysis import systematic_summary, template_prose
from ._facts import ConversationFacts, facts_of
from ._matrix import MatrixRow, scenario_matrix
from ._noise import Difference, NoiseFloor, call_metric, criterion, noise_floor, paired_difference
from ._pairs import PairDivergence, pair_divergences
from ._scorecard import ProbeRate, ResultRow, Scorecard


class ComparisonRefused(ValueError):
    """Results that must not be compared (e.g. judged under different rubric versions)."""


class ConfigurationResults(DomainModel):
    """One run's loaded results: the input of `compare_configurations`."""

    label: str
    run: Run
    card: Scorecard
    rows: list[ResultRow]
    answers: list[ProbeAnswer] = Field(default_factory=list)
    conversations: list[Conversation] = Field(default_factory=list)
    judgments: list[Judgment] = Field(default_factory=list)
    facts: ConversationFacts | None = Field(
        None, description="every conversation's report facts, when the adapter streamed them; else "
                          "derived from `conversations` and `judgments`")


class DivergenceSet(DomainModel):
    """The divergences of every shared (scenario, seed) between two configurations."""

    a: str
    b: str
    items: list[PairDivergence]


class ProbeComparison(DomainModel):
    """One probe across configurations; not comparable when its wording hash differs."""

    probe_id: str
    rates: dict[str, ProbeRate | None]
    wording_hashes: dict[str, list[str]]
    comparable: bool


class PairCount(DomainModel):
    """How a candidate's conversations pair with the baseline's by (scenario, seed), over every result row."""

    baseline: str
    candidate: str
    shared: int = Field(description="(scenario, seed) keys both runs have a conversation of")
    baseline_unpaired: int = Field(description="baseline conversations whose (scenario, seed) the candidate lacks")
    candidate_unpaired: int = Field(description="candidate conversations whose (scenario, seed) the baseline lacks")
    baseline_conversations: int
    candidate_conversations: int


class CiVerdict(DomainModel):
    """What `polygon compare` exits with: 1 to block a change, 0 to let it through."""

    exit_code: int
    reasons: list[str] = Field(default_factory=list)


class Comparison(DomainModel):
    """Everything a comparison report shows."""

    baseline: str
    labels: list[str]
    runs: list[Run]
    cards: list[Scorecard]
    matrix: list[MatrixRow]
    divergence_sets: list[DivergenceSet]
    differences: list[Difference]
    noise_floors: dict[str, NoiseFloor]
    probes: list[ProbeComparison]
    summary: dict[str, Any]
    prose: str
    ci: CiVerdict
    rows: dict[str, list[ResultRow]]
    pairing: list[PairCount] = Field(
        default_factory=list, description="per candidate, its conversations and the baseline's with no pair")
    conversations: dict[str, list[Conversation]] = Field(
        default_factory=dict, description="transcripts kept for reports; a large run keeps a bounded few")
    judgments: dict[str, list[Judgment]] = Field(default_factory=dict)
    facts: dict[str, ConversationFacts] = Field(default_factory=dict)

    @property
    def divergences(self) -> dict[tuple[str, str], list[PairDivergence]]:
        """(a, b) → divergences, the shape earlier callers used."""
        return {(s.a, s.b): s.items for s in self.divergence_sets}

    def report_json(self) -> dict[str, Any]:
        """The comparison as plain JSON, without transcripts, raw judgments and their facts (they live in the stores),
        led by the report format it is written in (`format_version`, `REPORT_FORMAT`)."""
        return {"format_version": REPORT_FORMAT,
                **self.model_dump(mode="json", exclude={"conversations", "judgments", "facts"})}


def config_key(run: Run) -> tuple[str, str, tuple[tuple[str, str], ...]]:
    """What makes two runs repeats of one configuration: agent version, rubric and models."""
    return run.agent_version, run.rubric_version, tuple(sorted(run.models.items()))


def compare_probes(cards: Sequence[Scorecard]) -> list[ProbeComparison]:
    """Each probe's rate per configuration; comparable only while every wording hash is equal."""
    ids = sorted({p.probe_id for c in cards for p in c.probes})
    out = []
    for pid in ids:
        rates: dict[str, ProbeRate | None] = {}
        hashes: dict[str, list[str]] = {}
        for card in cards:
            mine = [p for p in card.probes if p.probe_id == pid]
            rates[card.label] = mine[0] if len(mine) == 1 else None
            hashes[card.label] = sorted({p.wording_hash for p in mine})
        distinct = {h for hs in hashes.values() for h in hs}
        out.append(ProbeComparison(probe_id=pid, rates=rates, wording_hashes=hashes,
                                   comparable=len(distinct) <= 1))
    return out


def compare_configurations(configs: Sequence[ConfigurationResults], baseline: str | None = None,
                           *, seed: int = 0,
                           divergences: Mapping[str, list[PairDivergence]] | None = None) -> Comparison:
    """Compare configurations against a baseline (default: the first).

    `divergences` (candidate label → the baseline-vs-candidate pairs, from `pair_divergence`) are
    used as given when a caller streamed the transcripts pair by pair instead of passing them in.

    Raises `ComparisonRefused` when the configurations were judged under different rubric versions
    (the message names every version and run), or when `baseline` names no configuration.
    """
    if not configs:
        raise ComparisonRefused("nothing to compare")
    # The version each configuration's results were judged under (a rescored run's may not be its own).
    versions = sorted({c.card.rubric_version for c in configs})
    if len(versions) > 1:
        detail = ", ".join(f"{c.run.id}: {c.card.rubric_version}" for c in configs)
        raise ComparisonRefused(
            f"cannot compare runs judged under different rubric versions ({' and '.join(versions)}): "
            f"{detail}; re-score them under one version first")
    by_label = {c.label: c for c in configs}
    if baseline is None:
        baseline = configs[0].label
    if baseline not in by_label:
        raise ComparisonRefused(f"baseline {baseline!r} is not among the compared runs")

    groups: dict[Any, list[ConfigurationResults]] = defaultdict(list)
    for c in configs:
        groups[config_key(c.run)].append(c)
    floors: dict[str, NoiseFloor] = {}
    for members in groups.values():
        floor = noise_floor([(m.run.id, m.rows) for m in members])
        if floor is not None:
            for m in members:
                floors[m.label] = floor
    cards = [c.card.model_copy(update={"noise_floor": floors[c.label].value if c.label in floors else None,
                                       "noise_floor_runs": floors[c.label].runs if c.label in floors else []})
             for c in configs]
    floor_of = {label: f.value for label, f in floors.items()}

    base = by_label[baseline]
    differences: list[Difference] = []
    divergence_sets: list[DivergenceSet] = []
    for cand in configs:
        if cand.label == baseline:
            continue
        pair_floor = max(floor_of.get(baseline, 0.0), floor_of.get(cand.label, 0.0))
        kw: dict[str, Any] = dict(baseline=baseline, candidate=cand.label, seed=seed)
        differences.append(paired_difference(base.rows, cand.rows, noise_floor=pair_floor, **kw))
        for name in sorted({k for r in [*base.rows, *cand.rows] for k in r.criteria}):
            differences.append(paired_difference(base.rows, cand.rows, metric=criterion(name),
                                                 metric_name=f"criterion:{name}", **kw))
        differences += _call_differences(base.rows, cand.rows, kw)
        # Grouped once, not filtered per scenario: thousands of scenarios stay linear in the rows.
        base_by, cand_by = _by_scenario(base.rows), _by_scenario(cand.rows)
        for sid in sorted(set(base_by) | set(cand_by)):
            differences.append(paired_difference(
                base_by.get(sid, []), cand_by.get(sid, []), scope=f"scenario:{sid}", noise_floor=pair_floor, **kw))
        items = (divergences[cand.label] if divergences is not None and cand.label in divergences
                 else pair_divergences(base.conversations, cand.conversations))
        divergence_sets.append(DivergenceSet(a=baseline, b=cand.label, items=items))

    rows = {c.label: c.rows for c in configs}
    summary = systematic_summary(baseline, rows, {c.label: c.probes for c in cards}, floor_of, seed=seed)
    return Comparison(
        baseline=baseline, labels=[c.label for c in configs], runs=[c.run for c in configs], cards=cards,
        matrix=scenario_matrix(rows), divergence_sets=divergence_sets, differences=differences,
        noise_floors=floors, probes=compare_probes(cards), summary=summary, prose=template_prose(summary),
        ci=ci_verdict(baseline, differences, rows, cards), rows=rows,
        pairing=[pair_count(baseline, base.rows, c.label, c.rows) for c in configs if c.label != baseline],
        conversations={c.label: c.conversations for c in configs},
        judgments={c.label: c.judgments for c in configs},
        facts={c.label: c.facts if c.facts is not None else facts_of(c.conversations, c.judgments) for c in configs},
    )


CALL_METRIC_PREFIX = "voice:"
"""A call metric's difference is named `voice:<metric>` (`voice:response_latency`)."""


def _call_differences(base: Sequence[ResultRow], cand: Sequence[ResultRow], kw: dict[str, Any]) -> list[Difference]:
    """Overall paired differences of the call metrics either side measured, each labelled by its
    direction (`HIGHER_IS_BETTER`: lower latency is better); none between runs of text."""
    measured = {name for r in [*base, *cand] for name, m in r.voice.items() if m.value is not None}
    return [paired_difference(base, cand, metric=call_metric(name), metric_name=f"{CALL_METRIC_PREFIX}{name}",
                              higher_is_better=HIGHER_IS_BETTER.get(name, True), **kw)
            for name in HIGHER_IS_BETTER if name in measured]


def _by_scenario(rows: Sequence[ResultRow]) -> dict[str, list[ResultRow]]:
    grouped: dict[str, list[ResultRow]] = defaultdict(list)
    for r in rows:
        grouped[r.scenario_id].append(r)
    return grouped


def pair_count(baseline: str, base: Sequence[ResultRow], candidate: str, cand: Sequence[ResultRow]) -> PairCount:
    """How many (scenario, seed) keys two runs share, and how many conversations of each have none
    in the other (an interrupted run, other seeds or scenarios): the pairs a difference can use at most."""
    a, b = {(r.scenario_id, r.seed) for r in base}, {(r.scenario_id, r.seed) for r in cand}
    return PairCount(baseline=baseline, candidate=candidate, shared=len(a & b),
                     baseline_unpaired=sum((r.scenario_id, r.seed) not in b for r in base),
                     candidate_unpaired=sum((r.scenario_id, r.seed) not in a for r in cand),
                     baseline_conversations=len(base), candidate_conversations=len(cand))


def _unjudged(baseline: str, cards: Sequence[Scorecard]) -> list[str]:
    # A comparison is only as good as its judgments: a judge that failed, or a candidate with
    # nothing scored, must not read as "no worse".
    reasons = []
    for card in cards:
        if card.judge_errors:
            reasons.append(f"{card.label}: judge {card.judge_model} failed on {card.judge_errors} of "
                           f"{card.conversations} conversations: {card.judge_error_reason}")
        if card.label != baseline and card.scored == 0:
            reasons.append(f"{card.label}: no scored conversation ({card.conversations} conversations, "
                           f"{card.agent_failures} broken, {card.judge_errors} judge errors, "
                           f"{card.provider_errors + card.simulator_errors} provider or simulator errors)")
    return reasons


GATING_CALL_METRICS: tuple[str, ...] = INTERACTION_METRICS
"""The call metrics whose difference worse beyond noise blocks a change, as the composite's does:
tau-voice's eight interaction metrics. The call's other numbers (time to first audio, longest
silence, word error rate, percentiles) are compared and reported, never gating."""


def ci_verdict(baseline: str, differences: Sequence[Difference],
               rows: dict[str, list[ResultRow]], cards: Sequence[Scorecard] = ()) -> CiVerdict:
    """Exit 1 when a candidate's composite, or one of its calls' interaction metrics
    (`GATING_CALL_METRICS`), is worse beyond noise, any gate fired in a candidate, a candidate has no
    scored conversation or shares no scored (scenario, seed) with the baseline (nothing to compare
    is not "no worse"), or a judge failed on any run."""
    reasons = _unjudged(baseline, cards)
    unscored = {c.label for c in cards if c.label != baseline and c.scored == 0}  # already a reason above
    for d in differences:
        if (d.metric == "composite" and d.scope == "overall" and d.label == "no pairs"
                and d.candidate not in unscored):
            reasons.append(f"nothing to compare: {d.candidate} and {baseline} share no scored scenario and seed")
        if d.metric == "composite" and d.scope == "overall" and d.label == "worse":
            reasons.append(f"{d.candidate} is worse than {baseline} beyond noise: "
                           f"{d.delta:+.1f} points [{d.ci_low:.1f}, {d.ci_high:.1f}] over {d.pairs} pairs")
        name = d.metric.removeprefix(CALL_METRIC_PREFIX)
        if d.metric.startswith(CALL_METRIC_PREFIX) and name in GATING_CALL_METRICS and d.label == "worse":
            better = "higher" if HIGHER_IS_BETTER[name] else "lower"
            reasons.append(f"{d.candidate}'s calls are worse than {baseline}'s beyond noise on {name} "
                           f"({better} is better): {d.delta:+.2f} [{d.ci_low:.2f}, {d.ci_high:.2f}] over "
                           f"{d.pairs} pairs")
    for label, mine in rows.items():
        if label == baseline:
            continue
        fired: dict[str, int] = defaultdict(int)
        for r in mine:
            for g in r.gates:
                fired[g] += 1
        if fired:
            reasons.append(f"{label}: gates fired ({', '.join(f'{g} ×{n}' for g, n in sorted(fired.items()))})")
    return CiVerdict(exit_code=1 if reasons else 0, reasons=reasons)
