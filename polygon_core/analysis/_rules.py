"""Tier 1, rules: deterministic patterns per language.

Counts of constraints, modal hedges and vague quantifiers, always/never pairs on the same subject,
restated rules, and the position of key rules in a long prompt.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import combinations
from typing import Literal

from ._conflicts import Statement, disjoint, exclusive, has_imperative, main_clause, statement_of, waters_down
from ._models import Axis, Highlight, TierFindings
from ._ordering import ordering_of, reversed_order
from ._text import Unit, content_stems, quote, split_units, words_in
from .patterns import LanguagePatterns

Polarity = Literal["must", "never", "may", "do", "order"]

#: Up to this many constraints a prompt is not overloaded; at OVERLOAD_FULL it scores 1.
OVERLOAD_FREE = 8
OVERLOAD_FULL = 20
#: Below LONG_FROM words a prompt has no middle to get lost in; from LONG_FULL words, fully long.
LONG_FROM = 150
LONG_FULL = 400


@dataclass(frozen=True)
class Rule:
    """A unit that states a constraint: its polarity, whether it is hedged, and its subject stems."""

    unit: Unit
    polarity: Polarity | None
    hedged: bool
    stems: frozenset[str]


def classify(unit: Unit, patterns: LanguagePatterns) -> Rule | None:
    """The rule a unit states, or None when it states none (background, examples)."""
    text = unit.text
    polarity: Polarity | None
    if patterns.prohibition.search(text):
        # "Do not X until Y" orders two steps; only an unconditional prohibition opposes "do X".
        polarity = "order" if patterns.condition.search(text) else "never"
    elif patterns.obligation.search(text):
        polarity = "must"
    elif patterns.permission.search(text):
        polarity = "may"
    elif patterns.imperative_start.search(text):
        polarity = "do"
    else:
        polarity = None
    hedged = patterns.hedges.search(text) is not None
    if polarity is None and not hedged:
        return None
    # "Try to confirm the amount" is a softened order.
    polarity = polarity or "do"
    return Rule(unit, polarity, hedged, frozenset(content_stems(unit, patterns)))


def rules_of(text: str, patterns: LanguagePatterns) -> list[Rule]:
    """Every rule the prompt states, in order."""
    return [r for u in split_units(text) if (r := classify(u, patterns)) is not None]


def opposite(a: Rule, b: Rule) -> bool:
    """Whether one rule forbids outright what the other asks for or allows."""
    return {a.polarity, b.polarity} in ({"never", "must"}, {"never", "may"}, {"never", "do"})


def _same_subject(a: Rule, b: Rule, least: float) -> bool:
    shared = a.stems & b.stems
    smaller = min(len(a.stems), len(b.stems))
    return len(shared) >= 2 and smaller > 0 and len(shared) / smaller >= least


def _hl(unit: Unit, axis: Axis, reason: str) -> Highlight:
    return Highlight(start=unit.start, end=unit.end, axis=axis, reason=reason, tier="rules")



def overload(rules: list[Rule]) -> tuple[float, list[Highlight]]:
    """Constraints beyond OVERLOAD_FREE compete for the model's attention at every turn."""
    n = len(rules)
    score = round(min(1.0, max(0.0, (n - OVERLOAD_FREE) / (OVERLOAD_FULL - OVERLOAD_FREE))), 6)
    if score == 0.0:
        return 0.0, []
    reason = f"one of {n} simultaneous constraints (more than {OVERLOAD_FREE} compete for attention)"
    return score, [_hl(r.unit, "overload", reason) for r in rules]


def _middleness(position: float) -> float:
    # Models recall the start and the end of a long context best ("lost in the middle").
    if 0.25 <= position <= 0.75:
        return 1.0
    if position < 0.25:
        return max(0.0, (position - 0.1) / 0.15)
    return max(0.0, (0.9 - position) / 0.15)


def attention_dilution(text: str, units: list[Unit], patterns: LanguagePatterns
                       ) -> tuple[float, list[Highlight]]:
    """Key rules (marked important, shouted, absolute) in the middle of a long prompt."""
    n_words = len(words_in(text))
    length = min(1.0, max(0.0, (n_words - LONG_FROM) / (LONG_FULL - LONG_FROM)))
    if length == 0.0 or not text:
        return 0.0, []
    best = 0.0
    highlights = []
    for unit in units:
        if not patterns.key_markers.search(unit.text):
            continue
        position = (unit.start + unit.end) / 2 / len(text)
        middle = _middleness(position)
        if middle > 0.0:
            best = max(best, middle)
            highlights.append(_hl(unit, "attention_dilution",
                                  f"key rule at {position:.0%} of a {n_words}-word prompt: "
                                  "the middle of a long prompt is attended to least"))
    return round(length * best, 6), highlights


def conflict(rules: list[Rule], patterns: LanguagePatterns | None = None) -> tuple[float, list[Highlight]]:
    """Rules on the same subject that exclude each other (always/never) or water each other down.

    With `patterns`, each rule is also read as condition, action and polarity (see `_conflicts`) and
    as an ordering of two acts (see `_ordering`): an exception that relaxes an unconditional rule,
    actions that exclude each other under overlapping conditions, and two acts ordered both ways
    are conflicts too, even when the two rules share few words. A pair is never a conflict when one
    of its rules says it wins (``this exception overrides the rule above``), or when both hold under
    conditions that cannot be meant at once (``if a business customer`` / ``if a private customer``).
    """
    keep = 1.0
    highlights = []
    statements = {id(r): statement_of(r.unit, patterns) for r in rules} if patterns is not None else {}
    orders = {id(r): ordering_of(r.unit.text, patterns) for r in rules} if patterns is not None else {}
    for a, b in combinations(rules, 2):
        if patterns is not None and _resolved(a, b, patterns, statements):
            continue
        if opposite(a, b) and _same_subject(a, b, 0.4):
            keep *= 0.4
            reason_a = f"excludes the rule “{quote(b.unit)}”"
            reason_b = f"excludes the rule “{quote(a.unit)}”"
        elif (a.hedged != b.hedged and not opposite(a, b) and a.polarity is not None
              and b.polarity is not None and _same_subject(a, b, 0.5)):
            keep *= 0.5
            reason_a = f"waters down “{quote(b.unit)}”" if a.hedged else f"watered down by “{quote(b.unit)}”"
            reason_b = f"waters down “{quote(a.unit)}”" if b.hedged else f"watered down by “{quote(a.unit)}”"
        elif (order_a := orders.get(id(a))) and (order_b := orders.get(id(b))) and reversed_order(order_a, order_b):
            keep *= 0.4
            reason_a = f"orders its steps the other way round from “{quote(b.unit)}”"
            reason_b = f"orders its steps the other way round from “{quote(a.unit)}”"
        elif statements and (found := _structural(statements[id(a)], statements[id(b)])) is not None:
            keep *= 0.4
            reason_a, reason_b = found
        else:
            continue
        highlights += [_hl(a.unit, "conflict", reason_a), _hl(b.unit, "conflict", reason_b)]
    return round(1.0 - keep, 6), highlights


def _resolved(a: Rule, b: Rule, patterns: LanguagePatterns, statements: dict[int, Statement]) -> bool:
    """The prompt settles the pair itself: one rule says it wins, or their conditions exclude each other."""
    if patterns.precedence.search(a.unit.text) or patterns.precedence.search(b.unit.text):
        return True
    return disjoint(statements[id(a)].condition, statements[id(b)].condition)


def _structural(a: Statement, b: Statement) -> tuple[str, str] | None:
    """Reasons for both rules when they conflict as condition/action/polarity, else None."""
    if waters_down(a, b):
        return (f"watered down by the exception “{quote(b.unit)}”",
                f"an exception that waters down “{quote(a.unit)}”")
    if waters_down(b, a):
        return (f"an exception that waters down “{quote(b.unit)}”",
                f"watered down by the exception “{quote(a.unit)}”")
    if exclusive(a, b):
        return (f"its action excludes “{quote(b.unit)}” under the same conditions",
                f"its action excludes “{quote(a.unit)}” under the same conditions")
    return None


def ambiguity(text: str, units: list[Unit], patterns: LanguagePatterns) -> tuple[float, list[Highlight]]:
    """Modal hedges and vague quantifiers: words a model can read more than one way."""
    highlights = []
    for pattern, what in ((patterns.hedges, "modal hedge “{}”: the model may read the rule as optional"),
                          (patterns.vague, "vague wording “{}”: no single reading of how much, how often or when")):
        for m in pattern.finditer(text):
            highlights.append(Highlight(start=m.start(), end=m.end(), axis="ambiguity", tier="rules",
                                        reason=what.format(m.group())))
    hits = len(highlights)
    score = 1.0 - math.exp(-hits / (1.5 + 0.1 * len(units)))
    return round(score, 6), highlights


def redundancy(rules: list[Rule]) -> tuple[float, list[Highlight]]:
    """Rules that share most of their subject words and their polarity: one rule stated again."""
    keep = 1.0
    highlights = []
    for a, b in combinations(rules, 2):
        if not opposite(a, b) and a.hedged == b.hedged and _same_subject(a, b, 0.6):
            keep *= 0.65
            highlights += [_hl(a.unit, "redundancy", f"restated later as “{quote(b.unit)}”"),
                           _hl(b.unit, "redundancy", f"restates “{quote(a.unit)}”")]
    return round(1.0 - keep, 6), highlights


def _with_exceptions(rules: list[Rule], units: list[Unit], patterns: LanguagePatterns) -> list[Rule]:
    """The rules, plus conditional sentences whose main clause is a rule ("If the caller is in a
    hurry, book without verifying"): exceptions are what water rules down. In Russian, a sentence
    with an imperative verb anywhere is a rule too («Постоянным клиентам предлагай скидку»): the
    word order is free, so the verb often comes after whom the rule is for."""
    ruled = {r.unit.index for r in rules}
    extra = []
    for unit in units:
        if unit.index in ruled:
            continue
        main = main_clause(unit, patterns)
        if main is None and patterns.code == "ru" and has_imperative(unit.text):
            main = unit
        if main is None:
            continue
        # After "If X," the main clause is an instruction even when its verb is not a listed one.
        found = classify(main, patterns) or Rule(main, "do", False, frozenset(content_stems(main, patterns)))
        extra.append(Rule(unit, found.polarity, found.hedged, found.stems))
    return sorted([*rules, *extra], key=lambda r: r.unit.index)


def rules_tier(text: str, patterns: LanguagePatterns) -> TierFindings:
    """Run every rule of the tier on `text`."""
    units = split_units(text)
    rules = [r for u in units if (r := classify(u, patterns)) is not None]
    results: dict[Axis, tuple[float, list[Highlight]]] = {
        "overload": overload(rules),
        "attention_dilution": attention_dilution(text, units, patterns),
        "conflict": conflict(_with_exceptions(rules, units, patterns), patterns),
        "ambiguity": ambiguity(text, units, patterns),
        "redundancy": redundancy(rules),
    }
    return TierFindings(tier="rules", scores={k: v[0] for k, v in results.items()},
                        highlights=[h for _score, hs in results.values() for h in hs])
