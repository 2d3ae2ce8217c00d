"""The Markdown report fits a GitHub comment (65,536 characters) at any size, with exact counts and
where the rest is; it carries the HTML report's scorecards and their charts in text (issue #32, item 11)."""

from __future__ import annotations

from polygon_core.compare import MatrixRow, PairDivergence, compare_configurations
from polygon_core.reports import GITHUB_COMMENT_LIMIT, comparison_markdown, passk_text

from .compare_fixtures import demo_pair

LONG = "I can help with that, let me look at the account and the charges from last month in detail. " * 4


def _pair(i: int) -> PairDivergence:
    scenario, seed = f"scn-{i // 2:04d}", i % 2
    if i % 5 == 0:  # 400 identical pairs
        return PairDivergence(scenario_id=scenario, seed=seed, turn=None, reasons=[])
    consequential = 3 if i % 5 == 1 else None  # 400 with a consequential turn
    return PairDivergence(scenario_id=scenario, seed=seed, turn=2 + i % 3, reasons=["wording"], a_text=LONG,
                          b_text=LONG[::-1], a_tools=["lookup_account"], consequential_turn=consequential,
                          consequential_reasons=["tool_calls"] if consequential else [],
                          consequential_a_text=LONG if consequential else None,
                          consequential_b_tools=["issue_refund"] if consequential else [])


def big_comparison():
    """The demo comparison grown to 2,000 (scenario, seed) pairs over 1,000 scenarios."""
    comp = compare_configurations(demo_pair())
    template = comp.matrix[0]
    matrix = [MatrixRow(scenario_id=f"scn-{i:04d}", cells=template.cells, spread=template.spread) for i in range(1000)]
    dset = comp.divergence_sets[0].model_copy(update={"items": [_pair(i) for i in range(2000)]})
    return comp.model_copy(update={"matrix": matrix, "divergence_sets": [dset]})


def test_a_2000_pair_comparison_fits_a_github_comment_with_exact_counts() -> None:
    md = comparison_markdown(big_comparison())
    assert len(md) < GITHUB_COMMENT_LIMIT == 65_536
    assert "2000 pair(s): 1600 divergent (400 with a consequential turn), 400 identical" in md
    assert "1560 more divergent pair(s) not listed here: the HTML report (`polygon compare ... -o report.html`) " \
           "and `--json` (`divergence_sets`) list every pair (runs `run-aaa111` `run-bbb222`)" in md
    assert "975 more scenario(s) of 1000 not listed here (smaller spread)" in md
    assert md.count("| identical |") == 0
    # Worst first: the 400 consequential pairs (consequential turn 3) lead, the earliest first turn next.
    table = md.split("(worst first)", 1)[1]
    first = [line for line in table.splitlines() if line.startswith("| scn-")][:2]
    assert [line.split(" | ")[:3] for line in first] == [["| scn-0003", "0", "2"], ["| scn-0010", "1", "2"]]
    assert "_Report cut" not in md  # the bounded sections fit without the last-resort cut


def test_even_an_enormous_analysis_and_many_candidates_stay_under_the_limit() -> None:
    comp = big_comparison()
    sets = [comp.divergence_sets[0].model_copy(update={"b": f"v{i}"}) for i in range(30)]
    md = comparison_markdown(comp.model_copy(update={"divergence_sets": sets, "prose": "word " * 100_000}))
    assert len(md) < GITHUB_COMMENT_LIMIT
    assert md.endswith("_Report cut to fit a pull-request comment: the HTML report and `--json` hold all of it._\n")


def test_the_markdown_carries_the_scorecards_and_their_charts() -> None:
    md = comparison_markdown(compare_configurations(demo_pair()))
    assert "| pass / warn / fail | 8 / 0 / 0 | 4 / 0 / 4 |" in md
    assert "| pass^k over seeds | k=1 1.00, k=2 1.00 | k=1 0.50, k=2 0.50 |" in md
    assert "v1  verdicts ████████████████████ pass 8 · warn 0 · fail 0\n    pass^k   ██ (k=1…2)" in md
    assert "v2  verdicts ██████████░░░░░░░░░░ pass 4 · warn 0 · fail 4\n    pass^k   ▅▅ (k=1…2)" in md


def test_pass_k_shows_a_few_values_and_the_last() -> None:
    values = {k: 1 / k for k in range(1, 335)}
    assert passk_text(values) == "k=1 1.00, k=2 0.50, k=3 0.33, k=4 0.25, … k=334 0.00 (334 values; --json lists all)"
    assert passk_text({1: 0.5, 2: 0.25}) == "k=1 0.50, k=2 0.25"
    assert passk_text({}) == "—"
