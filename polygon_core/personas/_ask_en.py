"""The facts an English prompt asks callers for, and the tasks each list is for.

"To renew or place a hold, always ask for the library card number and the caller's date of birth"
names two facts (`_facts.KINDS`) for the tasks "renew" and "place a hold"; "Ask for the owner's
name, the pet's name and a phone number" names three for every task. "verify" and "confirm" lists
("verify the caller's identity (account number and postcode)") count only the kinds we know, since
what follows them is as often a step as a fact.
"""

from __future__ import annotations

import re

from ._facts import Ask, known_key_en, stem, vague
from ._readingtypes import slug

_ASK = re.compile(r"\b(?:(?P<ask>ask(?:\s+(?:the\s+|each\s+)?(?:caller|customer|patient|guest|client|owner|user|member)s?"
                  r"|\s+them)?\s+for|request|collect|take down|note down|write down)"
                  r"|(?P<check>verify|confirm|check|ask))\s+", re.IGNORECASE)
# Where a list ends: a clause of its own, or the end of the sentence.
_LIST_END = re.compile(r"\s+(?:before|after|to|when|if|unless|so|for|in order to|with|because|then)\s+|[.;:!?]|$",
                       re.IGNORECASE)
_SCOPE_CLAUSE = re.compile(r"\b(?:before|to|when|for|in order to)\s+(.*)$", re.IGNORECASE)
_SPLIT = re.compile(r",\s*(?:and\s+|or\s+)?|\s+and\s+|\s+or\s+|\s+as well as\s+|\s+plus\s+", re.IGNORECASE)
_DETERMINER = re.compile(r"^(?:also\s+)?(?:the|a|an|your|their|his or her|his|her|its|which|what|"
                         r"the (?:caller|customer|patient|guest|client|user)['’]s)\s+", re.IGNORECASE)
_SCOPE_STOP = frozenset({"to", "or", "and", "a", "an", "the", "you", "before", "after", "for", "always", "also",
                         "first", "make", "any", "each", "every", "caller", "callers", "customer", "customers",
                         "patient", "patients", "guest", "guests", "client", "clients", "them", "they", "their",
                         "when", "in", "order", "please", "then", "of", "on", "with", "can", "will", "must",
                         "should", "need", "needs", "someone", "is", "are", "verify", "identity"})
_NEGATED = re.compile(r"\b(?:never|not|don't|don’t|cannot|can't)\s+$", re.IGNORECASE)
_SERVICE_FRAME = re.compile(r"\b(?:help|helps|calls? (?:you|us) to|can|may)\b[^.;:]*?(?:\bto|\bor|\band|,|\bcan|\bmay|"
                            r"\bhelps?(?:\s+[a-z]+)?)\s*$", re.IGNORECASE)
_WHOM_WITH = re.compile(r"^(?:the\s+|a\s+|each\s+)?(?:caller|customer|patient|member|client|guest|user|account holder)s?"
                        r"\s+(?:with|using|by)\s+", re.IGNORECASE)
# "… and when they would like to come in": the list's last item is when the caller wants it.
_WHEN_WANTED = re.compile(r"\s+when\s+(?:they|the (?:caller|customer|patient|client|guest)s?)\s+(?:would like|want|wants|"
                          r"prefer|prefers|can)\b", re.IGNORECASE)
# A scope over "anything" is no scope at all.
_EVERYTHING = frozenset({"anything", "everything", "something"})


def _items(text: str) -> list[str]:
    inner = re.search(r"\(([^)]*)\)", text)
    outer = re.sub(r"\([^)]*\)", " ", text)
    parts = [outer] + ([inner.group(1)] if inner else [])
    items = []
    for part in parts:
        end = _LIST_END.search(part)
        for raw in _SPLIT.split(part[: end.start()] if end else part):
            item = raw.strip().lower()
            while _DETERMINER.match(item):
                item = _DETERMINER.sub("", item).strip()
            if item:
                items.append(item)
    return items


def _key(item: str, known_only: bool) -> str | None:
    words = re.findall(r"[a-z0-9'’-]+", item)
    if vague(words):
        return None
    key = known_key_en(item)
    # After "verify"/"confirm" a kind we do not know counts when it is id-like ("student number").
    id_like = bool(words) and words[-1] in ("number", "id", "code", "reference", "no")
    if key or (known_only and not id_like) or len(words) > 5 or "_" in item:
        return key
    # Its own words, without articles: "the date of the damage" is `date_of_damage`.
    item = re.sub(r"\s+(?:itself|themselves)$", "", item)  # "the reading itself" is the reading
    item = re.sub(r"^[a-z]+['’]s\s+(?=\S)", "", item)  # "the applicant's student number": whose is no part of it
    return slug(re.sub(r"\b(?:the|a|an)\s+", "", re.sub(r"['’]s\b", "", item)))


def _scope(text: str) -> tuple[str, ...]:
    words = [w.lower() for w in re.findall(r"[A-Za-z][A-Za-z'’-]*", text)]
    if _EVERYTHING & set(words):
        return ()
    return tuple(dict.fromkeys(stem(w) for w in words if w not in _SCOPE_STOP and len(w) > 2))


def english_asks(sentence: str) -> list[Ask]:
    """The "ask for …" lists of one sentence, with the task words that scope each."""
    asks = []
    for m in _ASK.finditer(sentence):
        if _NEGATED.search(sentence[: m.start()]):
            continue  # "never ask for the PIN" names what the agent must not ask
        if _SERVICE_FRAME.search(sentence[: m.start()]):
            continue  # "callers call you to check the status …, or request a prospectus": a task, not an ask
        rest = _WHOM_WITH.sub("", sentence[m.end():])  # "verify the customer with their account number"
        keys = [k for k in (_key(i, m.group("check") is not None) for i in _items(rest)) if k]
        list_end = _LIST_END.search(rest)
        if list_end and _WHEN_WANTED.match(rest[list_end.start():]):
            keys.append("slot")  # "ask which treatment they need and when they would like to come in"
        if not keys:
            continue
        outer = re.sub(r"\([^)]*\)", " ", rest)
        end = _LIST_END.search(outer)
        after = _SCOPE_CLAUSE.search(outer[end.start():]) if end else None
        scope_text = sentence[: m.start()] + " " + (after.group(1) if after else "")
        asks.append(Ask(tuple(dict.fromkeys(keys)), _scope(scope_text)))
    return asks
