"""Tier 2, surprisal: how much each phrase tells the model, under a word-frequency language model.

Offline the language model is `wordfreq`'s unigram frequencies (English and Russian data ship inside
the package, so nothing is downloaded). Two signals come from it:

- ambiguity: a rule whose content words are all among the most common words of the language
  ("handle things appropriately") carries little information, so the model has to guess what it means;
- redundancy: a cache language model (the unigram mixed with the words the prompt has already used)
  finds a sentence that says little new: most of its information was given before.

A server that returns token log-probabilities can stand in for wordfreq later: `surprisal_tier`
takes the word cost function as a parameter.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from functools import lru_cache

from ._models import Highlight, TierFindings
from ._rules import classify
from ._text import Unit, split_units, words_in
from .patterns import LanguagePatterns

#: Cost (bits) of a word wordfreq has never seen: rarer than anything in its lists.
UNKNOWN_BITS = math.log2(1e8)
#: A rule whose content words average fewer bits than this is generic wording. Russian words carry
#: their inflection, which makes every form rarer than the English word, hence a higher bar.
GENERIC_BITS = {"en": 11.5, "ru": 13.5}
#: Bits below GENERIC_BITS at which a rule counts as fully generic.
GENERIC_RANGE = 2.5
#: Weight of the prompt's own earlier words in the cache model.
CACHE_WEIGHT = 0.5
#: A sentence whose cache-model cost drops by more than this share repeats what came before.
REPEAT_DROP = 0.3

WordBits = Callable[[str, str], float]


@lru_cache(maxsize=65536)
def wordfreq_bits(word: str, language: str) -> float:
    """Surprisal in bits of `word` under wordfreq's unigram model of `language`."""
    from wordfreq import (
        word_frequency,  # imported late: loading its data takes a moment
    )

    freq = word_frequency(word, language, wordlist="large")
    return -math.log2(freq) if freq > 0 else UNKNOWN_BITS


def _content(unit: Unit, patterns: LanguagePatterns) -> list[str]:
    out = []
    for word in words_in(unit.text):
        low = word.text.lower().replace("’", "'")
        if len(low) > 2 and low not in patterns.stopwords:
            out.append(low)
    return out


def _generic(units: list[Unit], patterns: LanguagePatterns, bits: WordBits) -> tuple[float, list[Highlight]]:
    keep = 1.0
    highlights = []
    for unit in units:
        content = _content(unit, patterns)
        # Only rules can be vague; a number pins a rule down whatever words surround it.
        if len(content) < 2 or classify(unit, patterns) is None or any(c.isdigit() for c in unit.text):
            continue
        mean = sum(bits(w, patterns.code) for w in content) / len(content)
        bar = GENERIC_BITS[patterns.code]
        weight = min(1.0, max(0.0, (bar - mean) / GENERIC_RANGE))
        if weight > 0.0:
            keep *= 1.0 - 0.6 * weight
            highlights.append(Highlight(
                start=unit.start, end=unit.end, axis="ambiguity", tier="surprisal",
                reason=f"generic wording: its words average {mean:.1f} bits of surprisal "
                       f"(under {bar:.1f}), so little pins the rule down"))
    return round(1.0 - keep, 6), highlights


def _repeats(units: list[Unit], patterns: LanguagePatterns, bits: WordBits) -> tuple[float, list[Highlight]]:
    seen: Counter[str] = Counter()
    keep = 1.0
    highlights = []
    for unit in units:
        content = _content(unit, patterns)
        stems = [patterns.stem(w) for w in content]
        if len(content) >= 3 and seen:
            total = sum(seen.values())
            base = [bits(w, patterns.code) for w in content]
            mixed = [-math.log2(CACHE_WEIGHT * seen[s] / total + (1 - CACHE_WEIGHT) * 2.0 ** -b)
                     for s, b in zip(stems, base, strict=True)]
            drop = 1.0 - sum(mixed) / sum(base)
            if drop > REPEAT_DROP:
                keep *= 1.0 - min(1.0, (drop - REPEAT_DROP) / (1.0 - REPEAT_DROP) * 2.0) * 0.6
                highlights.append(Highlight(
                    start=unit.start, end=unit.end, axis="redundancy", tier="surprisal",
                    reason=f"says little new: given the text before it, it costs {drop:.0%} "
                           "fewer bits than on its own"))
        seen.update(stems)
    return round(1.0 - keep, 6), highlights


def surprisal_tier(text: str, patterns: LanguagePatterns, bits: WordBits = wordfreq_bits) -> TierFindings:
    """Ambiguity and redundancy from per-phrase surprisal (`bits(word, language)`)."""
    units = split_units(text)
    ambiguity = _generic(units, patterns, bits)
    redundancy = _repeats(units, patterns, bits)
    return TierFindings(tier="surprisal",
                        scores={"ambiguity": ambiguity[0], "redundancy": redundancy[0]},
                        highlights=ambiguity[1] + redundancy[1])
