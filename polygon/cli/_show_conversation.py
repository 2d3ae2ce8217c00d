"""`polygon show RUN CONVERSATION`: one conversation in full (and `--audio PATH`: a call's stereo WAV).

The transcript is a turn a row: who spoke and what was said; for a caller turn the agent heard
otherwise (recognition noise in text, the recogniser on a call) both what was said and what was
heard; an agent turn's tool calls with their arguments and what the stub answered (an invalid call
or an injected fault marked); and, below it, how the conversation ended and why. A call also shows
its metrics (value and the events behind each) and each turn's times on its timeline (start–end, in
seconds). `--json` prints the stored conversation as it is kept (with its assertions).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rich.table import Table

from ._base import console
from ._fit import fit


def _seconds(ms: int | None) -> str:
    return "—" if ms is None else f"{ms / 1000:.2f}"


_RESULT_CHARS = 160  # a tool result longer than this is cut (`--json` has it whole)


def tool_call_text(call: Any) -> str:
    """`→ name(arg=value, …) = result`, or the call marked invalid (with why) or failed (the fault)."""
    args = ", ".join(f"{k}={v!r}" for k, v in sorted(call.arguments.items()))
    head = f"→ {call.name}({args})"
    if not call.valid:
        return f"{head} ✗ invalid arguments: {call.validation_error or 'rejected by its schema'}"
    result = json.dumps(call.result, ensure_ascii=False, sort_keys=True, default=str)
    if len(result) > _RESULT_CHARS:
        result = result[: _RESULT_CHARS - 1] + "…"
    if call.error:
        return f"{head} ✗ {call.error}: {result}"
    return f"{head} = {result}"


def turn_text(turn: Any, channel: str) -> str:
    """A turn's cell: its tool calls and results, its words, and what the other side heard when it
    differs (a caller turn the agent heard otherwise, in text or on a call: `said: …` / `heard: …`;
    on a call, an agent turn cut short: what reached the caller)."""
    from polygon_core.assertions import said_heard

    calls = "".join(tool_call_text(c) + "\n" for c in turn.tool_calls)
    text = turn.text or "(silence)"
    if turn.speaker == "caller" and turn.heard is not None and said_heard(turn.text, turn.heard) is not None:
        return f"{calls}said:  {text}\nheard: {turn.heard or '(nothing)'}"
    if channel != "voice" or turn.heard is None or said_heard(turn.text, turn.heard) is None:
        return calls + text + (" [interrupted]" if turn.interrupted else "")
    cut = " [interrupted]" if turn.interrupted else ""
    return f"{calls}{text}{cut}\nreached the caller: {turn.heard or '(nothing)'}"


def turns_table(conversation: Any) -> Table:
    """The transcript a turn a row; a call adds each turn's time on the timeline."""
    call = conversation.channel == "voice"
    table = Table(title="Turns", show_lines=True)
    table.add_column("#", justify="right")
    table.add_column("speaker")
    if call:
        table.add_column("time (s)", no_wrap=True)
    table.add_column("text", overflow="fold")
    for turn in conversation.turns:
        who = turn.speaker + {"non_directed": " (aside)", "vocal_tic": " (tic)"}.get(turn.kind, "")
        times = [f"{_seconds(turn.start_ms)}–{_seconds(turn.end_ms)}"] if call else []
        end = f" [{turn.end}]" if turn.end else ""
        table.add_row(str(turn.index), who, *times, turn_text(turn, conversation.channel) + end)
    return table


def metrics_table(conversation: Any) -> Table | None:
    """A call's metrics in `ALL_CALL_METRICS`' order: value and the events behind it; None on text."""
    from polygon_core.reports import metric_label
    from polygon_core.voice import ALL_CALL_METRICS

    if conversation.channel != "voice" or conversation.voice is None:
        return None
    table = Table(title="Call metrics")
    table.add_column("metric")
    table.add_column("value", justify="right")
    table.add_column("events", justify="right")
    for name in ALL_CALL_METRICS:
        m = conversation.voice.metrics.get(name)
        if m is None:
            continue
        table.add_row(metric_label(name), "—" if m.value is None else f"{m.value:.2f}", str(m.count))
    return table


def _assertions_table(assertions: list[Any]) -> Table:
    table = Table(title="Assertions")
    for col in ("assertion", "status", "why"):
        table.add_column(col, overflow="fold")
    for a in assertions:
        why = (a.message or "") + (f" (turn {a.turn})" if a.turn is not None else "")
        table.add_row(a.name, a.status.replace("_", " "), why)
    return table


def end_line(conversation: Any) -> str:
    """How the conversation ended, and why when the engine said (`end_detail`)."""
    detail = f": {conversation.end_detail}" if conversation.end_detail else ""
    return f"ended: {conversation.end_reason.value}{detail} (after {len(conversation.turns)} turns)"


def _header(detail: Any) -> str:
    conv = detail.conversation
    line = (f"conversation {conv.id} of run {detail.run.id}: scenario {conv.scenario_id}, seed {conv.seed}, "
            f"caller {conv.caller_type}, ended {conv.end_reason.value}")
    if conv.channel == "voice" and conv.voice is not None:
        voice = conv.voice
        line += (f"; a call ({voice.conditions.preset}, {voice.sample_rate} Hz, "
                 f"{voice.duration_ms / 1000:.1f} s)")
    return line


def write_audio(stores: Any, detail: Any, path: Path) -> None:
    """The call's stereo WAV (caller left, agent right) at `path`; a text conversation is bad input."""
    from polygon import usecases

    if detail.conversation.channel != "voice":
        raise ValueError(f"--audio: conversation {detail.conversation.id} of run {detail.run.id} is a "
                         f"{detail.conversation.channel} conversation, not a call: it has no audio")
    if path.is_dir():
        raise ValueError(f"--audio {path}: is a folder; expected a file path such as call.wav")
    data = usecases.call_audio(stores, detail.run.id, detail.conversation.id)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def show_conversation(run_id: str, conversation_id: str, *, json_out: bool, audio: Path | None) -> None:
    """Print one stored conversation (or its JSON), and write its audio when asked."""
    from polygon import usecases

    stores = usecases.open_stores()
    detail = usecases.conversation_detail(stores, run_id, conversation_id)
    if audio is not None:
        write_audio(stores, detail, audio)
    conv = detail.conversation
    if json_out:
        from polygon_core.assertions import misheard_lines

        print(json.dumps({"run_id": detail.run.id, "conversation": conv.model_dump(mode="json"),
                          "assertions": [a.model_dump(mode="json") for a in detail.assertions],
                          "misheard": misheard_lines(conv, limit=len(conv.turns)),
                          "audio": None if audio is None else str(audio)}, indent=2))
        return
    console.print(_header(detail), highlight=False, soft_wrap=True)
    metrics = metrics_table(conv)
    if metrics is not None:
        console.print(fit(console, metrics))
    if detail.assertions:
        console.print(fit(console, _assertions_table(detail.assertions)))
    console.print(fit(console, turns_table(conv)))
    console.print(end_line(conv), highlight=False, soft_wrap=True)
    if audio is not None:
        console.print(f"audio (stereo WAV, caller left, agent right): {audio}", highlight=False, soft_wrap=True)
