"""Issue 31: conflicts a reader would see, found offline in English and Russian prompts.

14 realistic conflicting pairs (8 English, 6 Russian: always/never on one act, an ordering both ways,
a general rule against a specific exception that does not say which wins) and 8 consistent
controls (near misses), each inside a prompt with ordinary lines. The figures are in
docs/design.md ("Prompt analysis"): 14/14 found, 0/8 controls flagged (before this work: 7/14 and 2/8 on
these cases).
"""

from __future__ import annotations

import pytest

from polygon_core.analysis import analyze_prompt

from .conflict_cases import CONFLICTS, CONTROLS, Pair


def _span(text: str, rule: str) -> tuple[int, int]:
    start = text.index(rule)
    return start, start + len(rule)


def _found(pair: Pair, max_tier: int) -> bool:
    """A conflict is found when the axis scores above 0 and both rules of the pair are highlighted."""
    text = pair.prompt()
    conflict = analyze_prompt(text, max_tier=max_tier).axes["conflict"]
    spans = {(h.start, h.end) for h in conflict.highlights}
    return conflict.score > 0 and {_span(text, pair.first), _span(text, pair.second)} <= spans


def test_the_cases_are_as_the_issue_asks() -> None:
    assert [p.language for p in CONFLICTS].count("en") == 8
    assert [p.language for p in CONFLICTS].count("ru") == 6
    assert {p.kind for p in CONFLICTS} == {"polarity", "ordering", "exception"}
    assert len(CONTROLS) >= 6 and {p.language for p in CONTROLS} == {"en", "ru"}
    for pair in [*CONFLICTS, *CONTROLS]:
        text = pair.prompt()
        assert text.count(pair.first) == 1 and text.count(pair.second) == 1, pair.id


@pytest.mark.parametrize("max_tier", [1, 3], ids=["rules", "offline"])
def test_every_conflict_is_found_on_both_rules(max_tier: int) -> None:
    found = {lang: [p.id for p in CONFLICTS if p.language == lang and _found(p, max_tier)] for lang in ("en", "ru")}
    assert found == {lang: [p.id for p in CONFLICTS if p.language == lang] for lang in ("en", "ru")}
    assert (len(found["en"]), len(found["ru"])) == (8, 6)


@pytest.mark.parametrize("max_tier", [1, 3], ids=["rules", "offline"])
def test_no_control_is_flagged(max_tier: int) -> None:
    flagged = [p.id for p in CONTROLS
               if (c := analyze_prompt(p.prompt(), max_tier=max_tier).axes["conflict"]).score > 0 or c.highlights]
    assert flagged == []


def test_conflict_scores_are_set_by_the_highest_confident_tier() -> None:
    # One conflicting pair: the rules tier scores 0.6 with both rules highlighted, which is confident,
    # so the embeddings tier (blind to most of these) does not average it down to 0.3. Where the
    # embeddings tier is confident too (two near-identical Russian rules), it is the higher tier.
    results = {p.id: analyze_prompt(p.prompt(), max_tier=3).axes["conflict"] for p in CONFLICTS}
    by_embeddings = {"ru-refund-amount", "ru-operator"}
    assert {pid: (r.score, r.set_by) for pid, r in results.items()} == {
        p.id: (0.6, "embeddings" if p.id in by_embeddings else "rules") for p in CONFLICTS}


REASONS = {
    "en-refund-confirm": "orders its steps the other way round from “Never confirm the refund amount before issuing…”",
    "en-identity-order": "orders its steps the other way round from “Look up the order first, then verify the…”",
    "en-order-number": "orders its steps the other way round from “Do not ask for the order number until the…”",
    "ru-identity-order": "orders its steps the other way round from “Сначала найди заказ, потом проверь личность…”",
    "ru-discount": "excludes the rule “Постоянным клиентам предлагай скидку 10%.”",
    "ru-tracking": "excludes the rule “Если посылка задерживается, продиктуй клиенту…”",
}


@pytest.mark.parametrize("pair_id", sorted(REASONS))
def test_the_first_rule_names_the_second_and_why(pair_id: str) -> None:
    pair = next(p for p in CONFLICTS if p.id == pair_id)
    text = pair.prompt()
    highlights = analyze_prompt(text, max_tier=1).axes["conflict"].highlights
    assert [h.reason for h in highlights if (h.start, h.end) == _span(text, pair.first)] == [REASONS[pair_id]]


def test_the_issue_example_scores_above_zero() -> None:
    # "Always … before issuing it" against "Never … before issuing it" scored 0.00 before.
    text = "Always confirm the refund amount before issuing it.\nNever confirm the refund amount before issuing it."
    conflict = analyze_prompt(text).axes["conflict"]
    assert (conflict.score, conflict.set_by, len(conflict.highlights)) == (0.6, "rules", 2)
