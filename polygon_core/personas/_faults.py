"""The simulator-fault check: did the simulated caller, not the agent, spoil this conversation?

Run after every conversation. Each fault is found only from what the caller actually said
(`text`, not the noisy `heard`: recognition noise is Polygon's simulation of the line, not the
caller's words):

- contradiction: the caller stated a value for a ground-truth fact that differs from its ground
  truth ("my account number is 4812" when it is 4821), or gave a value for something it does not
  know;
- unprompted reveal: the caller said a hidden fact's value before the agent ever asked for it;
- premature end: the caller hung up while the agent was mid-action ("let me check that…") or while
  the agent was asking it to confirm the very action the caller called for;
- for a model-backed caller only: role reversal (the caller spoke as the agent: apologised for the
  company, offered help, asked for the agent's details) and a wrong language (it answered in
  another language than the scenario's); see `_roles`.

A caller that corrects itself at once ("4822, sorry, no: 4821") stated only the corrected value.

The check is conservative on purpose: a false alarm would hide a real agent failure from the rates.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..callers import FACT_CUES, FACT_CUES_RU, asked_for
from ..models import Conversation, DomainModel, EndReason, FactValue, Persona, Turn
from ._roles import other_language, role_reversal

_DIGIT_WORDS = {"zero": "0", "oh": "0", "one": "1", "two": "2", "three": "3", "four": "4",
                "five": "5", "six": "6", "seven": "7", "eight": "8", "nine": "9"}
# What a caller says when it states a fact, beyond the cues an agent uses to ask for one.
_STATEMENT_CUES: dict[str, tuple[str, ...]] = {
    "account_id": ("account number", "account id", "account no", "account is"),
    "postcode": ("postcode", "post code", "zip code", "zip"),
    "amount": ("amount is", "amount was", "charged me", "charge was", "charge is"),
}
# An amount with its thousands grouped ("$1,500") or a decimal comma ("£12,50").
_AMOUNT = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:[.,]\d+)?"
_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")
_MONEY = re.compile(rf"(?:[£$€]\s?({_AMOUNT}))|(?:({_AMOUNT})\s?(?:pounds|quid|dollars|euros|gbp|usd|eur)\b)", re.I)
_HOLD = ("let me check", "let me just", "let me look", "one moment", "just a moment", "bear with me",
         "please hold", "hold on while", "i'm checking", "i am checking", "i'm processing",
         "i'm just", "checking that now", "give me a second", "one second")
_OFFER = ("shall i", "would you like me to", "do you want me to", "can i go ahead", "should i",
          "is it okay if i", "may i go ahead", "would you like that", "would you like a")
_TRANSFER = ("transfer", "supervisor", "colleague", "put you through", "human")
_CALLBACK = ("callback", "call back", "call you back")
_SENTENCES = re.compile(r"(?<=[.!?])\s+")
# A caller correcting itself at once ("4822, sorry, no: 4821"): only what follows counts as stated.
_CORRECTION = re.compile(r",?\s*(?:sorry,? no|no,? sorry|i mean|ой,? нет|нет,? простите|точнее|то есть)[:,]?\s+",
                         re.IGNORECASE)


class SimulatorFault(DomainModel):
    """One fault of the simulated caller, with the turn where it shows."""

    kind: str
    turn: int
    detail: str


def _norm(value: FactValue | str) -> str:
    text = str(value).lower()
    if isinstance(value, float) and value.is_integer():
        text = str(int(value))
    return re.sub(r"[^a-zа-яё0-9.]", "", text).strip(".")


def _digits_spoken(text: str) -> str:
    # "four eight two one" → "4821" so a spelled-out number is compared like a written one.
    words = text.split()
    out: list[str] = []
    for w in words:
        bare = w.strip(".,!?").lower()
        if bare in _DIGIT_WORDS and out and out[-1].isdigit():
            out[-1] += _DIGIT_WORDS[bare]
        elif bare in _DIGIT_WORDS:
            out.append(_DIGIT_WORDS[bare])
        else:
            out.append(w)
    return " ".join(out)


def _numbers(text: str) -> list[str]:
    return [n.rstrip(".") for n in re.findall(r"\d+(?:[.,]\d+)?", text)]


def _same_number(a: str, b: str) -> bool:
    try:
        return float(a.replace(",", ".")) == float(b.replace(",", "."))
    except ValueError:
        return a == b


def _cues(key: str) -> tuple[str, ...]:
    english = _STATEMENT_CUES.get(key, FACT_CUES.get(key, (key.replace("_", " "),)))
    return (*english, *FACT_CUES_RU.get(key, ()))


def _clauses_after(text: str, cue: str) -> list[str]:
    """The rest of each sentence after `cue` (where a caller states the value)."""
    out = []
    for sentence in _SENTENCES.split(text):
        low = sentence.lower()
        start = low.find(cue)
        if start >= 0:
            out.append(_CORRECTION.split(sentence[start + len(cue):])[-1])
    return out


def _stated_value_contradicts(key: str, truth: FactValue, text: str) -> str | None:
    """A value the caller states for `key` in `text` that is not `truth`, or None."""
    truth_norm = _norm(truth)
    if key == "amount" and isinstance(truth, (int, float)) and not isinstance(truth, bool):
        for match in _MONEY.finditer(text):
            stated = match.group(1) or match.group(2)
            said = stated.replace(",", "") if _THOUSANDS.fullmatch(stated) else stated
            if not _same_number(said, str(truth)):
                return stated
    numeric = isinstance(truth, (int, float)) and not isinstance(truth, bool)
    for cue in _cues(key):
        for clause in _clauses_after(_digits_spoken(text), cue.lower()):
            if truth_norm and truth_norm in _norm(clause):
                continue
            nums = _numbers(clause)
            if numeric and nums:
                if not any(_same_number(n, _norm(truth)) for n in nums):
                    return nums[0]
            elif not numeric and any(ch.isdigit() for ch in str(truth)) and nums:
                # A code (account number, postcode): the digits stated must belong to the truth.
                truth_digits = re.sub(r"\D", "", str(truth))
                stated = "".join(re.sub(r"\D", "", n) for n in nums)
                if stated and stated not in truth_digits:
                    return " ".join(nums)
    return None


def _asked(agent_texts: Sequence[str], key: str, language: str | None) -> bool:
    # Asked as the offline caller hears it (`asked_for`), in the conversation's language.
    return any(asked_for(text, [key], language) for text in agent_texts)


def _last_sentence(text: str) -> str:
    parts = [p for p in _SENTENCES.split(text.strip()) if p]
    return parts[-1].lower() if parts else ""


def _offer_kind(sentence: str) -> str:
    if any(c in sentence for c in _TRANSFER):
        return "transfer"
    if any(c in sentence for c in _CALLBACK):
        return "callback"
    return "success"


def premature_end(conversation: Conversation, persona: Persona) -> SimulatorFault | None:
    """The caller hung up while the agent was mid-action or asking to confirm the caller's own goal."""
    if conversation.end_reason != EndReason.CALLER_HANGUP:
        return None
    agent_turns = [t for t in conversation.turns if t.speaker == "agent"]
    last_caller = next((t for t in reversed(conversation.turns) if t.speaker == "caller"), None)
    if not agent_turns or last_caller is None:
        return None
    last_agent = next((t for t in reversed(conversation.turns)
                       if t.speaker == "agent" and t.index < last_caller.index), None)
    if last_agent is None or last_agent.index == 0:
        return None  # hanging up on the greeting is a caller's choice, not a fault
    sentence = _last_sentence(last_agent.text)
    if (any(h in sentence for h in _HOLD) and not sentence.endswith("?")) or (
            last_agent.tool_calls and not last_agent.text.strip()):
        return SimulatorFault(kind="premature_end", turn=last_caller.index,
                              detail=f"caller hung up while the agent was mid-action (turn "
                                     f"{last_agent.index}: {last_agent.text.strip()[:80]!r})")
    if sentence.endswith("?") and any(o in sentence for o in _OFFER):
        kind = _offer_kind(sentence)
        if kind == persona.intended_outcome:
            return SimulatorFault(kind="premature_end", turn=last_caller.index,
                                  detail=f"caller hung up before confirming the action it called for "
                                         f"({persona.intended_outcome}) that the agent offered at turn "
                                         f"{last_agent.index}: {last_agent.text.strip()[-80:]!r}")
    return None


def simulator_faults(conversation: Conversation, persona: Persona) -> list[SimulatorFault]:
    """Every simulator fault in a finished conversation, in turn order (see module docstring)."""
    faults: list[SimulatorFault] = []
    agent_so_far: list[str] = []
    hidden_said: set[str] = set()
    for turn in conversation.turns:
        if turn.speaker == "agent":
            agent_so_far.append(turn.text)
            continue
        faults += _turn_faults(turn, persona, agent_so_far, hidden_said, conversation.language)
    if model_backed(conversation):
        faults += _speaker_faults(conversation)
    end = premature_end(conversation, persona)
    if end is not None:
        faults.append(end)
    return sorted(faults, key=lambda f: f.turn)


def model_backed(conversation: Conversation) -> bool:
    """Whether a model played the caller (the offline caller is recorded as ``offline``)."""
    return conversation.models.get("caller", "offline") not in ("", "offline")


def _speaker_faults(conversation: Conversation) -> list[SimulatorFault]:
    """Role reversal and a wrong language, the first of each (see `_roles`)."""
    found: dict[str, SimulatorFault] = {}
    language = conversation.language
    for turn in conversation.turns:
        if turn.speaker != "caller" or not turn.text:
            continue
        if "role_reversal" not in found and (what := role_reversal(turn.text, language)) is not None:
            found["role_reversal"] = SimulatorFault(kind="role_reversal", turn=turn.index,
                                                    detail=f"the caller spoke as the agent ({what})")
        if "wrong_language" not in found and (other := other_language(turn.text, language)) is not None:
            found["wrong_language"] = SimulatorFault(
                kind="wrong_language", turn=turn.index,
                detail=f"the caller answered in {other}; the scenario is in {language}")
    return list(found.values())


def _turn_faults(turn: Turn, persona: Persona, agent_so_far: list[str],
                 hidden_said: set[str], language: str | None) -> list[SimulatorFault]:
    found: list[SimulatorFault] = []
    for key, truth in persona.ground_truth.items():
        wrong = _stated_value_contradicts(key, truth, turn.text)
        if wrong is not None:
            found.append(SimulatorFault(kind="contradiction", turn=turn.index,
                                        detail=f"caller said {key.replace('_', ' ')} {wrong!r}; its "
                                               f"ground truth is {truth!r}"))
    for item in persona.unknown:
        for clause in _clauses_after(turn.text, item.lower()):
            if _numbers(clause):
                found.append(SimulatorFault(kind="contradiction", turn=turn.index,
                                            detail=f"caller gave a value for {item!r}, which it does "
                                                   "not know"))
                break
    squashed = _norm(_digits_spoken(turn.text))
    for key in persona.hidden:
        value = persona.ground_truth.get(key)
        if value is None or key in hidden_said or len(_norm(value)) < 3:
            continue
        if _norm(value) in squashed:
            hidden_said.add(key)
            if not _asked(agent_so_far, key, language):
                found.append(SimulatorFault(kind="unprompted_reveal", turn=turn.index,
                                            detail=f"caller revealed hidden {key.replace('_', ' ')} "
                                                   "before the agent asked for it"))
    return found


def apply_simulator_check(conversation: Conversation, persona: Persona) -> Conversation:
    """The conversation, ended as `simulator_error` with the reasons when the caller was at fault.

    A conversation that already ended in an error is returned unchanged.
    """
    if conversation.end_reason in (EndReason.SIMULATOR_ERROR, EndReason.PROVIDER_ERROR,
                                   EndReason.AGENT_ERROR):
        return conversation
    faults = simulator_faults(conversation, persona)
    if not faults:
        return conversation
    detail = "; ".join(f"turn {f.turn}: {f.kind}: {f.detail}" for f in faults)
    return conversation.model_copy(update={
        "end_reason": EndReason.SIMULATOR_ERROR,
        "end_detail": f"simulated caller at fault (was {conversation.end_reason.value}): {detail}"})
