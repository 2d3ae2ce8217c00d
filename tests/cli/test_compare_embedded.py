"""Which transcripts a compare report embeds (polygon/usecases/_compare.py `_embedded`), with
three or more runs: the baseline's cap is shared among the candidates."""

from __future__ import annotations

from polygon.usecases._compare import _embedded
from polygon_core.compare import ConfigurationResults, PairDivergence, ResultRow


def _config(label: str, failing: tuple[int, ...] = ()) -> ConfigurationResults:
    rows = [ResultRow(conversation_id=f"{label}{seed}", scenario_id="s", seed=seed, caller_type="calm",
                      difficulty=1, end_reason="hangup", verdict="fail" if seed in failing else "pass")
            for seed in range(8)]
    # Only the label and the rows are read: the run and its scorecard are left out.
    return ConfigurationResults.model_construct(label=label, rows=rows)  # type: ignore[call-arg]


def _divergent(*seeds: int) -> list[PairDivergence]:
    return [PairDivergence(scenario_id="s", seed=seed, turn=2, reasons=["text"]) for seed in seeds]


def test_the_first_candidate_cannot_use_up_the_baselines_cap() -> None:
    configs = [_config("A"), _config("B"), _config("C")]
    chosen = _embedded(configs, {"B": _divergent(0, 1, 2, 3), "C": _divergent(4, 5, 6, 7)}, "A", cap=4)
    # Half the baseline's 4 for B's pairs, the rest for C's: both sides of two pairs each.
    assert chosen == {"A": ["A0", "A1", "A4", "A5"], "B": ["B0", "B1", "B2", "B3"], "C": ["C0", "C1", "C4", "C5"]}


def test_a_share_left_unused_goes_to_the_next_candidate() -> None:
    configs = [_config("A"), _config("B"), _config("C")]
    chosen = _embedded(configs, {"B": _divergent(0), "C": _divergent(4, 5, 6, 7)}, "A", cap=4)
    assert chosen == {"A": ["A0", "A4", "A5", "A6"], "B": ["B0", "B1", "B2", "B3"], "C": ["C0", "C4", "C5", "C6"]}


def test_a_pair_whose_baseline_side_is_chosen_costs_the_full_baseline_nothing() -> None:
    # D's failing seed 7 would come first among its fill; its divergent pairs come before that.
    configs = [_config("A"), _config("B"), _config("C"), _config("D", failing=(7,))]
    divergences = {"B": _divergent(0), "C": _divergent(1), "D": _divergent(0, 1)}
    chosen = _embedded(configs, divergences, "A", cap=2)
    assert chosen == {"A": ["A0", "A1"], "B": ["B0", "B1"], "C": ["C0", "C1"], "D": ["D0", "D1"]}


def test_one_candidate_may_use_the_whole_cap() -> None:
    configs = [_config("A"), _config("B", failing=(6,))]
    chosen = _embedded(configs, {"B": _divergent(1, 2, 3, 4, 5)}, "A", cap=4)
    assert chosen == {"A": ["A1", "A2", "A3", "A4"], "B": ["B1", "B2", "B3", "B4"]}


def test_divergent_pairs_where_a_side_fails_come_first() -> None:
    # Seed 5 fails in B: its pair is taken before seed 4's, which the cap of 4 then leaves out.
    chosen = _embedded([_config("A"), _config("B", failing=(5,))], {"B": _divergent(1, 2, 3, 4, 5)}, "A", cap=4)
    assert chosen == {"A": ["A1", "A2", "A3", "A5"], "B": ["B1", "B2", "B3", "B5"]}


def test_with_no_divergent_pair_failing_conversations_come_before_the_rest() -> None:
    # A single run of 8 over a cap of 2: the failing seed 7, then seed 0 by (scenario, seed).
    assert _embedded([_config("A", failing=(7,))], {}, "A", cap=2) == {"A": ["A0", "A7"]}
