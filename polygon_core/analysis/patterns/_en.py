"""English patterns of the rules tier."""

from __future__ import annotations

import re

from ._types import LanguagePatterns, compile_ci, words

_NEG = ("do not", "don't", "don’t", "never", "must not", "mustn't", "should not", "shouldn't",
        "cannot", "can't", "may not", "not allowed", "is forbidden", "are forbidden", "under no circumstances",
        "avoid", "refuse to")

_OBLIGATION = ("always", "must", "make sure", "ensure", "be sure to", "have to", "has to", "need to",
               "required to", "is required", "are required", "every time", "without exception", "shall")

_PERMISSION = ("may", "can", "is allowed", "are allowed", "allowed to", "feel free to", "it is fine to",
               "it is ok to", "you are free to", "is permitted", "are permitted")

_HEDGES = ("try to", "try and", "if possible", "where possible", "when possible", "ideally", "might",
           "could", "should probably", "may want to", "perhaps", "maybe", "if you can", "as much as possible",
           "if needed", "as needed", "when appropriate", "if appropriate", "where appropriate",
           "as appropriate", "to some extent", "more or less", "generally", "in general", "preferably",
           "it would be nice", "attempt to")

_VAGUE = ("some", "several", "a few", "a couple of", "many", "much", "often", "usually", "sometimes",
          "occasionally", "frequently", "appropriate", "appropriately", "reasonable", "reasonably",
          "properly", "proper", "relevant", "certain", "etc", "etc.", "and so on", "things", "stuff",
          "various", "soon", "as soon as possible", "quickly", "in a timely manner", "adequate",
          "adequately", "sufficient", "suitable", "suitably", "normal", "normally", "a bit", "a lot",
          "fairly", "somewhat", "kind of", "sort of", "whatever", "and similar", "the right",
          "too long", "too much", "unusual", "if necessary", "when necessary", "as necessary")

_KEY = ("important", "importantly", "critical", "critically", "crucial", "essential", "vital", "mandatory",
        "under no circumstances", "above all", "key rule", "most important", "non-negotiable", "strictly",
        "absolutely", "must never", "never ever", "at all costs", "warning", "note:")

_IMPERATIVE_VERBS = (
    "ask", "answer", "apologise", "apologize", "avoid", "be", "book", "call", "cancel", "check", "collect",
    "confirm", "continue", "do", "don't", "end", "escalate", "explain", "follow", "give", "greet", "handle",
    "help", "include", "inform", "keep", "let", "list", "look", "mention", "note", "offer", "provide", "read",
    "record", "refer", "refund", "refuse", "remember", "repeat", "reply", "respond", "say", "send",
    "speak", "spell", "stay", "stop", "suggest", "summarise", "summarize", "tell", "thank", "transfer",
    "treat", "use", "verify", "wait", "write", "close", "open", "start", "finish", "limit", "match",
    "quote", "state", "address", "politely", "only", "please", "never", "always", "make", "ensure",
)

# Function words and words every rule shares ("caller", "agent") say nothing about a rule's subject.
_STOPWORDS = frozenset(["a", "an", "the", "and", "or", "but", "if", "then", "else", "when", "while", "of", "to", "in", "on", "at", "by", "for", "with", "from", "into", "onto", "about", "as", "is", "are", "was", "were", "be", "been", "being", "am", "do", "does", "did", "done", "doing", "have", "has", "had", "having", "it", "its", "this", "that", "these", "those", "there", "here", "you", "your", "yours", "we", "our", "us", "they", "them", "their", "he", "she", "his", "her", "i", "me", "my", "mine", "not", "no", "nor", "so", "than", "too", "very", "can", "could", "may", "might", "must", "shall", "should", "will", "would", "just", "also", "only", "any", "all", "each", "every", "either", "neither", "both", "some", "such", "own", "same", "other", "more", "most", "less", "least", "few", "many", "much", "what", "which", "who", "whom", "whose", "why", "how", "where", "always", "never", "ever", "dont", "don't", "don’t", "make", "sure", "ensure", "please", "try", "need", "needs", "caller", "callers", "customer", "customers", "user", "users", "agent", "assistant", "one", "ones", "thing", "things", "way", "ways"])

_SUFFIXES = ("ational", "ization", "ations", "ation", "ments", "ment", "ness", "ings", "ing", "ies",
             "ied", "edly", "ed", "ers", "er", "ly", "es", "s", "e")


def stem(word: str) -> str:
    """A crude suffix-stripping stem: enough to match `refund`, `refunds` and `refunding`."""
    w = word.lower().replace("’", "'")
    for suffix in _SUFFIXES:
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[: -len(suffix)]
            break
    # `verify`/`verified` → `verif`; a trailing y and i are one letter apart in English stems.
    return w[:-1] if w.endswith(("y", "i")) and len(w) > 4 else w


PATTERNS = LanguagePatterns(
    code="en",
    obligation=compile_ci(words(*_OBLIGATION)),
    prohibition=compile_ci(words(*_NEG)),
    permission=compile_ci(words(*_PERMISSION)),
    hedges=compile_ci(words(*_HEDGES)),
    vague=compile_ci(words(*_VAGUE)),
    # Shouting (NEVER, IMPORTANT) marks a key rule too; only that part is case-sensitive.
    key_markers=re.compile(words(*_KEY) + r"|(?-i:(?<!\w)[A-Z]{4,}(?!\w))", re.IGNORECASE),
    condition=compile_ci(words("until", "unless", "before", "without", "except", "only after", "only once")),
    imperative_start=compile_ci(r"^\W*(?:" + words(*_IMPERATIVE_VERBS) + ")"),
    precedence=compile_ci(words("overrides", "override", "takes precedence", "take precedence", "wins over",
                                "has priority", "exception to the rule", "exception to this rule",
                                "regardless of the rule", "notwithstanding", "even so")),
    stopwords=_STOPWORDS,
    stem=stem,
)
