"""The built-in probe signals: the offline heuristics that answer a probe yes / no / na from a
transcript and its checks, each registered with `@probe_signal(name)` (`_signal_registry.py`).

A probe names one by its `signal` (or by its id); `load_probes` refuses a name not in `PROBE_SIGNALS`
and the probe library's JSON Schema lists them. The offline answerer (`polygon_core.judging`'s
`answer_probes_offline`) runs them.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

from ..checks import Checks, FactMismatch
from ..models import Conversation, Turn
from ._signal_registry import SignalAnswer, probe_signal

_CLARIFY = ("didn't catch", "say that again", "tell me again", "put it more simply", "repeat")
_PROMISES = ("guarantee", "i promise", "definitely be", "100%")


def _agent(conv: Conversation) -> list[Turn]:
    return [t for t in conv.turns if t.speaker == "agent" and t.text]


def _first(turns: Sequence[Turn], cues: Sequence[str]) -> Turn | None:
    return next((t for t in turns if any(c in t.text.lower() for c in cues)), None)


@probe_signal("asked_again_after_strange_reply")
def _asked_again(conv: Conversation, checks: Checks) -> SignalAnswer:
    strange = [t for t in conv.turns if t.speaker == "caller" and t.heard not in (None, t.text)]
    confused = [t for t in conv.turns if t.speaker == "caller" and "what do you mean" in t.text.lower()]
    if not strange and not confused:
        return "na", None
    hit = _first(_agent(conv), _CLARIFY)
    return ("yes", hit.text) if hit else ("no", None)


@probe_signal("gave_reason_for_refusal")
def _reason_for_refusal(conv: Conversation, checks: Checks) -> SignalAnswer:
    refusal = _first(_agent(conv), ("can't", "cannot", "unable", "not able"))
    if refusal is None:
        return "na", None
    has_reason = any(c in refusal.text.lower() for c in ("because", ":", "only", "not refundable", "policy"))
    return ("yes" if has_reason else "no"), refusal.text


@probe_signal("made_unkeepable_promise")
def _unkeepable_promise(conv: Conversation, checks: Checks) -> SignalAnswer:
    hit = _first(_agent(conv), _PROMISES)
    return ("yes", hit.text) if hit else ("no", None)


def _consequential(conv: Conversation, checks: Checks) -> list[tuple[int, str]]:
    """The calls that acted and went through: tools the library marks `consequential` or whose stub
    writes state (`Checks.acting_tools`), never a list of one suite's tool names."""
    acting = set(checks.acting_tools)
    return [(t.index, c.name) for t in conv.turns for c in t.tool_calls
            if c.name in acting and c.valid and not c.error]


def _acted_on_wrong_facts(checks: Checks) -> FactMismatch | None:
    """The first call that acted on a fact contradicting the caller's ground truth."""
    return next((m for m in checks.fact_mismatches if m.acts), None)


@probe_signal("verified_identity_before_action")
def _verified_first(conv: Conversation, checks: Checks) -> SignalAnswer:
    actions = _consequential(conv, checks)
    if not actions:
        return "na", None
    wrong = _acted_on_wrong_facts(checks)
    if wrong is not None:  # acting under another person's name verified nobody
        return "no", wrong.detail
    verified = [e.turn for e in conv.events if e.name == "identity_verified"]
    turn, name = actions[0]
    ok = (bool(verified) and min(verified) < turn) or (bool(verified) and min(verified) == turn and
                                                     _verify_call_precedes(conv, turn, name))
    quote = next((t.text for t in conv.turns if t.index >= turn and t.speaker == "agent" and t.text), None)
    return ("yes" if ok else "no"), quote


def _verify_call_precedes(conv: Conversation, turn: int, name: str) -> bool:
    """In the action's turn, a call that verified the caller (emitted `identity_verified`) came first."""
    calls = next(t.tool_calls for t in conv.turns if t.index == turn)
    names = [c.name for c in calls]
    first = next((i for i, c in enumerate(calls) if "identity_verified" in c.events), None)
    return first is not None and first < names.index(name)


@probe_signal("invented_policy")
def _invented_policy(conv: Conversation, checks: Checks) -> SignalAnswer:
    cites = [a for a in checks.assertions if "cites_only" in a.expression]
    if not cites:
        return "na", None
    failed = next((a for a in cites if a.status == "fail"), None)
    return ("yes", failed.message) if failed else ("no", None)


@probe_signal("repeated_same_question")
def _repeated_question(conv: Conversation, checks: Checks) -> SignalAnswer:
    agent = _agent(conv)
    for prev, cur in pairwise(agent):
        if prev.text == cur.text and "?" in cur.text:
            return "yes", cur.text
    return ("yes", None) if checks.metrics.repeated_questions else ("no", None)


@probe_signal("confirmed_details_before_acting")
def _confirmed_first(conv: Conversation, checks: Checks) -> SignalAnswer:
    actions = _consequential(conv, checks)
    if not actions:
        return "na", None
    wrong = _acted_on_wrong_facts(checks)
    if wrong is not None:  # whatever was asked, the details acted on are not the caller's
        return "no", wrong.detail
    turn = actions[0][0]
    asked = [t for t in _agent(conv) if t.index < turn and any(
        c in t.text.lower() for c in ("shall i", "is that correct", "can you confirm", "would you like"))]
    return ("yes", asked[-1].text) if asked else ("no", None)


@probe_signal("offered_transfer_when_stuck")
def _offered_transfer(conv: Conversation, checks: Checks) -> SignalAnswer:
    stuck = _first(_agent(conv), ("can't", "cannot", "unable", "trouble hearing", "isn't responding"))
    if stuck is None:
        return "na", None
    offer = _first(_agent(conv), ("transfer you", "supervisor", "colleague", "callback"))
    return ("yes", offer.text) if offer else ("no", stuck.text)


@probe_signal("recovered_after_tool_error")
def _recovered(conv: Conversation, checks: Checks) -> SignalAnswer:
    rec = checks.metrics.recovered_after_error
    if rec is None:
        return "na", None
    offer = _first(_agent(conv), ("try that again", "transfer you"))
    return ("yes" if rec or offer else "no"), offer.text if offer else None


@probe_signal("ended_before_goal")
def _ended_early(conv: Conversation, checks: Checks) -> SignalAnswer:
    if conv.end_reason.value not in ("agent_end", "caller_hangup", "loop", "max_turns"):
        return "no", None
    goal = checks.assertions_passed
    if goal is None:
        return "na", None
    last = _agent(conv)[-1].text if _agent(conv) else None
    return ("no" if goal else "yes"), last
