"""A comparison with nothing to pair is not "within noise": its rows say `no pairs`, the verdict
blocks (nothing to compare), and every rendering says how many conversations of each run have no
pair (an interrupted run, other seeds or scenarios)."""

from __future__ import annotations

import html
import xml.etree.ElementTree as ET

from polygon_core.compare import ConfigurationResults, compare_configurations, paired_difference
from polygon_core.reports import comparison_html, comparison_markdown, junit_xml

from .compare_fixtures import configuration, row


def _disjoint() -> tuple[ConfigurationResults, ConfigurationResults]:
    """A baseline on scenarios a and b, seeds 0 and 1; a candidate on scenario c only (no shared key)."""
    base = configuration("v1", "run-a", "v1hash", [row(s, seed, 80.0) for s in ("a", "b") for seed in (0, 1)], False)
    cand = configuration("prod", "run-p", "v1hash", [row("c", 7, 60.0), row("c", 8, 62.0)], False)
    return base, cand


def test_a_difference_without_pairs_is_labelled_no_pairs() -> None:
    d = paired_difference([row("a", 0, 80.0)], [row("b", 0, 40.0)])
    assert (d.pairs, d.label, d.delta, d.ci_low) == (0, "no pairs", None, None)
    # One pair still draws no interval: that is within noise, not "no pairs".
    one = paired_difference([row("a", 0, 80.0)], [row("a", 0, 40.0)])
    assert (one.pairs, one.label, one.delta) == (1, "within noise", -40.0)


def test_a_candidate_sharing_no_scenario_and_seed_blocks_with_nothing_to_compare() -> None:
    base, cand = _disjoint()
    comp = compare_configurations([base, cand])
    assert comp.ci.exit_code == 1
    assert comp.ci.reasons == ["nothing to compare: prod and v1 share no scored scenario and seed"]
    assert {(d.metric, d.scope, d.label) for d in comp.differences} == {
        ("composite", "overall", "no pairs"), ("criterion:goal_completion", "overall", "no pairs"),
        ("criterion:safety_compliance", "overall", "no pairs"), ("composite", "scenario:a", "no pairs"),
        ("composite", "scenario:b", "no pairs"), ("composite", "scenario:c", "no pairs")}
    (p,) = comp.pairing
    assert (p.shared, p.baseline_unpaired, p.baseline_conversations, p.candidate_unpaired,
            p.candidate_conversations) == (0, 4, 4, 2, 2)


def test_a_candidate_with_no_scored_conversation_gets_one_reason_not_two() -> None:
    base, _ = _disjoint()
    unscored = [row("a", 0, 80.0).model_copy(update={"end_reason": "provider_error", "composite": None,
                                                      "verdict": None})]
    cand = configuration("broken", "run-b", "v2hash", unscored, False)
    comp = compare_configurations([base, cand])
    assert len(comp.ci.reasons) == 1 and comp.ci.reasons[0].startswith("broken: no scored conversation")


def test_part_paired_runs_count_their_unpaired_conversations() -> None:
    # As an interrupted candidate: 2 of the baseline's 4 (scenario, seed) stored.
    base = configuration("v1", "run-a", "v1hash", [row(s, seed, 80.0) for s in ("a", "b") for seed in (0, 1)], False)
    cand = configuration("v2", "run-b", "v2hash", [row("a", 0, 81.0), row("a", 1, 79.0)], False)
    comp = compare_configurations([base, cand])
    (p,) = comp.pairing
    assert (p.shared, p.baseline_unpaired, p.candidate_unpaired) == (2, 2, 0)
    assert comp.ci.exit_code == 0
    scenario_b = next(d for d in comp.differences if d.scope == "scenario:b")
    assert (scenario_b.pairs, scenario_b.label) == (0, "no pairs")
    line = "v2 vs v1: 2 (scenario, seed) pair(s); no pair for 2 of v1's 4 conversations and 0 of v2's 2"
    md = comparison_markdown(comp)
    assert f"Pairs: {line}" in md
    assert "| v2 | composite | scenario:b | 0 | — | — | no pairs |" in md
    assert f"<p class='muted'>Pairs: {html.escape(line)}</p>" in comparison_html(comp)
    root = ET.fromstring(junit_xml(comp))
    holder = root.find("testsuite[@name='comparison']/properties")
    assert holder is not None
    props = {p.get("name"): p.get("value") for p in holder}
    assert props == {"polygon.report_format": "1", "baseline": "v1", "pairs.v2": line}


def test_junit_fails_the_overall_composite_without_pairs() -> None:
    base, cand = _disjoint()
    comp = compare_configurations([base, cand])
    root = ET.fromstring(junit_xml(comp))
    case = next(c for c in root.iter("testcase") if c.get("name") == "composite (overall) vs v1")
    failure = case.find("failure")
    assert failure is not None and failure.get("type") == "nothing to compare"
    assert "over 0 pairs" in (failure.get("message") or "") and "no pairs" in (failure.get("message") or "")
    other = next(c for c in root.iter("testcase") if c.get("name") == "composite (scenario:a) vs v1")
    assert other.find("failure") is None
