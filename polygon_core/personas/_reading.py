"""Reading an agent's prompt for what it handles: its tasks, the facts it asks for, its outcomes.

A deterministic keyword reading, not understanding: it is what the offline generator builds personas
from, and what a model generator is told to respect. Every cue is a lowercase phrase matched on word
boundaries in the normalised prompt.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..models import OUTCOMES, Outcome


@dataclass(frozen=True)
class TaskSpec:
    """A kind of call an agent can handle, with what a caller asking for it knows."""

    name: str
    cues: tuple[str, ...]
    goals: tuple[str, ...]
    facts: tuple[str, ...] = ()
    refusal_goals: tuple[str, ...] = ()


@dataclass(frozen=True)
class FactSpec:
    """A fact an agent asks callers for, and the cues that show the prompt asks for it."""

    key: str
    cues: tuple[str, ...]


TASKS: tuple[TaskSpec, ...] = (
    TaskSpec("refund", ("refund", "refunds", "refunded", "reimburse", "money back"),
             ("get a refund for a charge that appeared twice", "reverse a duplicate charge on my bill"),
             ("amount", "charge_date"),
             ("get the late fee on my bill refunded", "get my monthly subscription refunded")),
    TaskSpec("address_change", ("address", "change details", "moved house", "moving house"),
             ("update my billing address after moving house",), ("new_street", "new_postcode")),
    TaskSpec("callback", ("callback", "call back", "technician", "technicians"),
             ("get someone to fix my internet connection", "arrange a call back about my broadband"),
             ("slot",)),
    TaskSpec("explain_charge", ("explain", "charge", "charges", "bill", "billing"),
             ("understand a charge on my bill",), ("amount",)),
    TaskSpec("cancellation", ("cancel", "cancellation", "cancellations"),
             ("cancel my contract",), (), ("cancel my contract without the early exit fee",)),
    TaskSpec("payment", ("payment", "payments", "pay"),
             ("pay my outstanding bill",), ("amount",)),
    TaskSpec("appointment", ("appointment", "appointments", "booking", "reservation"),
             ("book an appointment",), ("slot",)),
    TaskSpec("order_status", ("order", "orders", "delivery", "parcel"),
             ("find out where my order is",), ("order_number",)),
)

# Facts an agent may ask for, by the words its prompt uses. Keys match the offline caller's cues.
FACTS: tuple[FactSpec, ...] = (
    FactSpec("account_id", ("account number", "account id", "account no")),
    FactSpec("postcode", ("postcode", "post code", "postal code", "zip", "zip code")),
    FactSpec("name", ("full name", "caller's name", "your name", "name")),
    FactSpec("email", ("email", "e-mail")),
    FactSpec("date_of_birth", ("date of birth", "birthday")),
    FactSpec("phone", ("phone number", "mobile number")),
    FactSpec("order_number", ("order number", "order id")),
    FactSpec("amount", ("amount", "how much")),
)

_REFUSAL_CUES = ("not refundable", "cannot", "can't", "only", "never", "refuse", "not allowed",
                 "non-refundable")
_TRANSFER_CUES = ("transfer", "human", "supervisor", "colleague", "escalate")
_CALLBACK_CUES = ("callback", "call back")
# Identity facts: when a prompt asks for none, callers still know an account number and postcode.
IDENTITY_FACTS = ("account_id", "postcode", "name", "email", "date_of_birth", "phone")


@dataclass(frozen=True)
class PromptReading:
    """What the prompt says the agent handles."""

    tasks: tuple[TaskSpec, ...]
    facts: tuple[str, ...]
    outcomes: tuple[Outcome, ...]
    restrictions: tuple[str, ...] = field(default_factory=tuple)


def _has(text: str, cue: str) -> bool:
    return re.search(rf"(?<![a-z]){re.escape(cue)}(?![a-z])", text) is not None


def read_prompt(prompt: str) -> PromptReading:
    """The tasks, asked-for facts and reachable outcomes a prompt mentions (see module docstring).

    A prompt that mentions no known task yields a single general `enquiry` task, so generation
    always has something to call about.
    """
    text = " ".join(prompt.lower().split())
    tasks = tuple(t for t in TASKS if any(_has(text, c) for c in t.cues))
    # "charge"/"bill" appear in almost every billing prompt; explaining a charge is a task only
    # when nothing more specific is there or the prompt names it.
    if len(tasks) > 1 and not _has(text, "explain"):
        tasks = tuple(t for t in tasks if t.name != "explain_charge") or tasks
    if not tasks:
        tasks = (TaskSpec("enquiry", (), ("ask a question about my account",), ()),)
    facts = tuple(f.key for f in FACTS if any(_has(text, c) for c in f.cues))
    if not any(k in IDENTITY_FACTS for k in facts):
        facts = ("account_id", "postcode", *facts)
    outcomes: list[Outcome] = ["success"]
    restrictions = tuple(c for c in _REFUSAL_CUES if _has(text, c))
    if restrictions:
        outcomes.append("refusal")
    if any(_has(text, c) for c in _CALLBACK_CUES):
        outcomes.append("callback")
    if any(_has(text, c) for c in _TRANSFER_CUES):
        outcomes.append("transfer")
    ordered = tuple(o for o in OUTCOMES if o in outcomes)
    return PromptReading(tasks=tasks, facts=facts, outcomes=ordered, restrictions=restrictions)
