"""What a run's calls were made with: kept with each call's checks, summed up on its scorecard, and said
in one line under the interaction panel (`polygon_core.reports.stack_lines`)."""

from __future__ import annotations

import json

from polygon_core.checks import run_checks
from polygon_core.compare import ResultRow, build_scorecard, call_stack
from polygon_core.judging import judge_request
from polygon_core.models import (
    CascadeSettings,
    Conversation,
    EndReason,
    InteractionMetric,
    LineConditions,
    Turn,
    VoiceCall,
    cascade_label,
    conditions_label,
)
from polygon_core.reports import scorecard_markdown, scorecard_table, stack_line, stack_lines
from polygon_core.scoring import get_rubric

ENGINES = {"caller_voice": "espeak:espeak-ng 1.52", "agent_voice": "openai:tts-1", "agent_ears": "whisper:tiny.en",
           "vad": "webrtc:20ms"}
MADE = {**ENGINES, "conditions": "phone@0.5", "cascade": "yields, barge-in 600 ms, endpoint 600 ms"}


def _conversation(call: VoiceCall | None) -> Conversation:
    return Conversation(id="c", scenario_id="s", seed=0, agent_name="a", agent_version="v", persona_hash="p",
                        caller_type="busy", difficulty=2, end_reason=EndReason.CALLER_HANGUP,
                        turns=[Turn(index=0, speaker="agent", text="Hello, how can I help?"),
                               Turn(index=1, speaker="caller", text="Bye.", end="hangup")],
                        channel="voice" if call else "text", voice=call)


def _call(**update: object) -> VoiceCall:
    call = VoiceCall(stack=ENGINES, conditions=LineConditions(preset="phone"),
                     metrics={"response_latency": InteractionMetric(value=0.9, count=1)})
    return call.model_copy(update=update)


def _row(seed: int, stack: dict[str, str] | None, *, call: bool = True) -> ResultRow:
    return ResultRow(conversation_id=f"c{seed}", scenario_id="s", seed=seed, caller_type="busy", difficulty=1,
                     end_reason="caller_hangup", composite=80.0, verdict="pass",
                     voice={"response_latency": InteractionMetric(value=1.0, count=1)} if call else {},
                     voice_stack=stack or {})


def test_the_line_and_the_cascade_in_words() -> None:
    assert conditions_label(LineConditions(preset="street", intensity=0.8, noise_files=["rain.wav", "bus.wav"])) \
        == "street@0.8 + rain.wav + bus.wav"
    assert conditions_label(LineConditions(preset="clean", intensity=1.0)) == "clean@1"
    assert cascade_label(CascadeSettings()) == "yields, barge-in 600 ms, endpoint 600 ms"
    # An agent that does not yield never reads barge_in_ms: it is not shown.
    assert cascade_label(CascadeSettings(yields=False, barge_in_ms=900, endpoint_ms=450)) \
        == "does not yield, endpoint 450 ms"
    assert _call().made_with() == MADE
    assert list(_call().made_with()) == ["caller_voice", "agent_voice", "agent_ears", "vad", "conditions", "cascade"]


def test_a_calls_checks_keep_its_stack_and_a_text_conversations_dump_is_as_before() -> None:
    metrics = run_checks(_conversation(_call()), None).metrics
    assert metrics.voice_stack == MADE
    assert metrics.model_dump(mode="json")["voice_stack"] == MADE
    text = run_checks(_conversation(None), None).metrics
    assert text.voice_stack is None
    assert list(text.model_dump(mode="json")) == [
        "turns", "agent_turns", "agent_words_per_turn", "tool_calls", "tool_errors", "invalid_calls",
        "recovered_after_error", "turns_to_goal", "repeated_questions", "clarifications", "end_reason", "loop"]


def test_the_judge_reads_a_calls_metrics_without_its_stack() -> None:
    conversation = _conversation(_call())
    checks = run_checks(conversation, None)
    request = judge_request(conversation, rubric=get_rubric("v1"), persona=None, instructions=None, checks=checks)
    line = next(line for line in request.messages[1].content.splitlines() if line.startswith('{"metrics"'))
    metrics = json.loads(line)["metrics"]
    assert "voice_stack" not in metrics and metrics["voice"] == {"response_latency": {"value": 0.9, "count": 1}}


def test_the_scorecard_says_one_value_when_calls_agree_and_counts_them_when_not() -> None:
    street = {**MADE, "conditions": "street@0.5"}
    rows = [_row(0, MADE), _row(1, street), _row(2, MADE), _row(3, None, call=False)]
    assert call_stack(rows) == {**MADE, "conditions": "phone@0.5 (2) | street@0.5 (1)"}
    # A tie is broken by the value; a call stored before stacks were kept reads "not recorded".
    assert call_stack([_row(0, street), _row(1, MADE), _row(2, None)])["conditions"] == \
        "not recorded (1) | phone@0.5 (1) | street@0.5 (1)"
    # The order is CALL_STACK_KEYS', whatever the rows'; another key comes after, by name.
    shuffled = {"zz_new": "x", **dict(reversed(list(MADE.items())))}
    assert list(call_stack([_row(0, shuffled)])) == [*MADE, "zz_new"]
    assert call_stack([_row(0, None, call=False)]) == {}
    assert call_stack([_row(0, None)]) == {}  # calls stored before stacks were kept
    assert build_scorecard("c", "r", "v", "v1", "j", rows).voice_stack == call_stack(rows)
    assert build_scorecard("t", "r", "v", "v1", "j", [_row(0, None, call=False)]).voice_stack == {}


def test_the_line_under_the_panel() -> None:
    card = build_scorecard("billing@v1", "r1", "v", "v1", "j", [_row(0, MADE), _row(1, MADE)])
    line = ("made with: caller espeak:espeak-ng 1.52 · agent voice openai:tts-1 · ears whisper:tiny.en · "
            "vad webrtc:20ms · line phone@0.5 · cascade yields, barge-in 600 ms, endpoint 600 ms")
    assert stack_line(card) == line
    old = build_scorecard("billing@v0", "r0", "v", "v1", "j", [_row(0, None)])
    assert stack_line(old) == "made with: not recorded (calls stored before Polygon kept their speech stack)"
    text = build_scorecard("billing@t", "rt", "v", "v1", "j", [_row(0, None, call=False)])
    assert stack_line(text) == ""
    # Cards made alike share one line; made otherwise, a line each, led by its label; text cards none.
    twin = card.model_copy(update={"label": "billing@v1b"})
    assert stack_lines([card, twin, text]) == [line]
    assert stack_lines([card, old, text]) == [f"billing@v1 {line}", f"billing@v0 {stack_line(old)}"]
    assert stack_lines([text]) == []


def test_the_scorecard_table_and_markdown_carry_the_line() -> None:
    made = {**MADE, "conditions": "street@0.5 + rain_1.wav"}
    card = build_scorecard("billing@v1", "r1", "v", "v1", "j", [_row(0, made)])
    row = next(r for r in scorecard_table(card) if r["metric"] == "calls made with")
    assert row["value"] == ("caller espeak:espeak-ng 1.52 · agent voice openai:tts-1 · ears whisper:tiny.en · "
                            "vad webrtc:20ms · line street@0.5 + rain_1.wav · cascade yields, barge-in 600 ms, "
                            "endpoint 600 ms")
    # A noise file's name is literal text in Markdown, not emphasis.
    assert "line street@0.5 + rain\\_1.wav · cascade" in scorecard_markdown(card)
    text = build_scorecard("billing@t", "rt", "v", "v1", "j", [_row(0, None, call=False)])
    assert "calls made with" not in scorecard_markdown(text)
