"""An offline heuristic for `cites_only(knowledge_base)`: did the agent invent policy?

1. The agent's turns are split into sentences.
2. A sentence states policy when it carries a policy marker ("our policy", "policy is", "we always",
   "you are entitled", "by law", "наша политика", "по правилам", "мы гарантируем", ...).
3. The claim is the sentence without its marker ("Our policy is that refunds take 5 days" → "refunds
   take 5 days"); a claim of under three words ("That is our policy.") borrows the previous sentence
   of the same turn, which is what such a sentence points at.
4. The claim is cited when some knowledge-base statement matches it with rapidfuzz `partial_ratio`
   or `token_set_ratio` ≥ 80 (on lower-cased, punctuation-free text).

It is a heuristic, labelled `offline-heuristic` in results: paraphrases far from the knowledge
base's wording count as uncited, and a policy stated without any marker is not seen at all.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz
from rapidfuzz.utils import default_process

from ..models import Conversation

CITATION_THRESHOLD = 80.0
"""Minimum rapidfuzz score (0-100) for a policy sentence to count as cited."""

POLICY_MARKERS: tuple[str, ...] = (
    r"\b(?:it\s+is|it's|that\s+is|that's)\s+(?:our\s+|company\s+)?policy\b",
    r"\bour\s+(?:company\s+|refund\s+|return\s+|standard\s+)?polic(?:y|ies)\b",
    r"\bcompany\s+policy\b",
    r"\bpolicy\s+(?:is|says|states|requires|allows|does\s+not|doesn't)\b",
    r"\b(?:per|under|according\s+to)\s+(?:our\s+|the\s+)?polic(?:y|ies)\b",
    r"\bwe\s+(?:always|never|guarantee)\b",
    r"\byou\s+(?:are|'re)\s+(?:legally\s+)?entitled\b",
    r"\byou're\s+(?:legally\s+)?entitled\b",
    r"\bby\s+law\b",
    r"\bthe\s+law\s+(?:says|requires)\b",
    r"\bнаш[аеиу]\w*\s+политик\w*",
    r"\bполитик\w*\s+компани\w*",
    r"\bсогласно\s+(?:нашей\s+)?политик\w*",
    r"\bпо\s+правилам\b",
    r"\bпо\s+закону\b",
    r"\bмы\s+(?:всегда|никогда|гарантируем)\b",
    r"\bвы\s+имеете\s+право\b",
)
"""Regular expressions (case-insensitive) that mark a sentence as a statement of policy."""

_MARKER = re.compile("|".join(f"(?:{p})" for p in POLICY_MARKERS), re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+|\n+")
_LEAD = re.compile(
    r"^[\s,:;—–-]*(?:(?:is|says|states|requires|that|это|что|:)[\s,:;—–-]*)*", re.IGNORECASE
)


@dataclass(frozen=True)
class PolicyFinding:
    """One policy sentence the agent said and how well the knowledge base covers it."""

    turn: int
    sentence: str
    claim: str
    score: float
    statement: str | None

    @property
    def cited(self) -> bool:
        """True when some knowledge-base statement matches at or above the threshold."""
        return self.score >= CITATION_THRESHOLD


def split_sentences(text: str) -> list[str]:
    """Sentences of `text` (split after . ! ? … and at line breaks)."""
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]


def is_policy_sentence(sentence: str) -> bool:
    """True when `sentence` carries a policy marker."""
    return _MARKER.search(sentence) is not None


def _claim(sentence: str, previous: str | None) -> str:
    claim = _LEAD.sub("", _MARKER.sub(" ", sentence)).strip(" .!?…")
    if len(default_process(claim).split()) < 3 and previous:
        return previous
    return claim


def _score(claim: str, sentence: str, statements: Sequence[str]) -> tuple[float, str | None]:
    best, best_statement = 0.0, None
    texts = [default_process(claim), default_process(sentence)]
    for statement in statements:
        kb = default_process(statement)
        if not kb:
            continue
        for text in texts:
            if not text:
                continue
            score = max(fuzz.partial_ratio(text, kb), fuzz.token_set_ratio(text, kb))
            if score > best:
                best, best_statement = score, statement
    return best, best_statement


def policy_findings(conversation: Conversation, statements: Sequence[str]) -> list[PolicyFinding]:
    """Every policy sentence of the agent, in order, scored against `statements`."""
    findings: list[PolicyFinding] = []
    for turn in conversation.turns:
        if turn.speaker != "agent":
            continue
        previous: str | None = None
        for sentence in split_sentences(turn.text):
            if is_policy_sentence(sentence):
                claim = _claim(sentence, previous)
                score, statement = _score(claim, sentence, statements)
                findings.append(PolicyFinding(turn.index, sentence, claim, score, statement))
            previous = sentence
    return findings
