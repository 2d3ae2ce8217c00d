"""What docs/personas.md says a persona knows: the facts asked for its task, plus a name when none of them
says who the caller is (a caller can always say who they are)."""

from __future__ import annotations

import pytest

from polygon_core.personas import generate_offline

BASE = "You are the booking line of QuickFix Garage. Help callers book a service. "


@pytest.mark.parametrize(("asks", "keys"), [
    ("Ask for the make of the car.", {("name", "car_make")}),
    ("Ask for the make of the car and the phone number.", {("car_make", "phone")}),
])
def test_a_name_is_added_only_when_no_asked_fact_says_who_the_caller_is(asks: str, keys: set[tuple[str, ...]]) -> None:
    assert {tuple(p.ground_truth) for p in generate_offline(BASE + asks, count=4).personas} == keys
