"""Persona generation: the plan, the offline generator, the model generator and near-duplicates."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from polygon_core.demo._agent import PROMPT_V1
from polygon_core.files import prompt_hash
from polygon_core.models import CALLER_TYPES, OUTCOMES, Persona
from polygon_core.personas import (
    PlanCell,
    drop_near_duplicates,
    generate_each,
    generate_offline,
    generation_plan,
    read_prompt,
)


def test_plan_deals_every_type_before_repeating_and_covers_type_outcome_pairs() -> None:
    plan = generation_plan(6)
    assert [c.type for c in plan] == list(CALLER_TYPES)
    assert [c.outcome for c in plan] == ["success", "refusal", "callback", "transfer", "success", "refusal"]
    full = generation_plan(24)
    assert {(c.type, c.outcome) for c in full} == {(t, o) for t in CALLER_TYPES for o in OUTCOMES}
    assert generation_plan(24, seed=3) == generation_plan(24, seed=3)
    with pytest.raises(ValueError, match="at least 1"):
        generation_plan(0)


def test_prompt_reading_of_the_demo_prompt() -> None:
    reading = read_prompt(PROMPT_V1)
    assert [t.name for t in reading.tasks] == ["refund_duplicate_charge", "callback"]
    assert [t.goals for t in reading.tasks] == [("get duplicate charges refunded",),
                                                ("get a callback from the technical team",)]
    assert reading.refusals == ("get late fees refunded", "book a technician")
    assert (reading.language, reading.locale) == ("en", "en-GB")
    # "Confirm the amount and the charge": the charge is a fact the caller gives (by its date).
    assert reading.facts == ("account_id", "postcode", "amount", "charge_date")
    assert reading.outcomes == ("success", "refusal", "callback", "transfer")


def test_offline_generation_covers_six_types_with_ground_truth_and_prompt_hash() -> None:
    result = generate_offline(PROMPT_V1, count=12)
    assert len(result.personas) == 12 and result.failures == [] and result.dropped == []
    assert {p.type for p in result.personas} == set(CALLER_TYPES)
    assert {p.prompt_version for p in result.personas} == {prompt_hash(PROMPT_V1)}
    for persona, cell in zip(result.personas, result.cells, strict=False):
        # Exactly the facts the prompt asks for the persona's task (a hard persona may not know one).
        known = set(persona.ground_truth) | {u.replace(" ", "_") for u in persona.unknown}
        assert known == ({"account_id", "postcode", "amount", "charge_date"} if cell.task == "refund_duplicate_charge"
                         else {"account_id", "postcode"})
        assert (persona.type, persona.intended_outcome, persona.difficulty) == (
            cell.type, cell.outcome, cell.difficulty)
        assert cell.task in ("refund_duplicate_charge", "callback", "late_fees", "book_technician")
    refund = next(p for p, c in zip(result.personas, result.cells, strict=False)
                  if c.task == "refund_duplicate_charge" and p.intended_outcome == "success" and p.difficulty < 4)
    assert set(refund.ground_truth) == {"account_id", "postcode", "amount", "charge_date"}
    callback = next(p for p, c in zip(result.personas, result.cells, strict=False) if c.task == "callback")
    # The prompt never asks when to call back, so no slot is made up for it.
    assert "slot" not in callback.ground_truth and callback.intended_outcome == "callback"
    # Deterministic: the same prompt, count and seed give the same personas.
    assert generate_offline(PROMPT_V1, count=12) == result
    assert generate_offline(PROMPT_V1, count=12, seed=1) != result


def _persona(name: str, kind: str = "busy", goal: str = "get a refund for a charge that appeared twice") -> Persona:
    return Persona(name=name, type=kind, goal=goal, ground_truth={"account_id": "1234", "postcode": "M1 4BT"})


def test_near_duplicates_are_dropped_by_tfidf_cosine() -> None:
    a = _persona("a")
    b = _persona("b").model_copy(update={"ground_truth": {"account_id": "9999", "postcode": "LS6 2QT"}})
    c = _persona("c", kind="confused", goal="update my billing address after moving house")
    kept, dropped = drop_near_duplicates([a, b, c])
    assert [p.name for p in kept] == ["a", "c"] and [p.name for p in dropped] == ["b"]


def test_a_request_failing_twice_is_recorded_and_the_rest_kept() -> None:
    cells = generation_plan(6)
    calls: dict[str, int] = {}

    async def make_one(cell: PlanCell) -> Persona:
        calls[cell.type] = calls.get(cell.type, 0) + 1
        if cell.type == "distrustful":
            raise TimeoutError("model did not answer")
        if cell.type == "busy" and calls["busy"] == 1:
            raise ValueError("unparseable")  # fails once, the retry succeeds
        return _persona(cell.label, kind=cell.type)

    slots, failures = asyncio.run(generate_each(cells, make_one, attempts=2))
    assert [p.name if p else None for p in slots] == [
        "cooperative-success-d4", "busy-refusal-d1", None, "confused-transfer-d4",
        "aggressive-success-d3", "talkative-refusal-d5"]
    assert [(f.cell.type, f.attempts, f.error) for f in failures] == [
        ("distrustful", 2, "TimeoutError: model did not answer")]
    assert calls == {"cooperative": 1, "busy": 2, "distrustful": 2, "confused": 1, "aggressive": 1,
                     "talkative": 1}


def test_model_generation_against_a_local_server(tmp_path: Path) -> None:
    """The real openai SDK against the local fake server; requests 0 and 1 (the first cell) fail."""
    from polygon_core.adapters.artifacts import LocalArtifactStore
    from polygon_core.adapters.persona_store import PersonaStore, records_from_result
    from polygon_core.adapters.providers import make_chat_model
    from polygon_core.adapters.settings import load_settings
    from polygon_core.personas import generate_with_model
    from tests.fakes.llm_server import Behaviour, FakeLLMServer

    behaviour = Behaviour(fault_for=lambda n: "500" if n in (0, 1) else None)
    with FakeLLMServer(behaviour) as server:
        settings = load_settings(home=tmp_path, model_max_attempts=1, openai_api_key="test-key")
        model = make_chat_model(f"openai:fake-model@{server.openai_url}", settings)

        async def go():  # type: ignore[no-untyped-def]
            try:
                return await generate_with_model(model, PROMPT_V1, count=7, concurrency=1)
            finally:
                await model.aclose()

        result = asyncio.run(go())
    assert [(f.cell.type, f.attempts) for f in result.failures] == [("cooperative", 2)]
    assert "500" in result.failures[0].error or "fault" in result.failures[0].error
    # The seventh cell is cooperative again, so the six types are still covered.
    assert [p.type for p in result.personas] == ["busy", "distrustful", "confused", "aggressive",
                                                 "talkative", "cooperative"]
    for p in result.personas:
        assert set(p.ground_truth) == {"account_id", "postcode", "amount", "charge_date"}
        assert p.prompt_version == prompt_hash(PROMPT_V1)
    # The first request of every cell asked for the prompt's facts in a structured reply.
    body = behaviour.seen[2]
    assert body["response_format"]["json_schema"]["name"] == "persona"
    store = PersonaStore(LocalArtifactStore(tmp_path / "artifacts"))
    records = records_from_result(result, agent="northwind-billing", prompt_hash=prompt_hash(PROMPT_V1))
    for r in records:
        store.save(r)
    statuses = sorted((r.status, r.persona.type if r.persona else None) for r in store.list("northwind-billing"))
    assert statuses.count(("failed", None)) == 1 and len(statuses) == len(result.personas) + 1
    failed = store.list("northwind-billing", statuses=["failed"])[0]
    assert failed.id == "failed-cooperative-success-d4" and failed.error.startswith("2 attempt(s):")
