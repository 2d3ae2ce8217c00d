"""Putting a conversation on a line: the call's engines, its `CallLine`, and what is stored after.

`open_line` resolves whether a conversation of a run is a call (`call_plan`: the command line, the
scenario, suite.yaml) and builds its `CallLine` with the agent's cascade (`AgentConfig.voice`) and
the speech engines by name; `close_line` renders the call's stereo WAV and timeline into the
artifact store and gives the conversation its `VoiceCall` summary with the interaction metrics.
"""

from __future__ import annotations

import asyncio
import gc
import hashlib
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from polygon_core.adapters.settings import PolygonSettings
from polygon_core.models import AgentConfig, CascadeSettings, Conversation, EndReason, Scenario, VoiceCall
from polygon_core.voice import PHONE_RATE, Audio, CallLine, CallParts, interaction_metrics, read_wav, resample

from ._call_plan import CallPlan, LineRequest, call_plan
from ._common import Stores, call_audio_key, call_timeline_key

__all__ = ["CALLER_SYNTHESIS", "call_parts", "close_line", "freeze_after_first_dial", "line_for", "open_line"]

CALLER_SYNTHESIS = "espeak"  # Polygon's simulated callers speak with the offline voice
_ENGINES: dict[tuple[Any, ...], Any] = {}  # engines are heavy to load (a Whisper model): one per process
_LOCK = threading.Lock()
_REQUESTS: dict[str, LineRequest] = {}  # a run's manifest does not change once written
_FROZEN: list[bool] = []  # `freeze_after_first_dial` has run in this process


def call_parts(settings: PolygonSettings, cascade: CascadeSettings, *, language: str,
               stt_model: str | None) -> CallParts:
    """The engines of a call in `language`: the caller's voice, the agent's voice and recogniser
    (the cascade's, with `stt_model`), and the VAD; built once per process and kept."""
    from polygon_core.adapters.speech import make_recognizer, make_synthesizer, make_vad

    made = _settings_key(settings)

    def kept(key: tuple[Any, ...], build: Any) -> Any:
        with _LOCK:
            if key not in _ENGINES:
                _ENGINES[key] = build()
            return _ENGINES[key]

    return CallParts(
        caller_voice=kept(("synth", CALLER_SYNTHESIS, language, made),
                          lambda: make_synthesizer(CALLER_SYNTHESIS, settings, language)),
        agent_voice=kept(("synth", cascade.synthesis, language, made),
                         lambda: make_synthesizer(cascade.synthesis, settings, language)),
        agent_ears=kept(("ears", cascade.recognition, language, stt_model, made),
                        lambda: make_recognizer(cascade.recognition, settings, language=language, model=stt_model)),
        vad=kept(("vad", "webrtc"), lambda: make_vad("webrtc")),
    )


def _settings_key(settings: PolygonSettings) -> str:
    """What an engine was made from, by content: two settings that differ (a key, a base URL, the
    models folder) never share an engine, and equal ones do (an object's id would be reused)."""
    values = {name: value.get_secret_value() if isinstance(value, SecretStr) else value
              for name, value in settings.model_dump().items()}
    return hashlib.sha256(repr(sorted(values.items(), key=lambda item: item[0])).encode()).hexdigest()


def line_for(stores: Stores, run_id: str, suite: Any, scenario: Scenario, config: AgentConfig,
             manifest: Mapping[str, Any] | None = None) -> CallPlan | None:
    """How `scenario` runs in run `run_id`: None for a text conversation. The run's manifest (what
    the command line asked) is read once per run and kept (`manifest` overrides it)."""
    from ._runs import manifest_key, run_manifest

    if manifest is None:
        key = stores.artifacts.uri(manifest_key(run_id))  # the store's own address: one per store and run
        if key not in _REQUESTS:
            _REQUESTS[key] = LineRequest.from_manifest(run_manifest(stores, run_id))
        manifest = _REQUESTS[key].manifest_fields()
    return call_plan(suite, scenario, manifest, agent=config)


def open_line(stores: Stores, plan: CallPlan, scenario: Scenario, config: AgentConfig, *,
              conversation_id: str, seed: int) -> CallLine:
    """The conversation's line: its conditions and noise files, the agent's cascade, the engines."""
    cascade = config.voice or CascadeSettings()
    parts = call_parts(stores.settings, cascade, language=scenario.language, stt_model=plan.stt_model)
    return CallLine(parts=parts, conversation_id=conversation_id, seed=seed, caller_type=scenario.persona.type,
                    language=scenario.language, conditions=plan.conditions, cascade=cascade,
                    agent_name=config.name, noise_bank=[_noise(path) for path in plan.noise_paths])


def _noise(path: Path) -> Audio:
    return read_wav(path.read_bytes(), str(path))


def close_line(stores: Stores, run_id: str, line: Any, conv: Conversation) -> Conversation:
    """Store the call's WAV and timeline and return the conversation with its `VoiceCall`.

    Written before the transcript, so a stored transcript always has its audio beside it. `line`
    is a `CallLine`, or a `BotCall` (a voice bot on a real line)."""
    if conv.end_reason == EndReason.CALLER_HANGUP:
        line.hang_up(conv.end_detail or "")
    timeline = line.timeline()
    audio_key, timeline_key = call_audio_key(run_id, conv.id), call_timeline_key(run_id, conv.id)
    stores.artifacts.put_bytes(audio_key, line.render())
    stores.artifacts.put_text(timeline_key, timeline.model_dump_json(indent=1))
    voice = VoiceCall(conditions=line.conditions, cascade=line.cascade, stack=line.stack(), sample_rate=line.rate,
                      duration_ms=timeline.duration_ms,
                      metrics=interaction_metrics(timeline, language=conv.language),
                      audio_key=audio_key, timeline_key=timeline_key)
    return conv.model_copy(update={"voice": voice})


async def call_bot(stores: Stores, plan: CallPlan, scenario: Scenario, config: AgentConfig, tools: Any, *,
                   conversation_id: str, seed: int, **engine: Any) -> tuple[Conversation, Any]:
    """Dial the agent's voice bot (`voice.url`) and run the conversation on that real-time line,
    with the scenario's stubs served to it over HTTP and MCP; returns the conversation and the call
    (for `close_line`). The bot's failures (a wire fault, a bot silent too long) end the conversation
    `agent_error` with the reason, as the engine ends any agent's failure."""
    from polygon_core.adapters.stub_server import StubServer
    from polygon_core.adapters.transports import make_transport
    from polygon_core.adapters.voice_bot import BotCall
    from polygon_core.conversation import run_conversation
    from polygon_core.stubs import ToolEnvironment

    cascade = config.voice or CascadeSettings()
    assert cascade.url is not None
    names = [n for n in scenario.tools if n in tools]
    schemas = ToolEnvironment({n: tools[n] for n in names}, scenario.context, conversation_id=conversation_id,
                              seed=seed).schemas(names)
    parts = call_parts(stores.settings, cascade, language=scenario.language, stt_model=plan.stt_model)
    server = StubServer()
    await server.start()
    try:
        call = BotCall(transport=make_transport(cascade.protocol or "twilio"), url=cascade.url, route=None,
                       parts=parts, conversation_id=conversation_id, scenario_id=scenario.id, seed=seed,
                       caller_type=scenario.persona.type, language=scenario.language, conditions=plan.conditions,
                       cascade=cascade)
        call.route = server.open(conversation_id, schemas, call.on_tool_call)
        async with call:
            await freeze_after_first_dial()
            conv = await run_conversation(scenario, call, engine.pop("caller"), tools, seed=seed, line=call, **engine)
        return conv, call
    finally:
        await server.stop()


async def freeze_after_first_dial() -> bool:
    """Once per process, when its first call to a bot has dialled: import what a call still imports
    on first use (SciPy's signal module, which resamples the caller's lines; in a worker thread, as
    the lines are), then move every object alive out of the cyclic garbage collector's reach
    (`gc.freeze`). True when it froze now.

    Why (docs/voice.md, "Many calls on one loop"): a full collection stops the event loop, and every
    call's 20 ms frames with it, for as long as it takes to walk every tracked object. A run freezes
    what it imported before its loop started (`run_bounded`), but a first call then loads the speech
    engines, the stub server's MCP and Starlette, the WebSocket client and SciPy's signal module:
    about 100,000 more long-lived objects, walked again by every full collection of the run
    (measured in one process: 633 ms for a full collection of 350,000 objects at load average 12).
    What is frozen is never collected as a cycle until the run's loop ends (`run_bounded` unfreezes
    then): the modules and engines, and the few conversations in flight at that moment.
    """
    if _FROZEN:
        return False
    _FROZEN.append(True)
    await asyncio.to_thread(resample, Audio.silence(20, 16_000), PHONE_RATE)
    gc.freeze()
    return True
