"""What the judge and the probe answerer read of a call: its turns' times, kinds and cut-short words."""

from __future__ import annotations

import json

from polygon_core.judging import transcript_block
from polygon_core.models import Conversation, EndReason, Turn


def _conversation(channel: str) -> Conversation:
    call = channel == "voice"
    times = (lambda a, b: {"start_ms": a, "end_ms": b}) if call else (lambda a, b: {})
    turns = [
        Turn(index=0, speaker="agent", text="Northwind billing, how can I help you today?",
             heard="Northwind billing, how can" if call else None, interrupted=call, **times(200, 1450)),
        Turn(index=1, speaker="caller", text="It was fifteen pounds.", heard="It's 150 pounds.", **times(1600, 3120)),
        Turn(index=2, speaker="caller", text="Hold on, honey.", heard="Hold on honey.",
             kind="non_directed" if call else "speech", **times(3400, 4010)),
    ]
    return Conversation(id="c", scenario_id="s", seed=0, agent_name="a", agent_version="v", persona_hash="p",
                        caller_type="busy", difficulty=2, turns=turns, end_reason=EndReason.CALLER_HANGUP,
                        channel=channel)


def _rows(block: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in block.splitlines() if line.startswith("{")]


def test_a_calls_turns_carry_times_kinds_and_what_reached_the_caller() -> None:
    rows = _rows(transcript_block(_conversation("voice")))
    assert rows[:3] == [
        {"turn": 0, "speaker": "agent", "said": "Northwind billing, how can I help you today?", "at_s": [0.2, 1.45],
         "interrupted": True, "reached_caller": "Northwind billing, how can"},
        {"turn": 1, "speaker": "caller", "said": "It was fifteen pounds.", "heard": "It's 150 pounds.",
         "at_s": [1.6, 3.12]},
        {"turn": 2, "speaker": "caller", "said": "Hold on, honey.", "heard": "Hold on honey.", "at_s": [3.4, 4.01],
         "kind": "non_directed"},
    ]


def test_a_text_conversation_reads_as_before() -> None:
    rows = _rows(transcript_block(_conversation("text")))
    assert rows[0] == {"turn": 0, "speaker": "agent", "said": "Northwind billing, how can I help you today?"}
    assert all(set(r) <= {"turn", "speaker", "said", "heard", "end_reason"} for r in rows)
