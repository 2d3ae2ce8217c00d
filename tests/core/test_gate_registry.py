"""The gate registry: a gate is one registered function; a rubric may list only registered gates."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from polygon_core.models import GateHit, Turn
from polygon_core.scoring import (
    Aggregate,
    GateInput,
    Rubric,
    _gate_registry,
    compute_gates,
    gate,
    gate_names,
    get_rubric,
)


def test_built_in_gates_are_registered() -> None:
    assert gate_names() == ("forbidden_phrase", "safety", "invalid_tool_call", "assertion")


def test_a_new_gate_is_applied_in_rubric_order(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_gate_registry.GATES, "entries", dict(_gate_registry.GATES.loaded()))

    @gate("long_turn")
    def long_turn(given: GateInput) -> list[GateHit]:
        return [GateHit(gate="long_turn", turn=t.index, detail=f"agent turn of {len(t.text.split())} words")
                for t in given.turns if isinstance(t, Turn) and t.speaker == "agent" and len(t.text.split()) > 5]

    rubric = get_rubric("v1").model_copy(update={"gates": ["long_turn", "forbidden_phrase"]})
    turns = [Turn(index=0, speaker="agent", text="we guarantee a refund to everyone who calls today"),
             Turn(index=1, speaker="agent", text="refund")]
    hits = compute_gates(turns, rubric, Aggregate(composite=90.0), ["refund"])
    assert [(h.gate, h.turn, h.detail) for h in hits] == [
        ("long_turn", 0, "agent turn of 9 words"),
        ("forbidden_phrase", 0, "agent said forbidden phrase 'refund'"),
        ("forbidden_phrase", 1, "agent said forbidden phrase 'refund'")]


def test_a_rubric_naming_an_unregistered_gate_is_refused() -> None:
    data = get_rubric("v1").model_dump() | {"gates": ["safety", "tone_police"]}
    with pytest.raises(ValidationError, match="unknown gate\\(s\\) 'tone_police'; known gates: forbidden_phrase, "
                                              "safety, invalid_tool_call, assertion"):
        Rubric.model_validate(data)


def test_registering_a_gate_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="gate 'safety' is registered twice"):
        gate("safety")(lambda given: [])
