"""What happened in a conversation, in order: tool calls and domain events as occurrences."""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..models import Conversation, ToolDef
from ._call import metric_values

# An event no call can be found for sorts after every call of its turn.
_END_OF_TURN = 10**9

RESERVED_NAMES: tuple[str, ...] = (
    "state",
    "initial",
    "events",
    "calls",
    "transcript",
    "agent_text",
    "turns",
    "end_reason",
    "knowledge_base",
    "True",
    "False",
    "None",
)
"""Names every assertion can read; they win over a tool or event of the same name."""


@dataclass(frozen=True)
class Occurrence:
    """One thing that happened: a tool call (`kind="call"`) or a domain event (`kind="event"`)."""

    name: str
    kind: str
    turn: int
    order: tuple[int, int, int]
    args: Mapping[str, Any]
    ok: bool = True

    def describe(self) -> str:
        """`refund_issued at turn 3 (amount=49.0)`."""
        shown = ", ".join(f"{key}={value!r}" for key, value in self.args.items())
        return f"{self.name} at turn {self.turn}" + (f" ({shown})" if shown else "")


@dataclass
class Timeline:
    """Every call attempt and every event of a conversation, with a total order between them.

    The order is (turn, position of the call within the turn); an event shares the position of
    the call that emitted it, so it is neither before nor after that call.
    """

    calls: list[Occurrence] = field(default_factory=list)
    events: list[Occurrence] = field(default_factory=list)
    declared_tools: set[str] = field(default_factory=set)
    declared_events: set[str] = field(default_factory=set)

    @property
    def tool_names(self) -> set[str]:
        """Tools declared in the tool definitions or called in the conversation."""
        return self.declared_tools | {c.name for c in self.calls}

    @property
    def event_names(self) -> set[str]:
        """Events declared by the tool definitions or emitted in the conversation."""
        return self.declared_events | {e.name for e in self.events}

    def is_event(self, name: str) -> bool:
        """True when `name` denotes a domain event (rather than a tool)."""
        return name in self.event_names

    def occurrences(self, name: str) -> list[Occurrence]:
        """What counts as `name` happening: its events, or else its valid, successful calls."""
        if self.is_event(name):
            return [e for e in self.events if e.name == name]
        return [c for c in self.calls if c.name == name and c.ok]

    def attempts(self, name: str) -> list[Occurrence]:
        """Every call of tool `name`, valid or not, failed or not."""
        return [c for c in self.calls if c.name == name]


def declared_names(tools: Mapping[str, ToolDef] | None) -> tuple[set[str], set[str]]:
    """(tool names, event names) declared by tool definitions (rule events included)."""
    if not tools:
        return set(), set()
    events: set[str] = set()
    for tool in tools.values():
        events.update(tool.event_names())
    return set(tools), events


def assertion_names(tools: Mapping[str, ToolDef]) -> set[str]:
    """The bare identifiers an assertion may use for these tools: tool names and event names."""
    tool_names, event_names = declared_names(tools)
    return tool_names | event_names


def build_timeline(conversation: Conversation, tools: Mapping[str, ToolDef] | None) -> Timeline:
    """Index the conversation's calls and events."""
    timeline = Timeline()
    timeline.declared_tools, timeline.declared_events = declared_names(tools)
    # (turn index, tool, event) → call orders still free to be matched by an event
    pending: dict[tuple[int, str, str], list[tuple[int, int, int]]] = {}
    for turn in conversation.turns:
        for seq, call in enumerate(turn.tool_calls):
            ok = call.valid and call.error is None
            order = (turn.index, seq, 0)
            timeline.calls.append(
                Occurrence(call.name, "call", turn.index, order, copy.deepcopy(call.arguments), ok)
            )
            if ok:
                for event_name in call.events:
                    pending.setdefault((turn.index, call.name, event_name), []).append(order)
    for position, event in enumerate(conversation.events):
        slots = pending.get((event.turn, event.tool, event.name))
        if slots:
            turn_index, seq, _ = slots.pop(0)
            order = (turn_index, seq, 1)
        else:
            order = (event.turn, _END_OF_TURN, position)
        timeline.events.append(
            Occurrence(event.name, "event", event.turn, order, copy.deepcopy(event.args))
        )
    return timeline


def _text(turns: Iterable[Any]) -> str:
    return "\n".join(t.text for t in turns if t.text)


def base_names(
    conversation: Conversation, timeline: Timeline, knowledge_base: Sequence[str]
) -> dict[str, Any]:
    """The names an assertion reads: data about the conversation, tool and event names, and on a
    call its metrics that have a value (`response_latency_p95`, `yield_rate`, ...)."""
    names: dict[str, Any] = {name: name for name in timeline.tool_names | timeline.event_names}
    for metric, value in metric_values(conversation).items():
        names.setdefault(metric, value)  # a tool or event of the same name keeps it (as before metrics)
    calls = [
        {
            "name": call.name,
            "arguments": copy.deepcopy(call.arguments),
            "valid": call.valid,
            "error": call.error,
            "result": copy.deepcopy(call.result),
            "turn": turn.index,
        }
        for turn in conversation.turns
        for call in turn.tool_calls
    ]
    names.update(
        {
            "state": copy.deepcopy(conversation.final_state),
            "initial": copy.deepcopy(conversation.initial_state),
            "events": [
                {"name": e.name, "turn": e.turn, "tool": e.tool, "args": copy.deepcopy(e.args)}
                for e in conversation.events
            ],
            "calls": calls,
            "transcript": _text(conversation.turns),
            "agent_text": _text(t for t in conversation.turns if t.speaker == "agent"),
            "turns": len(conversation.turns),
            "end_reason": conversation.end_reason.value,
            "knowledge_base": list(knowledge_base),
            "True": True,
            "False": False,
            "None": None,
        }
    )
    return names
