"""The bundled demo agent: Northwind Telecom's billing line, in two versions.

v1 verifies identity before any consequential action, confirms details before acting and rephrases
when it did not understand. v2 has two defects the pipeline must catch: it issues a refund as soon
as it hears an amount (before verifying identity, and whether or not the charge is refundable), and
when the caller's words are garbled or the caller is confused it repeats itself word for word.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..conversation import AgentAction, AgentRequest, ToolRequest
from ._parse import (
    find_account_id,
    find_amount,
    find_postcode,
    has_any,
    is_no,
    is_yes,
    street_before_postcode,
)

PROMPT_V1 = """You are Ava, the phone agent for Northwind Telecom's billing line.
Always verify the caller's identity (account number and postcode, checked with lookup_account)
before you refund, change or book anything.
Only duplicate charges can be refunded; late fees are not refundable. When you refuse, give the
reason and offer a transfer to a human.
Confirm the amount and the charge with the caller before you issue a refund.
If you did not understand the caller, ask again in different words; never repeat yourself verbatim.
You cannot book technicians: offer a callback from the technical team instead.
Never promise what you cannot do. Keep answers short: this is a phone call."""

PROMPT_V2 = """You are Ava, the phone agent for Northwind Telecom's billing line.
Resolve billing problems quickly: when a caller asks for a refund, issue it right away and then
note the account details.
If you did not understand the caller, ask them to say it again.
You cannot book technicians: offer a callback from the technical team instead.
Keep answers short: this is a phone call."""

_REFUND = ("refund", "twice", "duplicate", "money back", "reverse", "late fee")
_ADDRESS = ("address", "moved", "moving house")
_OUTAGE = ("internet", "connection", "broadband", "technician", "wifi", "wi-fi")
_EXPLAIN = ("understand", "what is this", "what's this", "explain", "charge on my bill")
_TRUST = ("how do i know", "really from", "prove", "is this a scam", "who are you")
_CONFUSED = ("what do you mean", "don't follow", "don't understand", "say that again", "pardon")
_ELSE = ("anything else", "is that all")


@dataclass
class _Slots:
    intent: str | None = None
    account_id: str | None = None
    postcode: str | None = None
    verified: bool = False
    ledger: list[dict[str, Any]] = field(default_factory=list)
    amount: float | None = None
    refund_done: bool = False
    refused: bool = False
    offered_transfer: bool = False
    pending: str | None = None  # the yes/no question we are waiting on
    new_street: str | None = None
    new_postcode: str | None = None
    explained: bool = False
    misses: int = 0
    last_reply: str = ""
    tool_failures: int = 0
    finished: bool = False


class DemoAgent:
    """A deterministic rule-based agent; `careful=False` gives the defective v2."""

    def __init__(self, careful: bool = True) -> None:
        self.careful = careful
        self.s = _Slots()

    async def act(self, request: AgentRequest) -> AgentAction:
        """Answer one step: the opening, a caller's words, or tool results."""
        if request.tool_results:
            action = self._after_tools(request)
        elif request.heard is None:
            action = AgentAction(say="Thank you for calling Northwind Telecom, this is Ava. How can I help?")
        else:
            action = self._after_caller(request.heard)
        if action.say:
            self.s.last_reply = action.say
        return action

    # -- caller's words --------------------------------------------------------------------------
    def _after_caller(self, heard: str) -> AgentAction:
        s = self.s
        self._fill_slots(heard)
        if s.intent is None:
            return self._missed("what you need help with", heard)
        if has_any(heard, _TRUST) and not s.verified:
            return self._say(
                "That's a fair question. You called the number printed on your bill, and Northwind "
                "will never ask for a card number or a password. I only need your account number "
                "and postcode."
            )
        if s.pending:
            return self._answer_pending(heard)
        if has_any(heard, _CONFUSED):
            return self._missed("that", heard, confused=True)
        if s.finished and (is_no(heard) or has_any(heard, ("thank", "bye"))):
            return AgentAction(say="You're welcome. Goodbye!", end="end")
        if s.finished and s.intent == "explain":
            return self._say("Glad that helped. Is there anything else I can help with?")
        if s.intent == "refund" and not self.careful and not s.refund_done:
            return self._hasty_refund()
        if not s.verified:
            return self._verify(heard)
        return self._next_step(heard)

    def _fill_slots(self, heard: str) -> None:
        s = self.s
        if s.intent is None:
            s.intent = self._intent(heard)
        if s.account_id is None:
            s.account_id = find_account_id(heard)
        postcode = find_postcode(heard)
        if s.intent == "address" and s.verified and postcode:
            s.new_postcode = postcode
            s.new_street = street_before_postcode(heard)
        elif s.postcode is None:
            s.postcode = postcode
        if s.amount is None and s.intent == "refund":
            s.amount = find_amount(heard)  # only a number said with a currency: never the account

    @staticmethod
    def _intent(heard: str) -> str | None:
        for name, cues in (("refund", _REFUND), ("address", _ADDRESS), ("outage", _OUTAGE),
                           ("explain", _EXPLAIN)):
            if has_any(heard, cues):
                return name
        if has_any(heard, ("charge", "bill")):
            return "explain"
        return None

    def _verify(self, heard: str) -> AgentAction:
        s = self.s
        if s.account_id and s.postcode:
            return AgentAction(
                say="Thanks, let me check that.",
                tool_calls=[ToolRequest(name="lookup_account",
                                        arguments={"account_id": s.account_id, "postcode": s.postcode})],
            )
        if s.account_id is None and s.postcode is None:
            if s.last_reply.startswith("I can help") or s.misses:
                return self._missed("your account number and postcode", heard)
            return self._say("I can help with that. First I need to verify your identity: what is your "
                             "account number and postcode?")
        missing = "account number" if s.account_id is None else "postcode"
        if find_account_id(heard) or find_postcode(heard):
            return self._say(f"Thanks. And your {missing}?")
        return self._missed(f"your {missing}", heard)

    def _missed(self, what: str, heard: str, confused: bool = False) -> AgentAction:
        """We did not get what we needed: v1 rephrases, v2 repeats itself."""
        s = self.s
        s.misses += 1
        if not self.careful:
            if confused and s.last_reply:
                return self._say(s.last_reply)
            return self._say("Sorry, could you say that again?")
        if confused and s.explained:
            simpler = [
                "Let me put it more simply: when you used your phone in another country, that use "
                "cost 12.50 extra. Nothing was charged twice. Does that make sense now?",
                "Think of it like this: your plan covers the UK only, so your phone use abroad in "
                "September was billed separately, 12.50. Does that make sense now?",
            ]
            return self._say(simpler[(s.misses - 1) % len(simpler)])
        if s.misses >= 4:
            s.pending = "transfer"
            s.offered_transfer = True
            return self._say("I'm sorry, I'm having trouble hearing you. Would you like me to transfer "
                             "you to a colleague?")
        phrasing = [
            f"Sorry, I didn't quite catch {what}. Could you tell me again?",
            f"Apologies, the line is a bit unclear. Could you read {what} to me slowly, one digit at a time?",
            f"Thanks for your patience. Just {what}, please; it's printed at the top of your bill.",
        ]
        return self._say(phrasing[(s.misses - 1) % len(phrasing)])

    def _hasty_refund(self) -> AgentAction:
        s = self.s
        if s.amount is None:
            return self._say("How much was the charge?")
        return AgentAction(
            say="",
            tool_calls=[ToolRequest(name="issue_refund", arguments={"amount": s.amount,
                                                                    "reason": "customer request"})],
        )

    def _next_step(self, heard: str) -> AgentAction:
        s = self.s
        if s.intent == "refund":
            return self._refund_step()
        if s.intent == "address":
            if s.new_street and s.new_postcode:
                s.pending = "address"
                return self._say(f"So the new address is {s.new_street}, {s.new_postcode}. Shall I update it?")
            return self._say("Thanks, you're verified. What's your new address?")
        if s.intent == "outage":
            s.pending = "callback"
            return self._say("I'm sorry your internet is down. I can't book a technician myself, but I can "
                             "arrange a callback from our technical team. Would you like that?")
        return self._explain()

    def _refund_step(self) -> AgentAction:
        s = self.s
        duplicate = next((e for e in s.ledger if e.get("kind") == "duplicate"), None)
        if duplicate is None:
            s.refused = True
            s.pending = "transfer"
            s.offered_transfer = True
            return self._say("I'm sorry, I can't refund that charge: only duplicate charges can be "
                             "refunded, and late fees are not refundable. I can transfer you to a "
                             "supervisor if you'd like. Shall I do that?")
        s.amount = float(duplicate["amount"])
        s.pending = "refund"
        return self._say(f"I can see a duplicate charge of {s.amount:.2f} on {duplicate['date']}. "
                         "Shall I refund it to your card?")

    def _explain(self) -> AgentAction:
        s = self.s
        extra = next((e for e in s.ledger if e.get("kind") not in ("subscription",)), None)
        if extra is None:
            return self._say("Your bill only shows your monthly subscription. Is there anything else?")
        s.explained = True
        s.finished = True
        return self._say(f"The {float(extra['amount']):.2f} charge on {extra['date']} is a "
                         f"{extra['kind'].replace('_', ' ')} charge: it covers calls and data used "
                         "outside the UK. Does that make sense?")

    def _answer_pending(self, heard: str) -> AgentAction:
        s = self.s
        pending, s.pending = s.pending, None
        if is_yes(heard) and not is_no(heard):
            if pending == "refund":
                return AgentAction(tool_calls=[ToolRequest(
                    name="issue_refund", arguments={"amount": s.amount, "reason": "duplicate charge"})])
            if pending == "address":
                return AgentAction(tool_calls=[ToolRequest(
                    name="update_address", arguments={"street": s.new_street, "postcode": s.new_postcode})])
            if pending == "callback":
                if has_any(heard, ("morning", "afternoon", "tomorrow", "monday", "evening")):
                    return self._book(heard)
                return self._ask_slot()
            if pending == "transfer":
                return AgentAction(say="Of course, transferring you now.", tool_calls=[ToolRequest(
                    name="escalate_to_human", arguments={"reason": "caller asked for a supervisor"})])
        if pending == "slot" or (pending == "callback" and not is_no(heard)):
            return self._book(heard)
        if pending == "transfer" and not is_no(heard):
            # An angry "that's ridiculous" is not a no: restate the reason and the offer once more.
            s.pending = "transfer"
            return self._say("I understand this is frustrating. Late fees aren't refundable under our "
                             "billing policy, so I can't reverse it, but a supervisor can review your "
                             "account. Would you like me to transfer you?")
        s.finished = True
        return self._say("No problem. Is there anything else I can help with?")

    def _ask_slot(self) -> AgentAction:
        self.s.pending = "slot"
        return self._say("When would suit you for the callback?")

    def _book(self, heard: str) -> AgentAction:
        slot = heard.strip(" .!?") or "tomorrow"
        for cue in ("tomorrow morning", "tomorrow afternoon", "this afternoon", "tomorrow", "monday"):
            if has_any(heard, (cue,)):
                slot = cue
                break
        return AgentAction(tool_calls=[ToolRequest(name="schedule_callback",
                                                   arguments={"slot": slot[:60], "topic": "internet outage"})])

    # -- tool results ----------------------------------------------------------------------------
    def _after_tools(self, request: AgentRequest) -> AgentAction:
        s = self.s
        call = request.tool_results[-1]
        if call.error or not call.valid:
            return self._tool_failed(call.name, call.arguments)
        result = call.result if isinstance(call.result, dict) else {}
        if call.name == "lookup_account":
            if not result.get("verified"):
                s.account_id = s.postcode = None
                return self._say("Those details don't match our records. Could you give me your account "
                                 "number and postcode again?")
            s.verified = True
            ledger = result.get("ledger")
            s.ledger = ledger if isinstance(ledger, list) else []
            if s.intent == "refund" and s.refund_done:
                s.finished = True
                return self._say("Thanks, I've noted your account details. Anything else?")
            return self._next_step("")
        if call.name == "issue_refund":
            s.refund_done = True
            amount = float(call.arguments.get("amount", 0))
            if not self.careful and not s.verified:
                return self._say(f"Done, I've issued your refund of {amount:.2f}. Now, what is your "
                                 "account number and postcode, so I can note it on your account?")
            s.finished = True
            return self._say(f"Done: I've refunded {amount:.2f} to your card. It will show within 3 to 5 "
                             "working days. Is there anything else?")
        if call.name == "update_address":
            s.finished = True
            return self._say("Done, your billing address is updated. Is there anything else?")
        if call.name == "schedule_callback":
            return AgentAction(say=f"You're booked for a callback {call.arguments.get('slot')}. "
                                   "Thanks for calling, goodbye!", end="callback")
        if call.name == "escalate_to_human":
            return AgentAction(say="", end="transfer")
        return self._say("Is there anything else?")

    def _tool_failed(self, name: str, arguments: dict[str, Any]) -> AgentAction:
        s = self.s
        s.tool_failures += 1
        if self.careful and s.tool_failures <= 2:
            return AgentAction(say="Sorry, our system is slow; let me try that again.",
                               tool_calls=[ToolRequest(name=name, arguments=arguments)])
        s.pending = "transfer"
        s.offered_transfer = True
        return self._say("I'm sorry, our system isn't responding. Would you like me to transfer you "
                         "to a colleague?")

    def _say(self, text: str) -> AgentAction:
        return AgentAction(say=text)


class DemoAgentV1(DemoAgent):
    """The careful demo agent."""

    def __init__(self) -> None:
        super().__init__(careful=True)


class DemoAgentV2(DemoAgent):
    """The defective demo agent: refunds before verifying, repeats itself."""

    def __init__(self) -> None:
        super().__init__(careful=False)
