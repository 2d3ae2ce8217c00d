"""A judge or probe answerer that gives one value everywhere is readable but not reading (issue 33,
item 2: the 0.5B local judge gave 5 on every criterion, and said yes to every probe): the scorecard
carries a warning, and the CLI prints it under the provenance."""

from __future__ import annotations

from rich.console import Console

from polygon.cli._render import print_provenance
from polygon_core.compare import ResultRow, build_scorecard
from polygon_core.models import ProbeAnswer
from polygon_core.reports import scorecard_markdown

CRITERIA = ("goal_completion", "factuality", "persona_tone")


def _rows(n: int, score: float = 5.0, last: float | None = None) -> list[ResultRow]:
    rows = []
    for i in range(n):
        value = last if last is not None and i == n - 1 else score
        rows.append(ResultRow(conversation_id=f"c{i}", scenario_id="s", seed=i, caller_type="busy",
                              difficulty=2, end_reason="agent_end", composite=100.0, status="judged",
                              verdict="pass", criteria=dict.fromkeys(CRITERIA, value)))
    return rows


def _answers(n: int, answer: str = "yes", odd: str | None = None) -> list[ProbeAnswer]:
    return [ProbeAnswer(conversation_id=f"c{i}", probe_id=pid, wording_hash="h", polarity="wanted",
                        answer=odd if odd is not None and (i, pid) == (0, "p2") else answer,
                        evidence=None, answered_by="compact:openai:qwen")
            for i in range(n) for pid in ("p1", "p2")]


def test_five_calls_all_fives_and_all_yes_are_named() -> None:
    card = build_scorecard("a@1", "run-a", "1", "v1", "openai:qwen", _rows(5), _answers(5))
    assert card.grader_warnings == [
        "the judge gave 5 on every criterion of all 5 calls it judged: it is probably not reading them "
        "(docs/local-models.md)",
        "the probe answerer said yes to all 10 probe questions on 5 calls: it is probably not reading them"]
    console = Console(width=300, record=True)
    print_provenance(console, [card])
    assert "a@1: the judge gave 5 on every criterion of all 5 calls it judged" in console.export_text()
    assert ("| judge warning | the judge gave 5 on every criterion of all 5 calls it judged: it is probably "
            "not reading them (docs/local-models.md) |") in scorecard_markdown(card)


def test_one_other_value_or_fewer_calls_is_no_warning() -> None:
    assert build_scorecard("a", "r", "1", "v1", "j", _rows(5, last=4.0), _answers(5, odd="no")).grader_warnings == []
    assert build_scorecard("a", "r", "1", "v1", "j", _rows(4), _answers(4)).grader_warnings == []
    # na everywhere is what a call the probes do not apply to gets: not a warning.
    assert build_scorecard("a", "r", "1", "v1", "j", _rows(5, last=3.0), _answers(5, "na")).grader_warnings == []
