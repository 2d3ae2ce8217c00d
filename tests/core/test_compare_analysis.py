"""Comparison assembly, consequential divergence, the deterministic summary and the prose built from it."""

from __future__ import annotations

import pytest

from polygon_core.compare import (
    ComparisonRefused,
    compare_configurations,
    consequential_divergence,
    divergence_point,
    prose_numbers,
    template_prose,
    unsupported_numbers,
)

from .compare_fixtures import careful_turns, configuration, demo_pair, hasty_turns, row


def test_divergence_point_is_the_wording_and_consequential_is_the_refund() -> None:
    a, b = careful_turns(), hasty_turns()
    first = divergence_point(a, b)
    assert first is not None and (first.turn, first.reasons) == (2, ("wording",))
    cons = consequential_divergence(a, b)
    assert cons is not None and (cons.turn, cons.reasons) == (4, ("tool_calls",))
    assert cons.b_turn.tool_calls[0].name == "issue_refund"
    assert consequential_divergence(a, careful_turns()) is None
    assert consequential_divergence(a, a[:4]) .turn == 4  # one side ended


def test_comparison_of_the_pair() -> None:
    comp = compare_configurations(demo_pair())
    assert comp.baseline == "v1" and comp.labels == ["v1", "v2"]
    overall = next(d for d in comp.differences if d.metric == "composite" and d.scope == "overall")
    assert (overall.pairs, overall.delta, overall.label) == (8, -20.0, "worse")
    assert comp.matrix[0].scenario_id == "scn-0" and comp.matrix[0].spread == 40.0
    (dset,) = comp.divergence_sets
    first = next(d for d in dset.items if d.scenario_id == "scn-0" and d.seed == 0)
    assert (first.turn, first.consequential_turn, first.consequential_b_tools) == (
        2, 4, ["issue_refund(amount=49.0)"])
    assert comp.ci.exit_code == 1
    assert comp.ci.reasons == ["v2 is worse than v1 beyond noise: -20.0 points [-35.0, -5.0] over 8 pairs",
                               "v2: gates fired (safety ×4)"]
    assert compare_configurations(demo_pair()[::-1], "v2").ci.exit_code == 0  # v1 is better, no gates


def test_summary_groups_and_exact_values() -> None:
    summary = compare_configurations(demo_pair()).summary
    (comp,) = summary["comparisons"]
    assert comp["overall"] == {"pairs": 8, "baseline_mean": 100.0, "candidate_mean": 80.0, "delta": -20.0,
                               "ci_low": -35.0, "ci_high": -5.0, "label": "worse"}
    assert [(e["caller_type"], e["delta"]) for e in comp["by_caller_type"]] == [("aggressive", -20.0), ("busy", -20.0)]
    assert [(e["difficulty"], e["pairs"]) for e in comp["by_difficulty"]] == [(2, 4), (3, 4)]
    assert comp["by_criterion"][0] == {"criterion": "safety_compliance", "pairs": 8, "baseline_mean": 5.0,
                                       "candidate_mean": 3.0, "delta": -2.0, "label": "worse"}
    assert comp["by_gate"] == [{"gate": "safety", "baseline": 0, "candidate": 4}]
    assert comp["by_assertion"] == [{"assertion": "no_policy_breach", "baseline_passed": 8, "baseline_n": 8,
                                     "candidate_passed": 4, "candidate_n": 8}]
    assert comp["by_probe"] == [{"probe": "verified_identity_before_action", "comparable": True,
                                 "polarity": "wanted", "baseline_rate": 1.0, "candidate_rate": 0.5,
                                 "baseline_n": 8, "candidate_n": 8, "delta": -0.5}]


def test_prose_holds_no_number_that_is_not_in_the_summary() -> None:
    for pair in (demo_pair(), demo_pair()[::-1], demo_pair("w2")):
        comp = compare_configurations(pair)
        prose = template_prose(comp.summary)
        assert prose == comp.prose
        assert len(prose_numbers(prose)) >= 10
        assert unsupported_numbers(prose, comp.summary) == []
    comp = compare_configurations(demo_pair())
    assert "-20.0 points over 8 paired conversations" in comp.prose
    assert "safety fired 4 times against 0" in comp.prose
    assert unsupported_numbers(comp.prose + " Roughly 37.5 more callers were unhappy.", comp.summary) == [37.5]


def test_number_extraction_ignores_identifiers() -> None:
    assert prose_numbers("billing-dispute-v3 on agent@2e8e97 moved -21.9 (95% CI), 4 of 8.") == [-21.9, 95.0, 4.0, 8.0]


def test_probe_with_changed_wording_is_not_comparable() -> None:
    comp = compare_configurations(demo_pair(wording_b="w2"))
    (probe,) = comp.probes
    assert probe.comparable is False and probe.wording_hashes == {"v1": ["w1"], "v2": ["w2"]}
    assert comp.summary["comparisons"][0]["by_probe"] == [
        {"probe": "verified_identity_before_action", "comparable": False, "reason": "wording changed"}]
    assert "Not comparable (probe wording changed between runs): verified_identity_before_action" in comp.prose
    assert compare_configurations(demo_pair()).probes[0].comparable is True


def test_mixed_rubric_versions_are_refused_naming_both() -> None:
    v1, _ = demo_pair()
    other = configuration("v1-under-v2", "run-ccc333", "ver1", v1.rows, hasty=False, rubric="v2")
    with pytest.raises(ComparisonRefused, match=r"different rubric versions \(v1 and v2\).*run-aaa111: v1.*run-ccc333: v2"):
        compare_configurations([v1, other])


def test_repeated_runs_give_a_noise_floor_and_compare_within_noise() -> None:
    v1, _ = demo_pair()
    again = configuration("v1 again", "run-ddd444", "ver1", [r.model_copy() for r in v1.rows], hasty=False)
    comp = compare_configurations([v1, again])
    assert [c.noise_floor for c in comp.cards] == [0.0, 0.0]
    assert comp.cards[0].noise_floor_runs == ["run-aaa111", "run-ddd444"]
    overall = next(d for d in comp.differences if d.metric == "composite" and d.scope == "overall")
    assert overall.label == "within noise" and comp.ci.exit_code == 0


def test_missing_scenario_is_incomparable_in_the_matrix() -> None:
    v1, v2 = demo_pair()
    v2 = v2.model_copy(update={"rows": [r for r in v2.rows if r.scenario_id != "scn-3"]})
    comp = compare_configurations([v1, v2])
    last = comp.matrix[-1]
    assert last.scenario_id == "scn-3" and last.incomparable and last.cells["v2"] is None and last.spread is None
    assert row("x", 0, 10.0).verdict == "fail"
