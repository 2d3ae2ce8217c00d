"""A scorer for a new criterion is one module: a `_scorer*` module of polygon_core/judging/ is found on
the first lookup, as a `_gate*` module of polygon_core/scoring/ is (before, the registry read only
`_heuristic.py`, so a module of its own was never imported)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import polygon_core.judging as judging_package
from polygon_core.checks import run_checks
from polygon_core.judging import judge_offline
from polygon_core.judging._scorers import SCORERS, scored_criteria
from polygon_core.models import Conversation, EndReason, Turn
from polygon_core.scoring import Criterion, Rubric
from tests._plugins import install_plugin
from tests.conftest import REPO

BUILT_INS = ("goal_completion", "instruction_adherence", "tool_use_quality", "factuality", "dialogue_quality",
             "robustness", "safety_compliance", "persona_tone")


def docs_example(first_line: str) -> str:
    """The ```python block of docs/design.md that starts with `first_line`."""
    text = (REPO / "docs" / "design.md").read_text(encoding="utf-8")
    start = text.index(f"```python\n{first_line}") + len("```python\n")
    return text[start:text.index("```\n", start)]


EMPATHY_MODULE = docs_example("# polygon_core/judging/_scorer_empathy.py")
RUBRIC = Rubric(version="custom", criteria=[Criterion(name="empathy", weight=100)])


def conversation(agent_reply: str) -> Conversation:
    return Conversation(id="c", scenario_id="production", seed=0, agent_name="eval", agent_version="eval",
                        persona_hash="", caller_type="real", difficulty=0, language="en", turns=[
                            Turn(index=0, speaker="agent", text="Northwind billing, how can I help?"),
                            Turn(index=1, speaker="caller", text="This is ridiculous, I was charged twice!"),
                            Turn(index=2, speaker="agent", text=agent_reply)],
                        end_reason=EndReason.CALLER_HANGUP)


@pytest.fixture
def fresh_scorers(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The scorer registry as before its first lookup (the built-ins stay imported and registered)."""
    monkeypatch.setattr(SCORERS, "entries", dict(SCORERS.loaded()))
    monkeypatch.setattr(SCORERS, "_builtins_loaded", False)
    yield
    for name in [n for n in sys.modules if n.endswith(("_scorer_empathy", "acme_scorers"))]:
        del sys.modules[name]
    if hasattr(judging_package, "_scorer_empathy"):
        delattr(judging_package, "_scorer_empathy")


def _empathy(reply: str) -> dict[str, object]:
    conv = conversation(reply)
    return judge_offline(conv, run_checks(conv, None), None, RUBRIC)["empathy"]


def test_a_scorer_module_dropped_into_the_package_scores_its_criterion(
        fresh_scorers: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "_scorer_empathy.py").write_text(EMPATHY_MODULE, encoding="utf-8")
    monkeypatch.setattr(judging_package, "__path__", [*judging_package.__path__, str(tmp_path)])
    assert scored_criteria() == (*BUILT_INS, "empathy")
    assert _empathy("I'm sorry about that, let me fix it.") == {
        "score": 4, "evidence": "I'm sorry about that, let me fix it.", "reason": "apologised in 1 turns"}
    assert _empathy("Your balance is 40 euros.") == {
        "score": 2, "evidence": "This is ridiculous, I was charged twice!", "reason": "no apology to a frustrated caller"}


def test_an_entry_point_adds_a_scorer_kept_outside_polygon(fresh_scorers: None, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    # The same module in its own distribution, named by a `polygon.scorers` entry point.
    source = EMPATHY_MODULE.replace("from ._scorers", "from polygon_core.judging._scorers")
    monkeypatch.syspath_prepend(str(install_plugin(tmp_path / "site", distribution="acme-scorers",
                                                   group="polygon.scorers", name="empathy",
                                                   module="acme_scorers", source=source)))
    assert scored_criteria() == (*BUILT_INS, "empathy")
    assert _empathy("I'm sorry about that, let me fix it.")["score"] == 4
