"""The offline caller: a deterministic, seeded policy per caller type, driven by ground truth.

It answers the agent's questions from the persona's facts (matching each question to facts by cue
words), and behaves as its type says: busy is curt and hangs up when its patience runs out;
distrustful asks the agent to prove who it is; confused misunderstands and asks for repetition;
aggressive demands and threatens to hang up; talkative sidetracks; cooperative answers plainly.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

from .._hashing import stable_seed
from ..conversation._types import CallerUtterance, CallerView
from ..models import FactValue, Persona

# Cue phrases that, in the agent's words, ask for a fact. Keys not listed fall back to their own
# words ("charge_date" → "charge date").
FACT_CUES: dict[str, tuple[str, ...]] = {
    "account_id": ("account number", "account id", "account no"),
    "postcode": ("postcode", "post code", "zip"),
    "amount": ("how much", "amount"),
    "charge_date": ("when was", "which date", "what date"),
    "name": ("your name", "who am i speaking"),
    "new_street": ("new address",),
    "new_postcode": ("new address",),
    "slot": ("when would suit", "what time", "when suits", "which time"),
    "email": ("email", "e-mail"),
}
_CONFIRM = ("shall i", "would you like", "do you want me", "is that correct", "can you confirm",
            "should i", "does that make sense", "would that")
_DONE = ("done", "i've refunded", "i've issued", "is updated", "you're booked", "i've booked",
         "transferring you")
_REFUSAL = ("can't refund", "cannot refund", "not refundable", "unable to", "can't do")
_TRANSFER_OFFER = ("transfer you", "supervisor", "colleague")
_ELSE = ("anything else", "is there anything")
_REPEAT = ("say that again", "didn't catch", "didn't quite catch", "repeat", "read", "line is a bit")
_VERIFY = ("verify", "account number", "postcode")
_WORKING = ("let me check", "one moment", "bear with me", "just a moment", "please hold")

_OPENINGS: dict[str, tuple[str, ...]] = {
    "cooperative": ("Hi there. I'd like to {goal}, please.", "Hello, I need to {goal}."),
    "busy": ("Yeah, hi. I need to {goal}. Quickly, please.", "Hi. {Goal}. I've got five minutes."),
    "distrustful": ("Hello. I'm calling because I need to {goal}.",),
    "confused": ("Oh, hello. I'm not sure I'm in the right place. I want to {goal}, I think.",),
    "aggressive": ("Listen, I want to {goal}. Now.", "This is the third time I'm calling. I want to {goal}."),
    "talkative": ("Hello! Lovely to get a real person. So, I need to {goal}, it's been quite a week.",),
}
_SIDETRACKS = (
    "By the way, my neighbour had the same trouble last spring.",
    "Sorry, the dog is barking, where was I?",
    "I was just telling my sister about this over lunch.",
    "It's been raining all week here, hasn't it?",
)
_THREATS = ("Hurry up or I'm hanging up.", "I'm not waiting forever, I'll hang up.")
_TRUST_CHALLENGE = ("Hold on. How do I know you're really from Northwind?",
                    "Wait, how do I know this isn't a scam?")
_CONFUSION = ("Sorry, I don't follow. What do you mean?", "I don't understand, what do you mean?")


@dataclass
class _CallerState:
    turns: int = 0
    challenged: bool = False
    confusions: int = 0
    protests: int = 0
    satisfied: bool = False
    sidetracks: int = 0
    last_answer: str = ""
    given: set[str] = field(default_factory=set)


def _fmt(value: FactValue) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _cues(key: str) -> tuple[str, ...]:
    return FACT_CUES.get(key, (key.replace("_", " "),))


class OfflineCaller:
    """A seeded rule-driven caller for one conversation."""

    model_name = "offline"

    def __init__(self, persona: Persona, *, conversation_id: str, seed: int) -> None:
        self.persona = persona
        self.conversation_id = conversation_id
        self.seed = seed
        self.state = _CallerState()

    def _rng(self, turn: int) -> random.Random:
        return random.Random(stable_seed("caller", self.conversation_id, self.seed, turn))

    async def speak(self, view: CallerView) -> CallerUtterance:
        """The caller's next line for what the agent just said."""
        st = self.state
        st.turns += 1
        rng = self._rng(view.turn)
        said = (view.agent_said or "").strip()
        low = said.lower()
        if view.turn <= 1 and not st.last_answer:
            return self._say(self._opening(rng))
        if view.agent_end == "transfer":
            return CallerUtterance(text="", end="accept_transfer")
        if view.agent_end == "callback":
            return CallerUtterance(text="", end="accept_callback")
        if view.agent_end == "end":
            return CallerUtterance(text="", end="hangup")
        if any(c in low for c in _DONE):
            st.satisfied = True
        if any(c in low for c in _REFUSAL) and self.persona.intended_outcome in ("refusal", "transfer"):
            st.satisfied = True
        # Patience runs out only while nothing is happening: a caller whose goal is done, on offer
        # or in progress waits for it (hanging up then is the simulator fault `premature_end`).
        if st.turns > self.persona.patience and not st.satisfied and not self._goal_in_reach(low):
            return CallerUtterance(text="Forget it, I don't have time for this. Goodbye.", end="hangup")
        return self._respond(low, rng)

    def _opening(self, rng: random.Random) -> CallerUtterance:
        options = _OPENINGS[self.persona.type]
        goal = self.persona.goal.rstrip(".")
        text = rng.choice(options).format(goal=goal, Goal=goal[:1].upper() + goal[1:])
        return self._say(text)

    def _respond(self, low: str, rng: random.Random) -> CallerUtterance:
        st, p = self.state, self.persona
        asked = self._asked_facts(low)
        if p.type == "distrustful" and asked and not st.challenged and any(c in low for c in _VERIFY):
            st.challenged = True
            return self._say(rng.choice(_TRUST_CHALLENGE))
        if p.type == "confused" and st.confusions < (1 + (p.difficulty >= 4)) and (
            "?" in low and (not asked or rng.random() < 0.3)
        ):
            st.confusions += 1
            return self._say(rng.choice(_CONFUSION))
        if asked:
            return self._say(self._decorate(self._answer(asked), rng))
        if (unknown := self._asked_unknown(low)):
            return self._say(self._decorate(f"Sorry, I don't know my {unknown}.", rng))
        if any(c in low for c in _REPEAT) and st.last_answer:
            return self._say(st.last_answer)
        if any(c in low for c in _CONFIRM):
            return self._confirm(low, rng)
        if any(c in low for c in _ELSE):
            if st.satisfied:
                return CallerUtterance(text="No, that's everything. Thanks, bye.", end="hangup")
            return self._say(self._decorate(f"Well, I still need to {p.goal}.", rng))
        if st.satisfied:
            return CallerUtterance(text="Great, thank you. Bye.", end="hangup")
        return self._say(self._decorate(f"Okay. So can you {p.goal}?", rng))

    def _confirm(self, low: str, rng: random.Random) -> CallerUtterance:
        st, p = self.state, self.persona
        if any(c in low for c in _TRANSFER_OFFER):
            if p.type == "aggressive" and st.protests == 0:
                st.protests += 1
                return self._say("That's ridiculous! I've been a customer for years. " + rng.choice(_THREATS))
            return self._say("Fine, put me through.")
        if p.intended_outcome == "transfer":
            # This caller wants a person, whatever else is offered.
            return self._say(self._decorate("No. I'd rather talk to a real person, please.", rng))
        if "callback" in low and "slot" in p.ground_truth:
            return self._say(f"Yes, please. {_fmt(p.ground_truth['slot']).capitalize()} would be best.")
        if "does that make sense" in low:
            st.satisfied = True
            return self._say("Oh, I see now. Thank you.")
        return self._say("Yes, please." if p.type != "busy" else "Yes. Go on.")

    def _goal_in_reach(self, low: str) -> bool:
        """The agent is offering the caller's goal or says it is working on it."""
        return any(c in low for c in _CONFIRM) or any(c in low for c in _WORKING)

    def _asked_unknown(self, low: str) -> str | None:
        for item in self.persona.unknown:
            if any(c in low for c in _cues(item.replace(" ", "_"))):
                return item
        return None

    def _asked_facts(self, low: str) -> list[str]:
        p = self.persona
        # A fact the agent already states ("So the new address is 12 Canal Street...") is being
        # confirmed, not asked for.
        keys = [k for k in p.ground_truth if any(c in low for c in _cues(k))
                and _fmt(p.ground_truth[k]).lower() not in low]
        if any(k.startswith("new_") for k in keys):
            keys = [k for k in keys if k.startswith("new_")]
        return keys

    def _answer(self, keys: list[str]) -> str:
        p, st = self.persona, self.state
        facts = p.ground_truth
        parts: list[str] = []
        if "new_street" in keys or "new_postcode" in keys:
            parts.append(f"It's {_fmt(facts.get('new_street', ''))}, {_fmt(facts.get('new_postcode', ''))}.")
            keys = [k for k in keys if not k.startswith("new_")]
        phrasing = {
            "account_id": "My account number is {v}.",
            "postcode": "The postcode is {v}.",
            "amount": "It was {v} pounds.",
            "charge_date": "It was on {v}.",
            "slot": "{V} would be best.",
        }
        # A busy caller gives one fact per turn, the rest answer everything they were asked.
        if p.type == "busy" and len(keys) > 1 and p.difficulty >= 3:
            keys = keys[:1] if keys[0] not in st.given else keys[1:2]
        for key in keys:
            value = _fmt(facts[key])
            template = phrasing.get(key, key.replace("_", " ").capitalize() + ": {v}.")
            parts.append(template.format(v=value, V=value[:1].upper() + value[1:]))
            st.given.add(key)
        text = " ".join(parts)
        st.last_answer = text
        return text

    def _decorate(self, text: str, rng: random.Random) -> str:
        p = self.persona
        # A talkative caller always wanders off once, then often.
        if p.type == "talkative" and (self.state.sidetracks == 0 or rng.random() < 0.7):
            self.state.sidetracks += 1
            return f"{text} {rng.choice(_SIDETRACKS)}"
        if p.type == "aggressive" and rng.random() < 0.5:
            return f"{text} {rng.choice(_THREATS)}"
        if p.type == "busy":
            return re.sub(r"^(Well, |Okay\. )", "", text)
        return text

    def _say(self, text: str | CallerUtterance) -> CallerUtterance:
        if isinstance(text, CallerUtterance):
            return text
        return CallerUtterance(text=text)
