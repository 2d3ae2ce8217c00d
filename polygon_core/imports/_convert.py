"""An imported call as a Polygon Conversation (what is redacted, stored and graded)."""

from __future__ import annotations

from .._hashing import content_hash, stable_seed
from ..models import Conversation, EndReason, ToolCall, Turn
from ._types import ImportedCall

__all__ = ["PRODUCTION_CALLER", "PRODUCTION_SCENARIO", "conversation_id_for", "to_conversation"]

# A real call has no scenario unless its export names one (a tag shared with a suite's scenario
# makes it comparable with that scenario in the matrix).
PRODUCTION_SCENARIO = "production"
# A real caller, not one of the simulated caller types.
PRODUCTION_CALLER = "real"

# A call whose export says nothing about how it ended is taken as ended by the caller: on a
# phone line that is by far the commonest end, and it is the neutral choice for grading (it is
# neither an error nor a loop).
DEFAULT_END = EndReason.CALLER_HANGUP


def conversation_id_for(source: str, external_id: str) -> str:
    """Polygon's id of an imported conversation: stable for (source, external id)."""
    return "prod-" + content_hash([source, external_id], 16)


def to_conversation(call: ImportedCall, *, source: str, agent_name: str,
                    agent_version: str) -> Conversation:
    """The call as a Conversation; its seed is derived from (source, external id), never random."""
    turns = [
        Turn(index=i, speaker=t.speaker, text=t.text,
             tool_calls=[ToolCall(id=c.id, name=c.name, arguments=dict(c.arguments), result=c.result,
                                  error=c.error) for c in t.tool_calls])
        for i, t in enumerate(call.turns)
    ]
    return Conversation(
        id=conversation_id_for(source, call.external_id),
        scenario_id=call.scenario or PRODUCTION_SCENARIO,
        # Fits a signed 64-bit column; only used to pair conversations, never to draw numbers.
        seed=stable_seed(source, call.external_id) >> 1,
        agent_name=agent_name,
        agent_version=agent_version,
        persona_hash="",
        caller_type=PRODUCTION_CALLER,
        difficulty=0,
        language=call.language,
        turns=turns,
        end_reason=EndReason(call.end_reason) if call.end_reason else DEFAULT_END,
        models={"caller": "real-caller", "agent": f"production:{agent_name}"},
    )
