"""Call metrics compared noise-aware: the direction each is better in, and which block a change."""

from __future__ import annotations

from polygon_core.compare import (
    GATING_CALL_METRICS,
    ResultRow,
    build_scorecard,
    call_metric,
    ci_verdict,
    interaction_panel,
    label_difference,
    paired_difference,
)
from polygon_core.models import InteractionMetric
from polygon_core.voice import INTERACTION_METRICS


def _row(seed: int, **values: float | None) -> ResultRow:
    return ResultRow(conversation_id=f"c{seed}", scenario_id="s", seed=seed, caller_type="busy", difficulty=1,
                     end_reason="caller_hangup", composite=80.0, verdict="pass",
                     voice={name: InteractionMetric(value=v, count=0 if v is None else 2) for name, v in values.items()})


def test_lower_is_better_mirrors_the_labels() -> None:
    assert label_difference(0.5, (0.2, 0.8)) == "better"
    assert label_difference(0.5, (0.2, 0.8), higher_is_better=False) == "worse"
    assert label_difference(-0.5, (-0.8, -0.2), higher_is_better=False) == "better"
    assert label_difference(0.1, (-0.2, 0.4), higher_is_better=False) == "within noise"


def test_a_slower_candidate_is_worse_on_latency() -> None:
    base = [_row(s, response_latency=1.0 + s / 10) for s in range(4)]
    cand = [_row(s, response_latency=1.5 + s / 10) for s in range(4)]
    d = paired_difference(base, cand, metric=call_metric("response_latency"), metric_name="voice:response_latency",
                          higher_is_better=False)
    assert (d.pairs, d.baseline_mean, d.candidate_mean, d.delta, d.ci_low, d.ci_high, d.label) == (
        4, 1.15, 1.65, 0.5, 0.5, 0.5, "worse")


def test_a_call_without_a_value_does_not_pair() -> None:
    base = [_row(0, yield_rate=None), _row(1, yield_rate=1.0)]
    cand = [_row(0, yield_rate=0.5), _row(1, yield_rate=None)]
    d = paired_difference(base, cand, metric=call_metric("yield_rate"), metric_name="voice:yield_rate")
    assert (d.pairs, d.label) == (0, "no pairs")


def test_only_the_eight_interaction_metrics_block_a_change() -> None:
    assert GATING_CALL_METRICS == INTERACTION_METRICS and len(GATING_CALL_METRICS) == 8
    base = [_row(s, word_error_rate=0.1, agent_interruption_rate=0.0) for s in range(4)]
    cand = [_row(s, word_error_rate=0.3, agent_interruption_rate=0.5) for s in range(4)]
    diffs = [paired_difference(base, cand, baseline="a", candidate="b", metric=call_metric(n),
                               metric_name=f"voice:{n}", higher_is_better=False)
             for n in ("word_error_rate", "agent_interruption_rate")]
    assert [d.label for d in diffs] == ["worse", "worse"]
    verdict = ci_verdict("a", diffs, {"a": base, "b": cand})
    assert verdict.exit_code == 1
    assert verdict.reasons == ["b's calls are worse than a's beyond noise on agent_interruption_rate (lower is "
                               "better): +0.50 [0.50, 0.50] over 4 pairs"]


def test_the_panel_is_over_calls_and_empty_for_text() -> None:
    rows = [_row(0, response_latency=1.0), _row(1, response_latency=2.0), _row(2)]
    panel = interaction_panel(rows)
    latency = panel["response_latency"]
    # Two calls measured it: mean 1.5, t(0.975, 1) = 12.706 × 0.7071 / √2 = 6.353 either side, clipped at 0.
    assert (latency.mean, latency.low, latency.high, latency.calls, latency.events) == (1.5, 0.0, 7.8531, 2, 4)
    assert panel["yield_rate"].calls == 0 and panel["yield_rate"].mean is None
    text = [ResultRow(conversation_id="t", scenario_id="s", seed=0, caller_type="busy", difficulty=1,
                      end_reason="agent_end", composite=70.0)]
    assert interaction_panel(text) == {}
    assert build_scorecard("t", "r", "v", "v1", "j", text).voice == {}
    assert build_scorecard("c", "r", "v", "v1", "j", rows).voice == panel
