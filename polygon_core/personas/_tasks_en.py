"""English task phrases in the caller's words, questions a prompt answers, and handover triggers.

- The agent's object becomes the caller's: "register new library cards" is "register for a new
  library card", "renew borrowed books" is "renew my borrowed books", "an existing reservation" is
  "my reservation".
- A stated fee or time is a question a caller asks: "Late fees are 25 cents per day" → "find out how
  much late fees are"; "Check-in is from 3 pm" → "find out when check-in is".
- A handover's trigger is the caller's goal: "If the caller wants to dispute a lost-item charge,
  transfer them to the circulation desk" → "dispute a lost-item charge" (a transfer task).
"""

from __future__ import annotations

import re

from ._facts import stem
from ._readingtypes import TaskSpec, slug

_PREPOSITIONS = frozenset({"for", "of", "on", "in", "at", "with", "from", "to", "about", "by", "per"})
_DETERMINERS = frozenset({"a", "an", "the", "my", "your", "their", "our", "his", "her", "some", "any"})
_PEOPLE = re.compile(r"^(?:new\s+)?(?:patients?|clients?|customers?|members?|guests?|users?|students?|pets?)\b", re.I)
_OWNED = re.compile(r"(?:\b(?:an?|the)\s+)?\b(?:existing|current)\s+", re.IGNORECASE)
_MINE = re.compile(r"(?<!\bmy )\b(borrowed|recent|upcoming|booked|reserved|scheduled|placed|outstanding)\b", re.I)
_STOP_WORDS = frozenset({"find", "out", "get", "ask", "about", "how", "much", "when", "the", "a", "an", "my", "is",
                         "are", "for", "of", "to", "on", "in", "at", "with", "from", "report", "that", "costs"})


def cue_stems(goal: str) -> tuple[str, ...]:
    """The stems of a goal's own words, its verb first (what an ask's scope is matched against)."""
    words = [w for w in re.findall(r"[a-z][a-z'-]*", goal.lower()) if w not in _STOP_WORDS or w == goal.split()[0]]
    return tuple(dict.fromkeys(stem(w) for w in words))


def singular(word: str) -> str:
    """`cards` → `card`, `categories` → `category` (a plural head noun only)."""
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "shes", "ches", "xes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3:
        return word[:-1]
    return word


def mine(text: str) -> str:
    """The caller's own things: "an existing reservation" → "my reservation", "recent X" → "my recent X"."""
    return _MINE.sub(r"my \1", _OWNED.sub("my ", text))


def caller_object(verb: str, obj: str) -> str:
    """The agent's object in the caller's words (see the module docstring)."""
    text = mine(obj)
    words = text.split()
    if not words:
        return text
    if verb == "register":
        if _PEOPLE.match(text):
            return "as " + _with_article(" ".join([words[0], singular(words[1])] if words[0] == "new" and len(words) > 1
                                                  else [singular(words[0]), *words[1:]]))
        return "for " + _singular_head(words)
    if words[0].lower() in _DETERMINERS:
        return text
    return _singular_head(words)


def _singular_head(words: list[str]) -> str:
    # The head noun is the last word before the first preposition: "holds on titles" → "a hold on
    # titles"; a phrase whose head is not plural ("medical advice") is left as it is.
    end = next((i for i, w in enumerate(words) if w.lower() in _PREPOSITIONS and i), len(words))
    head = singular(words[end - 1])
    if head == words[end - 1]:
        return " ".join(words)
    return _with_article(" ".join([*words[: end - 1], head, *words[end:]]))


def _with_article(phrase: str) -> str:
    first = phrase.split()[0].lower() if phrase.split() else ""
    return phrase if first in _DETERMINERS else ("an " if first[:1] in "aeiou" else "a ") + phrase


_MONEY = r"(?:[$£€]\s?\d|\d+(?:[.,]\d+)?\s?(?:dollars?|pounds?|euros?|cents?|pence)\b)"
_STATED_FEE = re.compile(rf"(?:^|[;,]\s*|\band\s+)(the\s+|a\s+|an\s+|our\s+)?([a-z][a-z -]{{2,40}}?)\s+(is|are)\s+"
                         rf"(?:only\s+|just\s+)?{_MONEY}", re.IGNORECASE)
_STATED_TIME = re.compile(r"(?:^|[;,]\s*|\band\s+)(the\s+|our\s+)?([a-z][a-z -]{2,30}?)\s+(is|are)\s+"
                          r"(?:from|until|by|at|between|after|before)\s+(?:\d|noon|midnight)", re.IGNORECASE)
_VAGUE_SUBJECT = frozenset({"it", "this", "that", "which", "what", "there", "here", "everything", "price"})


def stated_tasks(sentence: str) -> list[TaskSpec]:
    """Questions a prompt answers by stating a fee or a time ("Late fees are 25 cents")."""
    tasks = []
    for pattern, template in ((_STATED_FEE, "find out how much {x} {be}"), (_STATED_TIME, "find out when {x} {be}")):
        for m in pattern.finditer(sentence):
            subject = m.group(2).strip().lower()
            if subject.split()[-1] in _VAGUE_SUBJECT or subject.split()[0] in _VAGUE_SUBJECT:
                continue
            # "The excess is 250 dollars" keeps its article ("how much the excess is"); "our" is "the".
            article = {"our": "the"}.get((m.group(1) or "").strip().lower(), (m.group(1) or "").strip().lower())
            goal = template.format(x=f"{article} {subject}".strip(), be=m.group(3).lower())
            name = slug("_".join(["ask", *[singular(w) for w in subject.split()][:2]]))
            # The template's "find out" is no verb of the prompt's: an ask "to find a booking" is not for it.
            tasks.append(TaskSpec(name, ("-", *cue_stems(goal)[1:]), (goal,)))
    return tasks


_TRIGGER = re.compile(r"\b(?:if|when)\s+(?:the\s+|a\s+|an\s+)?(?:caller|customer|patient|client|guest|owner|user|member|"
                      r"someone|they)s?\s+(wants?|wishes?|needs?|would like|asks?|tries|reports?|complains?|"
                      r"calls?)\s+(to\s+|for\s+|about\s+)?([^,;:.]+)", re.IGNORECASE)
# Any one-word subject will do for a wish or a complaint ("If a passenger complains about …"):
# only a person wants, asks or complains.
_WISH = re.compile(r"\b(?:if|when)\s+(?:the\s+|a\s+|an\s+)[a-z]+\s+(wants?|wishes?|would like|asks?|complains?)\s+"
                   r"(to\s+|for\s+|about\s+)?([^,;:.]+)", re.IGNORECASE)
# A wish with its verb left out: "if the caller wants to", "if they would like so".
_ELLIPTIC = re.compile(r"(?:to|so|that|it|this|one)?", re.IGNORECASE)
_CONDITION = re.compile(r"\b(?:if|when)\s+([^,;:.]+)", re.IGNORECASE)
# "If the caller is unhappy with a repair": the caller complains about it.
_UNHAPPY = re.compile(r"\b(?:if|when)\s+(?:the\s+|a\s+|an\s+)?[a-z]+\s+(?:is|are)\s+(?:unhappy|dissatisfied|not happy|"
                      r"upset|displeased)\s+(?:with|about)\s+([^,;:.]+)", re.IGNORECASE)
_OWNER = re.compile(r"\b(?:their|his or her|the (?:caller|patient|customer|client|guest)['’]s)\b", re.IGNORECASE)


def trigger_task(sentence: str, *, situation: bool = True) -> TaskSpec | None:
    """The caller's goal that a handover sentence names ("If the caller wants to …, transfer …").

    With `situation`, a condition that is not a caller's wish is reported: "If a card was used
    abroad, transfer …" → "report that a card was used abroad".
    """
    m = _TRIGGER.search(sentence) or _WISH.search(sentence)
    if m and _ELLIPTIC.fullmatch(m.group(3).strip()):
        return None  # "If the caller wants to, transfer them": a handover on request, no goal of its own
    if m:
        verb, link, rest = m.group(1).lower(), (m.group(2) or "").strip().lower(), m.group(3).strip()
        rest = _OWNER.sub("my", re.sub(r"\s+(?:then|now|immediately|right away)$", "", rest))
        if verb.startswith("report"):
            goal = f"report {rest}"
        elif verb.startswith("complain"):
            goal = f"complain {link} {rest}".replace("  ", " ") if link else f"complain about {rest}"
        elif link == "to":
            goal = rest
        elif link == "about":
            goal = f"ask about {rest}"
        else:
            goal = f"get {rest}"
    elif (unhappy := _UNHAPPY.search(sentence)) is not None:
        goal = f"complain about {_OWNER.sub('my', unhappy.group(1).strip())}"
    else:
        cond = _CONDITION.search(sentence) if situation else None
        if not cond or re.search(r"\b(?:you|your|in doubt|unsure)\b", cond.group(1), re.IGNORECASE):
            return None
        goal = f"report that {_OWNER.sub('my', cond.group(1).strip())}"
    words = [w for w in re.findall(r"[a-z]+", goal.lower()) if w not in _STOP_WORDS or w == goal.split()[0]]
    return TaskSpec(slug("_".join(words[:3])), cue_stems(goal), (goal,), kind="transfer")
