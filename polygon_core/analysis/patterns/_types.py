"""What a language contributes to the rules tier: word lists and a crude stemmer."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class LanguagePatterns:
    """Patterns of one language. Every regex is matched case-insensitively on the original text.

    - `obligation`: strong positive rule words (always, must, make sure).
    - `prohibition`: negative rule words (never, do not, must not).
    - `permission`: rule words that allow (may, can, allowed to).
    - `hedges`: modal hedges that soften a rule (try to, if possible, ideally).
    - `vague`: quantifiers and adjectives with no fixed meaning (some, appropriate, etc.).
    - `key_markers`: words that mark a rule as key (important, critical, under no circumstances).
    - `condition`: words that make a prohibition a sequencing rule ("do not refund *until* verified"
      says the same as "verify before you refund"; it is not the opposite of it).
    - `imperative_start`: a sentence that opens with an order to the agent.
    - `precedence`: words by which a rule says it wins over another ("this exception overrides the
      rule above"): a reader then sees no conflict between the two.
    - `stopwords`: words left out when comparing what two rules are about.
    """

    code: str
    obligation: re.Pattern[str]
    prohibition: re.Pattern[str]
    permission: re.Pattern[str]
    hedges: re.Pattern[str]
    vague: re.Pattern[str]
    key_markers: re.Pattern[str]
    condition: re.Pattern[str]
    imperative_start: re.Pattern[str]
    precedence: re.Pattern[str]
    stopwords: frozenset[str]
    stem: Callable[[str], str]


def words(*items: str) -> str:
    """An alternation of phrases as whole words (longest first, so `a few` beats `a`)."""
    ordered = sorted(items, key=len, reverse=True)
    body = "|".join(re.escape(item).replace(r"\ ", r"\s+") for item in ordered)
    return rf"(?<!\w)(?:{body})(?!\w)"


def compile_ci(pattern: str) -> re.Pattern[str]:
    """Compile case-insensitively (Unicode is the default for str patterns)."""
    return re.compile(pattern, re.IGNORECASE)
