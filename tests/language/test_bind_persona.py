"""A generated persona runs in its own language, in a world picked by its task's words."""

from __future__ import annotations

from polygon_core.adapters.persona_store import bind_persona
from polygon_core.demo import demo_dir
from polygon_core.files import load_suite
from polygon_core.personas import PersonaRecord, generate_offline

from .prompts import PHARMACY_RU

SUITE = load_suite(demo_dir() / "suite")


def test_a_russian_persona_is_bound_into_a_russian_scenario() -> None:
    result = generate_offline(PHARMACY_RU, count=1)
    record = PersonaRecord(id="p1", agent="apteka", prompt_hash="h", task=result.cells[0].task,
                           persona=result.personas[0])
    assert bind_persona(record, SUITE.scenarios).language == "ru"


def test_a_task_read_from_the_prompt_picks_the_world_by_its_words() -> None:
    persona = SUITE.scenario("address-change").persona
    record = PersonaRecord(id="p2", agent="northwind-billing", prompt_hash="h",
                           task="refund_duplicate_charge", persona=persona)
    bound = bind_persona(record, SUITE.scenarios)
    assert any("refund" in tool for tool in bound.tools)
    assert bound.language == "en"
