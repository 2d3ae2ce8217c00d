"""The conversation engine: the turn loop and the contracts around it."""

from ._engine import Limits, conversation_key, persona_hash, run_conversation
from ._types import (
    Agent,
    AgentAction,
    AgentEnd,
    AgentRequest,
    Caller,
    CallerEnd,
    CallerUtterance,
    CallerView,
    Delivery,
    HistoryItem,
    Interjection,
    Line,
    Playback,
    ProviderFailure,
    SimulatorFailure,
    ToolRequest,
)

__all__ = [
    "Agent",
    "AgentAction",
    "AgentEnd",
    "AgentRequest",
    "Caller",
    "CallerEnd",
    "CallerUtterance",
    "CallerView",
    "Delivery",
    "HistoryItem",
    "Interjection",
    "Limits",
    "Line",
    "Playback",
    "ProviderFailure",
    "SimulatorFailure",
    "ToolRequest",
    "conversation_key",
    "persona_hash",
    "run_conversation",
]
