"""The short comparison printed after `polygon run`/`demo`: rows within noise and identical pairs are
counted, seeds that part alike share a row; `polygon compare` keeps every row."""

from __future__ import annotations

from rich.console import Console

from polygon.cli._render import differences_table, divergence_table
from polygon_core.compare import Difference, PairDivergence


def _text(table: object) -> str:
    console = Console(width=200, record=True)
    console.print(table)
    return console.export_text()


def _diff(metric: str, scope: str, label: str) -> Difference:
    return Difference(metric=metric, scope=scope, baseline="a", candidate="b", pairs=2, baseline_mean=5.0,
                      candidate_mean=4.0, delta=-1.0, ci_low=-2.0, ci_high=0.5, label=label)


def test_compact_differences_keep_the_overall_composite_and_rows_beyond_noise() -> None:
    diffs = [_diff("composite", "overall", "within noise"), _diff("criterion:factuality", "overall", "within noise"),
             _diff("criterion:safety_compliance", "overall", "worse"), _diff("composite", "scenario: x", "better"),
             _diff("composite", "scenario: y", "within noise")]
    short, full = _text(differences_table(diffs, compact=True)), _text(differences_table(diffs))
    assert "criterion:safety_compliance" in short and "scenario: x" in short and "composite" in short
    assert "criterion:factuality" not in short and "scenario: y" not in short
    assert "2 more row(s) within noise" in short
    assert "criterion:factuality" in full and "scenario: y" in full and "more row(s)" not in full


def test_compact_divergences_group_seeds_and_count_identical_pairs() -> None:
    def part(scenario: str, seed: int, turn: int | None, text: str = "hello") -> PairDivergence:
        return PairDivergence(scenario_id=scenario, seed=seed, turn=turn, reasons=["wording"] if turn else [],
                              a_text=text, b_text="bye")

    divs = [part("s1", 0, 2), part("s1", 1, 2, "hello again"), part("s1", 2, 3), part("s2", 0, None),
            part("s2", 1, None)]
    short = _text(divergence_table(divs, "a", "b", compact=True))
    rows = [line for line in short.splitlines() if line.startswith("│ s1")]
    assert [r.split("│")[2].strip() for r in rows] == ["0, 1", "2"]
    words = " ".join(short.split())  # the caption wraps at the table's width
    assert "2 identical pair(s) not listed" in words and "│ identical" not in short
    full = _text(divergence_table(divs, "a", "b"))
    assert full.count("identical") == 2 and "hello again" in full
