"""Issue 33 item 4: a scorecard's criterion means are over readable judgments only, and say how many.
A run whose every judgment was a judge error showed `dialogue_quality 5.00 … tool_use_quality 5.00`
under "mean composite —"."""

from __future__ import annotations

from rich.console import Console

from polygon.cli._render import scorecards_table
from polygon_core.compare import ResultRow, build_scorecard, criterion_cell
from polygon_core.reports import scorecard_markdown


def _row(cid: str, status: str, composite: float | None, **criteria: float | None) -> ResultRow:
    return ResultRow(conversation_id=cid, scenario_id="s", seed=int(cid[-1]), caller_type="busy", difficulty=2,
                     end_reason="agent_end", composite=composite, status=status, criteria=criteria,
                     verdict="fail" if composite is None else "warn")


def _text(card_rows: list[ResultRow]) -> dict[str, str]:
    """The CLI's scorecard table as metric -> cell."""
    card = build_scorecard("a@1", "run-a", "1", "v1", "offline-heuristic", card_rows)
    console = Console(width=200, record=True)
    console.print(scorecards_table([card]))
    cells = [line.strip("│ ").split("│") for line in console.export_text().splitlines() if line.startswith("│")]
    return {c[0].strip(): c[1].strip() for c in cells if len(c) == 2}


def test_judge_errors_are_left_out_of_the_criterion_means_and_the_counts_say_so() -> None:
    rows = [_row("c1", "judged", 60.0, goal_completion=2.0, factuality=4.0),
            _row("c2", "judged", 80.0, goal_completion=4.0, factuality=None),
            _row("c3", "judge_error", None, goal_completion=5.0, factuality=5.0)]
    card = build_scorecard("a@1", "run-a", "1", "v1", "offline-heuristic", rows)
    assert card.criteria == {"factuality": 4.0, "goal_completion": 3.0}
    assert card.criteria_counts == {"factuality": 1, "goal_completion": 2} and card.judged == 2
    assert criterion_cell(card, "goal_completion") == "3.00"
    assert criterion_cell(card, "factuality") == "4.00 (n=1)"
    shown = _text(rows)
    assert shown["criterion means over"] == "2 judgments"
    assert shown["goal_completion"] == "3.00" and shown["factuality"] == "4.00 (n=1)"


def test_a_run_whose_every_judgment_failed_has_no_criterion_mean() -> None:
    rows = [_row(f"c{i}", "judge_error", None, goal_completion=5.0, dialogue_quality=5.0) for i in range(3)]
    card = build_scorecard("a@1", "run-a", "1", "v1", "offline-heuristic", rows)
    assert card.mean_composite is None and card.judge_errors == 3
    assert card.criteria == {"dialogue_quality": None, "goal_completion": None}
    assert card.criteria_counts == {"dialogue_quality": 0, "goal_completion": 0} and card.judged == 0
    shown = _text(rows)
    assert shown["criterion means over"] == "0 judgments"
    assert shown["goal_completion"] == shown["dialogue_quality"] == "—"
    markdown = scorecard_markdown(card)
    assert "| criterion goal_completion | — | mean 1–5 over 0 judgments |" in markdown


def test_a_clean_run_shows_no_count_row() -> None:
    rows = [_row("c1", "judged", 60.0, goal_completion=2.0), _row("c2", "judged", 70.0, goal_completion=3.0)]
    assert "criterion means over" not in _text(rows)


def test_a_production_runs_card_has_no_pass_hat_k() -> None:
    """Issue 33 item 5: pass^k is over repeated seeds of a scenario; real calls are not repeats."""
    rows = [_row("c1", "judged", 60.0, goal_completion=2.0), _row("c2", "judged", 90.0, goal_completion=5.0)]
    synthetic = build_scorecard("a@1", "run-a", "1", "v1", "offline-heuristic", rows)
    production = build_scorecard("a@1", "run-p", "1", "v1", "offline-heuristic", rows, source="production")
    assert synthetic.pass_hat_k == {1: 0.0, 2: 0.0} and production.pass_hat_k == {}
    console = Console(width=200, record=True)
    console.print(scorecards_table([production]))
    assert "— (real calls)" in console.export_text()
