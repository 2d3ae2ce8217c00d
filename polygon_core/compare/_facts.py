"""What a report reads of each conversation besides its result row, kept small enough for 100,000.

A JUnit case per conversation carries the agent's reply time, a fault's detail and each fired
gate's turn and detail. Those come from the transcript and the judgment, which a comparison of two
100,000-conversation runs does not keep; the adapters gather these few fields while they stream
the transcripts (or `facts_of` derives them from transcripts and judgments already loaded).
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import Field

from ..models import Conversation, DomainModel, GateHit, Judgment


class ConversationFacts(DomainModel):
    """One configuration's per-conversation facts for its report cases, by conversation id."""

    seconds: dict[str, float] = Field(default_factory=dict,
                                      description="the agent's measured reply time over the conversation")
    end_details: dict[str, str] = Field(default_factory=dict, description="only conversations with one")
    gates: dict[str, list[GateHit]] = Field(default_factory=dict,
                                            description="the judgment's fired gates; only where one fired")


def agent_seconds(conversation: Conversation) -> float:
    """The agent's reply time over a conversation, in seconds: the sum of its turns' `latency_ms`.

    An agent turn's latency is the agent's own reply time at each step (its model calls as the
    provider adapter measured them, the HTTP round trip, or what a Python agent declares) plus the
    latency of the tool calls it waited on (simulated on the conversation clock unless the stub
    sleeps for real); the conversation clock as a whole (`clock_ms`) is not read.
    """
    return sum(t.latency_ms for t in conversation.turns if t.speaker == "agent") / 1000.0


def facts_of(conversations: Sequence[Conversation], judgments: Sequence[Judgment]) -> ConversationFacts:
    """The facts of loaded transcripts and judgments (a conversation's last judgment counts)."""
    last = {j.conversation_id: j.gates for j in judgments}
    return ConversationFacts(seconds={c.id: agent_seconds(c) for c in conversations},
                             end_details={c.id: c.end_detail for c in conversations if c.end_detail},
                             gates={cid: gates for cid, gates in last.items() if gates})
