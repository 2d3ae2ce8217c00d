"""Every deterministic signal in one conversation, each with the turn it was observed at.

Pure and cheap: the offline judge scores from these, and a fitted judge learns from their
`as_features()`. Counts from `Checks.metrics` are reused, never recomputed; what the checks do not
measure (the caller's requests, corrections, frustration, closure; the agent's apologies,
inability and confirmations) is read here with the cue lists of `_cues.py`.

How an unanswered request is told (lexical, no model): a caller turn is a request when it has a
question mark or a request cue ("can you", "I need", «подскажите»). The agent's reply is every
agent word before the caller's next turn. The request counts as answered when the reply shares a
content word with it (words of three letters or more outside a stop list, compared on their first
five letters so "booking" meets "booked"), carries a value (a digit or a currency sign), or asks a
question back (slot filling); a request with no reply, or whose reply does none of these, is
unanswered. A reply with an inability cue ("no results", «не могу») is counted apart as inability.

A request is also answered when it was done through tools (`_completions`): after it, the agent made
a successful acting call, then confirmed it in words (a "success" or `ACTION_CUES["confirm"]` cue, in
that turn or a later agent turn before its next acting call), and the caller's next turn neither
corrects, complains, gives up nor says the request again (no caller turn: accepted). The call must be
about the request: no other caller request came between the request and the call, or the request
shares a content word with the tool's name, its arguments or the confirmation ("order" in
`finish_order`). A call acts when the tool library says so (`Checks.acting_tools`); without a library
(imported calls) when its name does not start with a read verb (`get_`, `lookup`, `search`, `check`...).
A failed call, a confirmation the caller contests, or a promise with no call confirm nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from itertools import pairwise

from rapidfuzz import fuzz

from ..checks import GOAL_PREFIX, Checks
from ..models import Conversation, ToolCall, Turn
from ..scoring import normalise_speech
from ._cues import STOPWORDS, cue_pattern

__all__ = ["END_REASONS", "Signals", "conversation_signals"]

# End reasons as one-hot features, in a fixed order (a fitted model's feature list must not move).
END_REASONS: tuple[str, ...] = ("caller_hangup", "agent_end", "transfer", "callback", "loop",
                                "max_turns", "timeout", "agent_error")
# A caller turn this similar (rapidfuzz ratio, 0-100) to an earlier one says the same thing again.
_REPEAT_RATIO = 85.0
_SUBSET_RATIO = 95.0
_MIN_REPEAT_WORDS = 3
_NO = re.compile(r"^(no|nope|нет)\b")
_WORD = re.compile(r"\w+")
_VALUE = re.compile(r"\d|[£$€₽¥]")
# A tool whose name starts with one of these reads (imported calls carry no library to say so).
_READ_VERBS = frozenset({"get", "lookup", "look", "search", "find", "check", "list", "query", "fetch", "read",
                         "show", "view", "verify", "validate", "describe", "retrieve", "browse", "calculate",
                         "estimate", "count", "is", "has", "can"})
_NAME_WORD = re.compile(r"[a-z]+|[A-Z][a-z]*")


@dataclass(frozen=True)
class Signals:
    """Named numeric signals of one conversation; `turns_at` maps a signal to its first turn index."""

    turns: int
    caller_turns: int
    agent_turns: int
    agent_turn_share: float
    agent_word_share: float
    caller_words_per_turn: float
    agent_words_per_turn: float
    assertions_passed: int
    assertions_failed: int
    assertions_errored: int
    goal_failed: int
    goal_passed: int
    policy_breach: int
    forbidden_hits: int
    uncited: int
    cited: int
    end_reason: str
    requests: int
    unanswered: int
    corrections: int
    caller_repeats: int
    agent_repeats: int
    frustration: int
    apologies: int
    courtesy: int
    rudeness: int
    inability: int
    final_inability: int
    successes: int
    closure: int
    give_up: int
    false_success: int
    agent_cut_off: int
    tool_calls: int
    tool_errors: int
    invalid_calls: int
    unrecovered: int
    loop: int
    repeated_questions: int
    clarifications: int
    silent_turns: int
    garbled: int
    # Tool arguments contradicting the caller's ground truth (uncorrected), and those in calls that act.
    wrong_facts: int = 0
    acted_on_wrong_facts: int = 0
    # Acting tool calls: done and confirmed with the caller accepting, confirmed but contested by the
    # caller (and not redone to their satisfaction), failed and never redone; and the agent's claims or promises of an action in a call with
    # tools where no acting call succeeded.
    tool_completions: int = 0
    contested_actions: int = 0
    failed_actions: int = 0
    unbacked_claims: int = 0
    failed_assertions: tuple[str, ...] = ()
    turns_at: dict[str, int] = field(default_factory=dict)

    @property
    def unanswered_share(self) -> float:
        """Unanswered requests over requests (0 when the caller asked nothing)."""
        return self.unanswered / self.requests if self.requests else 0.0

    def as_features(self) -> dict[str, float]:
        """Every numeric signal as a float, plus end-reason one-hots, in a fixed order."""
        out: dict[str, float] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, (bool, int, float)):
                out[f.name] = float(value)
        out["unanswered_share"] = round(self.unanswered_share, 4)
        for reason in END_REASONS:
            out[f"end_{reason}"] = float(self.end_reason == reason)
        return out


def _norm(text: str) -> str:
    return normalise_speech(text)


def _stems(text: str) -> set[str]:
    return {w[:5] for w in _WORD.findall(_norm(text)) if len(w) >= 3 and w not in STOPWORDS and not w.isdigit()}


def _has(category: str, text: str) -> bool:
    return bool(text) and cue_pattern(category).search(_norm(text)) is not None


def _is_request(text: str) -> bool:
    if "?" in text:
        return True
    return _has("request", text) and not (_has("closure", text) and len(text.split()) <= 8)


def _reply_after(turns: Sequence[Turn], position: int) -> str:
    """Every agent word after `position` until the caller speaks again."""
    words = []
    for t in turns[position + 1:]:
        if t.speaker == "caller" and t.text.strip():
            break
        if t.speaker == "agent":
            words.append(t.text)
    return " ".join(w for w in words if w.strip())


def _answered(request: str, reply: str) -> bool:
    if not reply.strip():
        return False
    return bool(_stems(request) & _stems(reply)) or bool(_VALUE.search(reply)) or "?" in reply


def _content(text: str) -> str:
    return " ".join(w for w in _WORD.findall(_norm(text)) if len(w) >= 3 and w not in STOPWORDS)


def _same(a: tuple[str, str], b: tuple[str, str]) -> bool:
    """Two turns say the same: near-identical words, or one's content words inside the other's."""
    if fuzz.ratio(a[0], b[0]) >= _REPEAT_RATIO:
        return True
    shorter = min(a[1], b[1], key=len)
    return len(shorter.split()) >= 2 and fuzz.token_set_ratio(a[1], b[1]) >= _SUBSET_RATIO


def _repeats(texts: Sequence[tuple[int, str]]) -> list[int]:
    """Turn indexes whose text says an earlier one again (fuzzy, at least three words).

    Whole texts are compared with rapidfuzz's ratio (>= 85), and content words (stop words
    dropped) with token_set_ratio (>= 95, which is 100 when one turn's content words are all in
    the other's: "cancel my contract" after "I want to cancel my contract, please").
    """
    seen: list[tuple[str, str]] = []
    out = []
    for index, text in texts:
        norm = " ".join(_WORD.findall(_norm(text)))
        if len(norm.split()) >= _MIN_REPEAT_WORDS:
            pair = (norm, _content(text))
            if any(_same(pair, s) for s in seen):
                out.append(index)
            seen.append(pair)
    return out


def _asked_to_repeat(turns: Sequence[Turn]) -> set[int]:
    """Caller turns that answer the agent's "could you say that again?": their repeats were asked for."""
    out = set()
    for prev, turn in pairwise(turns):
        if turn.speaker == "caller" and prev.speaker == "agent" and _has("clarify", prev.text):
            out.add(turn.index)
    return out


def _corrections(caller: Sequence[Turn]) -> list[int]:
    """Caller turns with a correction cue, or opening with "no" (unless it is the closing goodbye).

    "No, from my credit card" corrects; "No thanks, I just want to cancel" mid-call refuses what
    the agent pushed; "No, that's all, thanks" at the end is a goodbye and counts as neither.
    """
    out = []
    for pos, t in enumerate(caller):
        closing = pos == len(caller) - 1 and _has("closure", t.text)
        if _has("correction", t.text) or (_NO.match(_norm(t.text)) and not closing):
            out.append(t.index)
    return out


def _failed(call: ToolCall) -> bool:
    """The tool refused: an error, or a result that says so (`ok`/`success` false, an `error` key)."""
    if call.error or not call.valid:
        return True
    result = call.result
    return isinstance(result, dict) and (result.get("ok") is False or result.get("success") is False
                                         or bool(result.get("error")))


def _false_successes(turns: Sequence[Turn]) -> list[int]:
    """Agent turns claiming success ("it's all done") over a tool call that failed in that turn or the one before.

    A later successful call to the same tool clears it (the agent retried before claiming).
    """
    out = []
    agent = [t for t in turns if t.speaker == "agent"]
    for pos, t in enumerate(agent):
        failed = {c.name for c in t.tool_calls if _failed(c)}
        if not failed:
            continue
        for later in agent[pos:pos + 2]:
            retried = any(c.name in failed and not _failed(c) for c in later.tool_calls)
            if retried:
                break
            if _has("success", later.text):
                out.append(later.index)
                break
    return out


def _cue_turns(turns: Sequence[Turn], category: str) -> list[int]:
    return [t.index for t in turns if _has(category, t.text)]


def _acts(call: ToolCall, acting_tools: Sequence[str]) -> bool:
    """The call changes something: the library's word when there is one, else not a read verb's name."""
    if acting_tools:
        return call.name in acting_tools
    words = [w.casefold() for w in _NAME_WORD.findall(call.name)]
    return bool(words) and words[0] not in _READ_VERBS


def _confirms(text: str) -> bool:
    return _has("success", text) or _has("confirm", text)


@dataclass(frozen=True)
class _Completion:
    """One successful acting call: where it was made, where confirmed, and whether the caller accepted."""

    call: int  # position in the turns
    confirmed: int | None  # position of the confirming agent turn
    accepted: bool
    words: frozenset[str]  # stems of the tool names, argument values and the confirmation


def _contests(text: str, request_texts: Sequence[str]) -> bool:
    """A caller turn that rejects what was just done: a correction, a complaint, giving up, or the request again."""
    if _has("correction", text) or _has("frustration", text) or _has("give_up", text):
        return True
    if _NO.match(_norm(text)) and not _has("closure", text):
        return True
    pair = (" ".join(_WORD.findall(_norm(text))), _content(text))
    return len(pair[0].split()) >= _MIN_REPEAT_WORDS and any(
        _same(pair, (" ".join(_WORD.findall(_norm(r))), _content(r))) for r in request_texts)


def _completions(turns: Sequence[Turn], acting_tools: Sequence[str]) -> list[_Completion]:
    """Every agent turn with a successful acting call, with its confirmation and the caller's reaction."""
    acting_at = [pos for pos, t in enumerate(turns) if t.speaker == "agent"
                 and any(_acts(c, acting_tools) and not _failed(c) for c in t.tool_calls)]
    requests = [t.text for t in turns if t.speaker == "caller" and t.text.strip() and _is_request(t.text)]
    out = []
    for n, pos in enumerate(acting_at):
        stop = acting_at[n + 1] if n + 1 < len(acting_at) else len(turns)
        confirmed = next((q for q in range(pos, stop) if turns[q].speaker == "agent" and _confirms(turns[q].text)),
                         None)
        calls = [c for c in turns[pos].tool_calls if _acts(c, acting_tools) and not _failed(c)]
        said = " ".join([*(c.name.replace("_", " ") for c in calls),
                         *(str(v) for c in calls for v in c.arguments.values()),
                         turns[confirmed].text if confirmed is not None else ""])
        accepted = False
        if confirmed is not None:
            reply = next((t for t in turns[confirmed + 1:] if t.speaker == "caller" and t.text.strip()), None)
            accepted = reply is None or not _contests(reply.text, requests)
        out.append(_Completion(pos, confirmed, accepted, frozenset(_stems(said))))
    return out


def _done_by_tools(turns: Sequence[Turn], pos: int, done: Sequence[_Completion]) -> bool:
    """The request at `pos` was carried out by an accepted completion about it (see the module doc)."""
    for c in done:
        if c.call <= pos or not c.accepted:
            continue
        between = any(t.speaker == "caller" and t.text.strip() and _is_request(t.text) for t in turns[pos + 1:c.call])
        if not between or _stems(turns[pos].text) & c.words:
            return True
    return False


def _requests(turns: Sequence[Turn], done: Sequence[_Completion] = ()) -> tuple[list[int], list[int]]:
    """(request turns, unanswered request turns): answered in words, or done through tools."""
    asked: list[int] = []
    unanswered: list[int] = []
    for pos, t in enumerate(turns):
        if t.speaker != "caller" or not t.text.strip() or not _is_request(t.text):
            continue
        asked.append(t.index)
        reply = _reply_after(turns, pos)
        if not _answered(t.text, reply) and not _done_by_tools(turns, pos, done):
            unanswered.append(t.index)
    return asked, unanswered


def _failed_actions(turns: Sequence[Turn], acting_tools: Sequence[str]) -> list[int]:
    """Turns with a failed acting call that no later call of the same tool redid successfully."""
    calls = [(t.index, c) for t in turns for c in t.tool_calls if _acts(c, acting_tools)]
    return [index for n, (index, c) in enumerate(calls) if _failed(c)
            and not any(later.name == c.name and not _failed(later) for _, later in calls[n + 1:])]


def _unbacked_claims(turns: Sequence[Turn], acting_tools: Sequence[str]) -> list[int]:
    """Agent turns claiming or promising an action in a call with tools where no acting call succeeded.

    Only a call with tools (a tool was called, or the library has acting tools) is held to this: a
    plain transcript says nothing about what the agent could do.
    """
    with_tools = bool(acting_tools) or any(t.tool_calls for t in turns)
    acted = any(_acts(c, acting_tools) and not _failed(c) for t in turns for c in t.tool_calls)
    if not with_tools or acted:
        return []
    return [t.index for t in turns if t.speaker == "agent"
            and (_has("success", t.text) or _has("confirm", t.text) or _has("promise", t.text))]


def _share(part: float, whole: float) -> float:
    return round(part / whole, 4) if whole else 0.0


def _assertion_signals(checks: Checks) -> dict[str, object]:
    graded = [a for a in checks.assertions if a.status != "not_applicable"]
    failed = [a for a in graded if a.status == "fail"]
    goal = [a for a in graded if a.name.casefold().startswith(GOAL_PREFIX)]
    cites = [a for a in graded if "cites_only" in a.expression]
    return {
        "assertions_passed": sum(a.status == "pass" for a in graded),
        "assertions_failed": len(failed),
        "assertions_errored": sum(a.status == "error" for a in graded),
        "goal_failed": sum(a.status == "fail" for a in goal),
        "goal_passed": sum(a.status == "pass" for a in goal),
        "policy_breach": sum("_before(" in a.expression for a in failed),
        "forbidden_hits": len(checks.forbidden_hits),
        "uncited": sum(a.status == "fail" for a in cites),
        "cited": sum(a.status == "pass" for a in cites),
        "failed_assertions": tuple(a.name for a in failed),
    }


def _first_turns(checks: Checks, found: dict[str, list[int]]) -> dict[str, int]:
    at = {name: idx[0] for name, idx in found.items() if idx}
    for a in checks.assertions:
        if a.status == "fail" and a.turn is not None:
            at.setdefault("assertions_failed", a.turn)
            if "_before(" in a.expression:
                at.setdefault("policy_breach", a.turn)
            if "cites_only" in a.expression:
                at.setdefault("uncited", a.turn)
    if checks.forbidden_hits and checks.forbidden_hits[0].turn is not None:
        at["forbidden_hits"] = checks.forbidden_hits[0].turn
    return at


def conversation_signals(conv: Conversation, checks: Checks) -> Signals:
    """Every deterministic signal of `conv` (its checks already computed), with first-seen turns."""
    turns = conv.turns
    caller = [t for t in turns if t.speaker == "caller" and t.text.strip()]
    agent_all = [t for t in turns if t.speaker == "agent"]
    agent = [t for t in agent_all if t.text.strip()]
    caller_words = sum(len(t.text.split()) for t in caller)
    agent_words = sum(len(t.text.split()) for t in agent)
    done = _completions(turns, checks.acting_tools)
    asked, unanswered = _requests(turns, done)
    asked_again = _asked_to_repeat(turns)
    closing = caller[-2:]
    last_agent = agent[-1].text if agent else ""
    m = checks.metrics
    found: dict[str, list[int]] = {
        "unanswered": unanswered,
        "inability": _cue_turns(agent, "inability"),
        "corrections": _corrections(caller),
        "caller_repeats": [i for i in _repeats([(t.index, t.text) for t in caller]) if i not in asked_again],
        "agent_repeats": _repeats([(t.index, t.text) for t in agent]),
        "frustration": _cue_turns(caller, "frustration"),
        "apologies": _cue_turns(agent, "apology"),
        "courtesy": _cue_turns(agent, "courtesy"),
        "rudeness": _cue_turns(agent, "rudeness"),
        "successes": _cue_turns(agent, "success"),
        "closure": _cue_turns(closing, "closure"),
        "give_up": _cue_turns(closing, "give_up"),
        "silent_turns": [t.index for t in agent_all if not t.text.strip() and not t.tool_calls],
        "garbled": [t.index for t in caller if t.heard is not None and t.heard != t.text],
        "tool_errors": [t.index for t in turns if any(c.error for c in t.tool_calls)],
        "invalid_calls": [t.index for t in turns if any(not c.valid for c in t.tool_calls)],
        "tool_calls": [t.index for t in turns if t.tool_calls],
        "false_success": _false_successes(turns),
        "wrong_facts": [m.turn for m in checks.fact_mismatches],
        "acted_on_wrong_facts": [m.turn for m in checks.fact_mismatches if m.acts],
        "tool_completions": [turns[c.call].index for c in done if c.accepted],
        # Contested and never made right: a later accepted completion (the agent redid it) clears it.
        "contested_actions": [turns[c.confirmed].index for n, c in enumerate(done) if c.confirmed is not None
                              and not c.accepted and not any(later.accepted for later in done[n + 1:])],
        "failed_actions": _failed_actions(turns, checks.acting_tools),
        "unbacked_claims": _unbacked_claims(turns, checks.acting_tools),
    }
    # The agent ended the call while the caller was not done (their last words were no goodbye).
    cut_off = m.end_reason == "agent_end" and bool(caller) and not _has("closure", caller[-1].text)
    if cut_off and agent:
        found["agent_cut_off"] = [agent[-1].index]
    return Signals(
        turns=m.turns, caller_turns=len(caller), agent_turns=len(agent),
        agent_turn_share=_share(len(agent), len(agent) + len(caller)),
        agent_word_share=_share(agent_words, agent_words + caller_words),
        caller_words_per_turn=_share(caller_words, len(caller)),
        agent_words_per_turn=m.agent_words_per_turn,
        **_assertion_signals(checks),  # type: ignore[arg-type]
        end_reason=m.end_reason, requests=len(asked), unanswered=len(unanswered),
        corrections=len(found["corrections"]), caller_repeats=len(found["caller_repeats"]),
        agent_repeats=len(found["agent_repeats"]), frustration=len(found["frustration"]),
        apologies=len(found["apologies"]), courtesy=len(found["courtesy"]), rudeness=len(found["rudeness"]),
        inability=len(found["inability"]),
        final_inability=int(_has("inability", last_agent)), successes=len(found["successes"]),
        closure=int(bool(found["closure"])), give_up=int(bool(found["give_up"])),
        false_success=len(found["false_success"]), agent_cut_off=int(cut_off),
        tool_calls=m.tool_calls, tool_errors=m.tool_errors, invalid_calls=m.invalid_calls,
        unrecovered=int(m.recovered_after_error is False), loop=int(m.loop),
        repeated_questions=m.repeated_questions, clarifications=m.clarifications,
        silent_turns=len(found["silent_turns"]), garbled=len(found["garbled"]),
        wrong_facts=len(found["wrong_facts"]), acted_on_wrong_facts=len(found["acted_on_wrong_facts"]),
        tool_completions=len(found["tool_completions"]), contested_actions=len(found["contested_actions"]),
        failed_actions=len(found["failed_actions"]), unbacked_claims=len(found["unbacked_claims"]),
        turns_at=_first_turns(checks, found),
    )
