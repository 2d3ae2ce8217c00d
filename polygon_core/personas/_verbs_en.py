"""Where an English prompt puts a verb the list of service verbs lacks ("freeze", "rent", "extend").

A verb is known by its place, not its word: after "help" (and whom it helps: "help members freeze
…"), after "you can", "callers can" or "call you to", and, once a sentence has named a task, as the next item of
its list when an article follows ("…, extend a rental, or add a child seat").
"""

from __future__ import annotations

PEOPLE = frozenset({"callers", "customers", "patients", "clients", "members", "guests", "users", "people",
                    "them", "owners", "residents", "passengers", "students", "parents", "tenants", "visitors"})
_SINGULAR = frozenset({"caller", "customer", "member", "patient", "client", "guest", "user", "someone", "anyone"})
_DETERMINERS = frozenset({"a", "an", "the", "my", "their", "your", "his", "her", "our", "any", "new", "existing"})
_FUNCTION = frozenset({"be", "not", "also", "help", "you", "with", "out", "get", "only", "then", "please", "always",
                       "never", "if", "when", "and", "or", "but", "to", "for", "of", "on", "in", "at", "by", "from",
                       "it", "them", "that", "this", "what", "which", "who", "so", "as", "than", "there", "here"})


def person(word: str) -> bool:
    """Whom a service is for: a caller word, or a plural (a bare verb does not end in one -s)."""
    return word in PEOPLE or word in _SINGULAR or (word.endswith("s") and not word.endswith("ss") and len(word) > 3)


def _verb_like(word: str, stop: frozenset[str]) -> bool:
    return word.isalpha() and word not in stop and word not in _FUNCTION and word not in _DETERMINERS and not person(word)


def framed_verb(low: list[str], i: int, stop: frozenset[str]) -> bool:
    """Whether token `i` is the verb that "help [whom] [to]", "you can" or "callers can" takes."""
    back = low[max(0, i - 5):i]
    while back and back[-1] in ("to", "also"):
        back.pop()
    if len(back) >= 2 and back[-2] in ("call", "calls", "contact", "phone", "ring") and back[-1] in ("you", "us"):
        return _verb_like(low[i], stop)  # "customers call you to submit a meter reading"
    if back and back[-1] in ("can", "may"):
        return len(back) >= 2 and (back[-2] == "you" or person(back[-2])) and _verb_like(low[i], stop)
    if back and person(back[-1]):  # "help policyholders report …": the plural is whom it helps
        back.pop()
        while back and back[-1] in _DETERMINERS | {"each"}:
            back.pop()
    return bool(back) and back[-1] in ("help", "helps") and _verb_like(low[i], stop)


def listed_verb(low: list[str], i: int, stop: frozenset[str]) -> bool:
    """Whether token `i` opens the next item of a list of tasks: after ",", "or" or "and", with an
    article after it ("…, extend a rental, or add a child seat"). Only once a task was named."""
    return (i > 0 and low[i - 1] in (",", "or", "and") and i + 1 < len(low) and low[i + 1] in _DETERMINERS
            and _verb_like(low[i], stop))
