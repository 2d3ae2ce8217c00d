"""Each tier on its own, with exact values; the combination; the language helpers."""

from __future__ import annotations

import math

import numpy as np
import pytest

from polygon_core.analysis import Highlight, TierFindings, analyze_prompt, detect_language
from polygon_core.analysis._combine import combine, confident
from polygon_core.analysis._embeddings import embeddings_tier
from polygon_core.analysis._rules import classify, rules_tier
from polygon_core.analysis._surprisal import surprisal_tier, wordfreq_bits
from polygon_core.analysis._text import split_units
from polygon_core.analysis.patterns import ENGLISH, RUSSIAN, patterns_for

from ._corpus import CASES

BY_ID = {c.id: c for c in CASES}


def test_units_are_exact_spans_without_list_markers() -> None:
    text = "Rules:\n1. Ask for the name.  2) ignored? No.\n- Never shout! Then stop."
    units = split_units(text)
    assert [u.text for u in units] == ["Rules:", "Ask for the name.", "ignored?", "No.", "Never shout!",
                                       "Then stop."]
    assert all(text[u.start:u.end] == u.text for u in units)


def test_language_is_detected_from_the_alphabet() -> None:
    assert detect_language("Always verify the caller.") == "en"
    assert detect_language("Всегда проверяй личность клиента (account id).") == "ru"
    with pytest.raises(ValueError, match="supports languages en, ru; got 'de'"):
        patterns_for("de")


def test_polarity_of_rules() -> None:
    def polarity(text: str, p=ENGLISH) -> str | None:
        rule = classify(split_units(text)[0], p)
        return None if rule is None else rule.polarity

    assert polarity("Always confirm the amount.") == "must"
    assert polarity("Never promise a refund.") == "never"
    assert polarity("Do not refund until the identity is verified.") == "order"
    assert polarity("You may offer a callback.") == "may"
    assert polarity("Offer a callback.") == "do"
    assert polarity("The line opens at eight.") is None
    assert polarity("Не обещай возврат.", RUSSIAN) == "never"
    assert polarity("Если клиент не помнит номер, спроси дату рождения.", RUSSIAN) is None
    assert polarity("Не возвращай деньги, пока личность не проверена.", RUSSIAN) == "order"
    assert polarity("Приветствуй гостя.", RUSSIAN) == "do"


def test_rules_tier_exact_scores_on_the_corpus() -> None:
    en = rules_tier(BY_ID["en-conflict"].defect, ENGLISH)
    assert en.scores["conflict"] == 0.6  # one always/never pair: 1 − 0.4
    assert [h.reason for h in en.highlights if h.axis == "conflict"] == [
        "excludes the rule “Never tell the caller the price of a treatment…”",
        "excludes the rule “Always tell the caller the price of a…”",
    ]
    overload = rules_tier(BY_ID["en-overload"].defect, ENGLISH)
    assert overload.scores["overload"] == 1.0  # 21 constraints ≥ 20
    assert len([h for h in overload.highlights if h.axis == "overload"]) == 21
    vague = rules_tier(BY_ID["en-vague"].defect, ENGLISH)
    # 8 hedges and vague words in 6 sentences: 1 − exp(−8 / (1.5 + 0.1 × 6))
    assert vague.scores["ambiguity"] == round(1 - math.exp(-8 / 2.1), 6)
    buried_ru = rules_tier(BY_ID["ru-buried"].defect, RUSSIAN)
    # 375 words: length factor (375 − 150) / 250 = 0.9; the key rule sits at 51%, fully in the middle.
    assert buried_ru.scores["attention_dilution"] == 0.9
    assert rules_tier(BY_ID["ru-buried"].clean, RUSSIAN).scores["attention_dilution"] == 0.0


def test_overload_is_linear_between_8_and_20_constraints() -> None:
    text = "\n".join(f"Ask about item number {n}." for n in range(14))
    assert rules_tier(text, ENGLISH).scores["overload"] == 0.5
    assert rules_tier("\n".join(text.split("\n")[:8]), ENGLISH).scores["overload"] == 0.0


def test_hedge_waters_down_a_rule() -> None:
    text = "Always confirm the refund amount with the caller. Try to confirm the refund amount if possible."
    found = rules_tier(text, ENGLISH)
    assert found.scores["conflict"] == 0.5
    assert [h.reason for h in found.highlights if h.axis == "conflict"] == [
        "watered down by “Try to confirm the refund amount if possible.”",
        "waters down “Always confirm the refund amount with the…”",
    ]


def test_surprisal_tier_with_a_given_word_model() -> None:
    # Every word costs 20 bits on its own; the second sentence repeats the first word for word, so
    # under the cache model each word costs −log2(0.5 × 1/3 + 0.5 × 2^−20) ≈ 2.585 bits.
    text = "Verify account postcode. Verify account postcode."
    found = surprisal_tier(text, ENGLISH, bits=lambda word, lang: 20.0)
    drop = 1 - -math.log2(0.5 / 3 + 0.5 * 2.0 ** -20) / 20
    assert found.scores["ambiguity"] == 0.0
    assert found.scores["redundancy"] == round(0.6, 6)  # drop ≫ 0.3: the full 0.6 weight
    assert drop > 0.85
    assert [(h.start, h.end, h.axis) for h in found.highlights] == [(25, 49, "redundancy")]


def test_wordfreq_is_offline_and_knows_both_languages() -> None:
    assert 10 < wordfreq_bits("refund", "en") < 20
    assert 10 < wordfreq_bits("возврат", "ru") < 20
    assert wordfreq_bits("qzxqzxq", "en") == math.log2(1e8)


def test_generic_rules_are_ambiguous_under_surprisal() -> None:
    found = surprisal_tier("Be nice to people and do the right thing.", ENGLISH)
    assert found.scores["ambiguity"] > 0.0
    assert found.highlights[0].reason.startswith("generic wording: its words average 10.")


def test_embeddings_tier_with_given_vectors() -> None:
    text = ("Always refund duplicate charges. Never refund duplicate charges. "
            "Refund duplicate charges promptly today.")

    def embed(docs: list[str]) -> np.ndarray:
        return np.array([[1.0, 0.0], [1.0, 0.0], [0.6, 0.8]])

    found = embeddings_tier(text, ENGLISH, embed=embed)
    # Pairs: (0,1) identical, opposite polarity → conflict weight 1; (0,2) and (1,2) similarity 0.6:
    # (0,2) same direction → duplicate weight min(1, (0.6 − 0.45) / 0.55 × 2.5); (1,2) opposite → conflict.
    dup = min(1.0, (0.6 - 0.45) / 0.55 * 2.5)
    conflict_keep = (1 - 0.6) * (1 - 0.6 * min(1.0, (0.6 - 0.3) / 0.7 * 2.5))
    assert found.scores["conflict"] == round(1 - conflict_keep, 6)
    assert found.scores["redundancy"] == round(0.6 * dup, 6)


def test_combine_is_a_weighted_mean_when_no_tier_is_confident() -> None:
    h = Highlight(start=0, end=3, axis="conflict", reason="r", tier="rules")
    findings = [
        TierFindings(tier="rules", scores={"conflict": 0.4, "overload": 0.2}, highlights=[h, h]),
        TierFindings(tier="surprisal", scores={"conflict": 0.2}),
        TierFindings(tier="judge", scores={"conflict": 1.0}),  # no passage quoted: not confident
    ]
    axes = combine(findings)
    assert axes["conflict"].score == round((0.4 + 0.5 * 0.2 + 1.0) / 2.5, 4)
    assert axes["conflict"].tiers == ["rules", "surprisal", "judge"]
    assert axes["conflict"].set_by is None
    assert axes["conflict"].highlights == [h]  # duplicates dropped
    assert axes["overload"].score == 0.2 and axes["overload"].tiers == ["rules"]
    assert axes["ambiguity"].score == 0.0 and axes["ambiguity"].tiers == []


def _hl(tier: str) -> Highlight:
    return Highlight(start=0, end=3, axis="conflict", reason="r", tier=tier)  # type: ignore[arg-type]


def test_the_highest_confident_tier_sets_the_score() -> None:
    rules = TierFindings(tier="rules", scores={"conflict": 0.6}, highlights=[_hl("rules")])
    embeddings = TierFindings(tier="embeddings", scores={"conflict": 0.0})
    judge = TierFindings(tier="judge", scores={"conflict": 0.9}, highlights=[_hl("judge")])
    # The judge quotes the pair it rates 0.9: the blind embeddings tier does not average it down.
    both = combine([rules, embeddings, judge])["conflict"]
    assert (both.score, both.set_by, both.tiers) == (0.9, "judge", ["rules", "embeddings", "judge"])
    # A judge that sees nothing (0.0, no quote) is not confident: the rules tier's pair stands.
    blind_judge = TierFindings(tier="judge", scores={"conflict": 0.0})
    assert (combine([rules, embeddings, blind_judge])["conflict"].score,
            combine([rules, embeddings, blind_judge])["conflict"].set_by) == (0.6, "rules")
    # Below 0.5 a tier is not confident even with highlights.
    weak = TierFindings(tier="judge", scores={"conflict": 0.45}, highlights=[_hl("judge")])
    assert (combine([rules, weak])["conflict"].score, combine([rules, weak])["conflict"].set_by) == (0.6, "rules")
    assert confident(judge, "conflict") and not confident(blind_judge, "conflict") and not confident(weak, "conflict")


def test_max_tier_limits_the_tiers_and_says_why() -> None:
    text = BY_ID["en-redundancy"].defect
    one = analyze_prompt(text, max_tier=1)
    assert one.tiers_run == ["rules"]
    assert one.tiers_skipped == {"surprisal": "above --max-tier 1", "embeddings": "above --max-tier 1",
                                 "judge": "above --max-tier 1"}
    assert all(r.tiers == ["rules"] for r in one.axes.values())
    assert one.axes["redundancy"].score == 0.35
    full = analyze_prompt(text)
    assert full.tiers_run == ["rules", "surprisal", "embeddings"]
    assert full.tiers_skipped == {"judge": "no judge model configured"}
    assert full.axes["redundancy"].tiers == ["rules", "surprisal", "embeddings"]
    with pytest.raises(ValueError, match="max tier must be 1–4"):
        analyze_prompt(text, max_tier=0)
