"""A new gate is one module: a `_gate*` module of polygon_core/scoring/ is found on the first lookup."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import polygon_core.scoring as scoring_package
from polygon_core.models import Turn
from polygon_core.scoring import Aggregate, _gate_registry, compute_gates, gate_names, get_rubric
from tests._plugins import install_plugin
from tests.conftest import REPO

BUILT_INS = ("forbidden_phrase", "safety", "invalid_tool_call", "assertion")


def docs_example(first_line: str) -> str:
    """The ```python block of docs/design.md that starts with `first_line`."""
    text = (REPO / "docs" / "design.md").read_text(encoding="utf-8")
    start = text.index(f"```python\n{first_line}") + len("```python\n")
    return text[start:text.index("```\n", start)]


@pytest.fixture
def dropped_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """docs/design.md's `_gate_long_turn.py`, as if it were in polygon_core/scoring/ (the tree stays untouched)."""
    (tmp_path / "_gate_long_turn.py").write_text(docs_example("# polygon_core/scoring/_gate_long_turn.py"),
                                                 encoding="utf-8")
    monkeypatch.setattr(scoring_package, "__path__", [*scoring_package.__path__, str(tmp_path)])
    monkeypatch.setattr(_gate_registry.GATES, "entries", dict(_gate_registry.GATES.loaded()))
    monkeypatch.setattr(_gate_registry.GATES, "_builtins_loaded", False)
    yield
    sys.modules.pop("polygon_core.scoring._gate_long_turn", None)
    if hasattr(scoring_package, "_gate_long_turn"):
        delattr(scoring_package, "_gate_long_turn")


def test_a_gate_module_dropped_into_the_package_is_a_gate(dropped_in: None) -> None:
    assert gate_names() == (*BUILT_INS, "long_turn")
    rubric = get_rubric("v1").model_copy(update={"gates": ["long_turn"]})
    turns = [Turn(index=0, speaker="agent", text=" ".join(["word"] * 61)),
             Turn(index=1, speaker="agent", text="short")]
    hits = compute_gates(turns, rubric, Aggregate(composite=90.0))
    assert [(h.gate, h.turn, h.detail) for h in hits] == [("long_turn", 0, "agent turn of 61 words")]


def test_a_module_not_named_gate_is_not_imported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "_notes.py").write_text("raise AssertionError('imported')\n", encoding="utf-8")
    monkeypatch.setattr(scoring_package, "__path__", [*scoring_package.__path__, str(tmp_path)])
    monkeypatch.setattr(_gate_registry.GATES, "entries", dict(_gate_registry.GATES.loaded()))
    monkeypatch.setattr(_gate_registry.GATES, "_builtins_loaded", False)
    assert gate_names() == BUILT_INS


def test_an_entry_point_adds_a_gate_kept_outside_polygon(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The same module in its own distribution, named by a `polygon.gates` entry point.
    monkeypatch.setattr(_gate_registry.GATES, "entries", dict(_gate_registry.GATES.loaded()))
    monkeypatch.setattr(_gate_registry.GATES, "_builtins_loaded", False)
    source = docs_example("# polygon_core/scoring/_gate_long_turn.py").replace(
        "from ._gate_registry", "from polygon_core.scoring._gate_registry")
    monkeypatch.syspath_prepend(str(install_plugin(tmp_path / "site", distribution="acme-gates",
                                                   group="polygon.gates", name="long_turn",
                                                   module="acme_gates", source=source)))
    try:
        assert gate_names() == (*BUILT_INS, "long_turn")
        rubric = get_rubric("v1").model_copy(update={"gates": ["long_turn"]})
        hits = compute_gates([Turn(index=3, speaker="agent", text=" ".join(["word"] * 70))], rubric,
                             Aggregate(composite=90.0))
        assert [(h.gate, h.turn, h.detail) for h in hits] == [("long_turn", 3, "agent turn of 70 words")]
    finally:
        sys.modules.pop("acme_gates", None)
