"""Orderings rules impose (``verify before you look up``), and pairs of rules that order two acts
both ways.

A rule orders two acts when it says one comes before, after or until the other (``before``,
``after``, ``first …, then …``, ``until``; «до того как», «после», «сначала …, потом …», «пока не»),
or puts one act at the start or the end of the call. A prohibition turns its order round: ``Never
confirm the amount before issuing it`` puts issuing first. Acts are compared by their keys (verb
classes and the lemmas or stems of their other words, as `_conflicts` reads them), so «найди заказ»
and «искать заказ» are one act. Two orderings conflict when each act of one matches the opposite
act of the other better than its own position's (``verify → look up`` against ``look up → verify``),
or when one rule puts an act at the start of the call and another puts some other act before it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from ._conflicts import action_keys
from .patterns import LanguagePatterns

#: Two acts are the same act when their keys overlap at least this much (Jaccard).
SAME_ACT = 0.4
START = frozenset({"<start>"})
END = frozenset({"<end>"})


@dataclass(frozen=True)
class Ordering:
    """`earlier` comes before `later` (each a set of keys; START and END are the call's edges)."""

    earlier: frozenset[str]
    later: frozenset[str]


@dataclass(frozen=True)
class _Forms:
    # (pattern, whether group `a` comes first); a prohibition in group `a` turns the order round.
    binary: tuple[tuple[re.Pattern[str], bool], ...]
    # "Do not A until B": B first, and only when `a` is a prohibition.
    until: re.Pattern[str]
    # "first A, then B": A first, whatever the polarity.
    sequence: re.Pattern[str]
    start: re.Pattern[str]
    end: re.Pattern[str]
    filler: re.Pattern[str]


def _ci(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE | re.DOTALL)


@cache
def _forms(code: str) -> _Forms:
    if code == "ru":
        return _Forms(
            binary=((_ci(r"^(?P<a>.+?),?\s+(?:только\s+|лишь\s+)?(?:до того,? как|прежде чем|перед тем,? как|перед|до)"
                         r"\s+(?P<b>.+)$"), True),
                    (_ci(r"^(?P<a>.+?),?\s+(?:только\s+|лишь\s+)?(?:после того,? как|после)\s+(?P<b>.+)$"), False)),
            until=_ci(r"^(?P<a>.+?),?\s+пока\s+(?:не\s+)?(?P<b>.+)$"),
            sequence=_ci(r"^\W*(?:сначала|вначале|сперва)\s+(?P<a>.+?),?\s+(?:а\s+)?(?:потом|затем|после этого)"
                         r"\s+(?P<b>.+)$"),
            start=_ci(r"(?<!\w)(?:в (?:самом )?начале (?:разговора|звонка|диалога)|первым делом)(?!\w)"),
            end=_ci(r"(?<!\w)в (?:самом )?конце (?:разговора|звонка|диалога)(?!\w)"),
            filler=_ci(r"(?<!\w)(?:сначала|вначале|сперва|потом|затем|только|лишь)(?!\w)"),
        )
    return _Forms(
        binary=((_ci(r"^(?P<a>.+?),?\s+(?:only\s+)?(?:before|prior to)\s+(?P<b>.+)$"), True),
                (_ci(r"^(?P<a>.+?),?\s+(?:only\s+)?after\s+(?P<b>.+)$"), False)),
        until=_ci(r"^(?P<a>.+?),?\s+until\s+(?P<b>.+)$"),
        sequence=_ci(r"^\W*(?:first,?\s+)?(?P<a>.+?),?\s+(?:and\s+)?(?:then|afterwards|after that)\s+(?P<b>.+)$"),
        start=_ci(r"(?<!\w)(?:at the (?:very )?(?:start|beginning) of (?:the|each|every) (?:call|conversation)"
                  r"|first thing)(?!\w)"),
        end=_ci(r"(?<!\w)at the (?:very )?end of (?:the|each|every) (?:call|conversation)(?!\w)"),
        filler=_ci(r"(?<!\w)(?:first|then|only|you have|you've)(?!\w)|['’]s(?!\w)"),
    )


def _act(text: str, patterns: LanguagePatterns, forms: _Forms) -> frozenset[str]:
    return frozenset(action_keys(forms.filler.sub(" ", text), patterns))


def ordering_of(text: str, patterns: LanguagePatterns) -> Ordering | None:
    """The order `text` puts two acts in, or None when it orders nothing."""
    forms = _forms(patterns.code)
    body = text.rstrip(" .!;")
    if (m := forms.sequence.match(body)) is not None:
        return Ordering(_act(m["a"], patterns, forms), _act(m["b"], patterns, forms))
    for pattern, a_first in forms.binary:
        if (m := pattern.match(body)) is not None:
            a, b = _act(m["a"], patterns, forms), _act(m["b"], patterns, forms)
            # A prohibition turns the order round: "never A before B" puts B first.
            first = a_first != (patterns.prohibition.search(m["a"]) is not None)
            if a and b:
                return Ordering(a, b) if first else Ordering(b, a)
    if (m := forms.until.match(body)) is not None and patterns.prohibition.search(m["a"]) is not None:
        return Ordering(_act(m["b"], patterns, forms), _act(m["a"], patterns, forms))
    for edge, pattern in ((START, forms.start), (END, forms.end)):
        if (m := pattern.search(body)) is not None:
            act = _act(body[: m.start()] + " " + body[m.end():], patterns, forms)
            if act and patterns.prohibition.search(body) is None:
                return Ordering(edge, act) if edge is START else Ordering(act, edge)
    return None


def _same(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def _edge_clash(edged: Ordering, other: Ordering) -> bool:
    """`edged` puts an act at the start (end) of the call; `other` puts another act before (after) it."""
    if edged.earlier == START and other.earlier not in (START, END):
        return _same(edged.later, other.later) >= SAME_ACT and _same(edged.later, other.earlier) < SAME_ACT
    if edged.later == END and other.later not in (START, END):
        return _same(edged.earlier, other.earlier) >= SAME_ACT and _same(edged.earlier, other.later) < SAME_ACT
    return False


def reversed_order(a: Ordering, b: Ordering) -> bool:
    """Whether `a` and `b` put the same two acts in opposite orders."""
    if START in (a.earlier, b.earlier) or END in (a.later, b.later):
        return _edge_clash(a, b) or _edge_clash(b, a)
    crossed = (_same(a.earlier, b.later), _same(a.later, b.earlier))
    kept = (_same(a.earlier, b.earlier), _same(a.later, b.later))
    return min(crossed) >= SAME_ACT and sum(crossed) > sum(kept)
