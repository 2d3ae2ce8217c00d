"""Assertions on a call: its interaction metrics as names, when they do not apply, and what was misheard.

A call (`channel: voice`) carries its metrics (`VoiceCall.metrics`, names in
`polygon_core.voice.ALL_CALL_METRICS`); an assertion reads them as bare names
(`response_latency_p95 < 1.5`, `yield_rate >= 0.9`). On a text conversation, or a call where the
metric has no value (no event could measure it), an assertion naming it is `not_applicable` with the
reason, never a fail: "the agent never yielded" cannot be true or false on a call nobody interrupted.
"""

from __future__ import annotations

import ast
import difflib
import re
from collections.abc import Collection

from ..models import Conversation, InteractionMetric
from ..voice import ALL_CALL_METRICS, assertion_values

CALL_METRIC_NAMES: frozenset[str] = frozenset(ALL_CALL_METRICS)
"""Names an assertion reads on a call; on a text conversation an assertion naming one does not apply."""

# Why a metric has no value, by the events it counts (said when its count is 0).
_NO_EVENTS: dict[str, str] = {
    "response_latency": "no caller turns answered",
    "response_rate": "no caller turns",
    "yield_latency": "the caller never talked over the agent",
    "yield_rate": "the caller never talked over the agent",
    "agent_interruption_rate": "no caller turns",
    "selectivity_backchannel": "no backchannels",
    "selectivity_vocal_tic": "no vocal tics",
    "selectivity_non_directed": "no speech not directed at the agent",
    "time_to_first_audio": "the agent never spoke",
    "longest_silence": "no silence between the two sides",
    "word_error_rate": "no caller speech was heard",
}
_SAID_HEARD_TURNS = 3  # caller turns quoted in a failure message at most
_CONTEXT_WORDS = 2  # words kept on each side of what was misheard


def metric_values(conversation: Conversation) -> dict[str, float]:
    """name → value of the call's metrics that have one; empty on a text conversation."""
    if conversation.channel != "voice" or conversation.voice is None:
        return {}
    return {name: value for name, value in assertion_values(conversation.voice.metrics).items()
            if name in CALL_METRIC_NAMES}


def _base(name: str) -> str:
    # `response_latency_p95` has no value for the reason `response_latency` has none.
    return re.sub(r"_p\d+$", "", name)


def no_value_reason(name: str, conversation: Conversation) -> str:
    """Why an assertion naming call metric `name` does not apply to `conversation`, in one phrase."""
    if conversation.channel != "voice" or conversation.voice is None:
        return f"{name}: only on voice calls (this conversation is text)"
    metric = conversation.voice.metrics.get(name) or InteractionMetric()
    why = _NO_EVENTS.get(_base(name), "nothing measured it") if metric.count == 0 else "nothing measured it"
    return f"{name}: no value on this call ({why})"


def bound_names(tree: ast.AST) -> set[str]:
    """Names a comprehension in `tree` binds (`x` in `[x for x in calls]`)."""
    return {n.id for node in ast.walk(tree) if isinstance(node, ast.comprehension)
            for n in ast.walk(node.target) if isinstance(n, ast.Name)}


def metrics_named(tree: ast.AST, shadowed: Collection[str] = ()) -> list[str]:
    """The call metrics an expression reads as bare names, in source order, once each.

    A name bound by a comprehension, or `shadowed` (a tool or event of the same name), is not one.
    """
    skip = bound_names(tree) | set(shadowed)
    found = sorted((n.lineno, n.col_offset, n.id) for n in ast.walk(tree)
                    if isinstance(n, ast.Name) and n.id in CALL_METRIC_NAMES and n.id not in skip)
    return list(dict.fromkeys(name for _, _, name in found))


def inapplicable_metric(tree: ast.AST, conversation: Conversation, shadowed: Collection[str] = ()) -> str | None:
    """The reason an assertion does not apply (the first call metric it names that has no value), or None."""
    values = metric_values(conversation)
    for name in metrics_named(tree, shadowed):
        if name not in values:
            return no_value_reason(name, conversation)
    return None


# -- said vs heard ---------------------------------------------------------------------------------

def _key(word: str) -> str:
    # Case and the punctuation around a word are not mishearings ("Fifteen," was heard as "fifteen").
    return re.sub(r"^\W+|\W+$", "", word.casefold())


def _excerpt(words: list[str], start: int, end: int) -> str:
    lo, hi = max(0, start - _CONTEXT_WORDS), min(len(words), end + _CONTEXT_WORDS)
    return ("…" if lo > 0 else "") + " ".join(words[lo:hi]) + ("…" if hi < len(words) else "")


def said_heard(said: str, heard: str) -> tuple[str, str] | None:
    """The part of `said` the agent heard otherwise, and what it heard, with a little context on each
    side (`…at fifteen past…`, `…at fifty past…`); None when they agree but for case and punctuation."""
    a, b = said.split(), heard.split()
    ka, kb = [_key(w) for w in a], [_key(w) for w in b]
    if [k for k in ka if k] == [k for k in kb if k]:
        return None
    changed = [op for op in difflib.SequenceMatcher(a=ka, b=kb, autojunk=False).get_opcodes() if op[0] != "equal"]
    a_lo, a_hi = changed[0][1], changed[-1][2]
    b_lo, b_hi = changed[0][3], changed[-1][4]
    return _excerpt(a, a_lo, a_hi), _excerpt(b, b_lo, b_hi)


def misheard_lines(conversation: Conversation, limit: int = _SAID_HEARD_TURNS) -> list[str]:
    """`turn 2: said "…at fifteen past…" / heard "…at fifty past…"` for the first `limit` caller turns
    of a call whose words the agent heard otherwise (none on a text conversation)."""
    if conversation.channel != "voice":
        return []
    lines: list[str] = []
    for turn in conversation.turns:
        if turn.speaker != "caller" or turn.heard is None:
            continue
        found = said_heard(turn.text, turn.heard)
        if found is not None:
            lines.append(f'turn {turn.index}: said "{found[0]}" / heard "{found[1]}"')
        if len(lines) == limit:
            break
    return lines


def with_misheard(message: str | None, conversation: Conversation) -> str | None:
    """A failed assertion's message, followed on a call by what the agent heard otherwise (if anything)."""
    lines = misheard_lines(conversation)
    if not lines:
        return message
    heard = "what the agent heard differs from what the caller said: " + "; ".join(lines)
    return f"{message}; {heard}" if message else heard
