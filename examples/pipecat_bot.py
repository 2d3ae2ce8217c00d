"""A real Pipecat voice bot that answers Twilio Media Streams calls: Polygon's test bot, and an example
of a deployed bot pointed at Polygon (docs/voice.md).

    python examples/pipecat_bot.py --port 8765 --llm-base-url http://127.0.0.1:8000/v1 --model gpt-4.1-mini

serves `ws://127.0.0.1:8765/ws`. Polygon (or Twilio) opens that socket as the phone line and sends
`connected`, then `start` (streamSid, callSid, mediaFormat audio/x-mulaw 8000 Hz, customParameters),
then 20 ms `media` frames. One call per connection:

- Pipecat's FastAPI WebSocket transport with its `TwilioFrameSerializer` (mu-law 8 kHz on the wire);
- Silero VAD (the ONNX model inside the pipecat-ai wheel) ahead of the STT, and a silence-timeout end
  of turn;
- Whisper STT on the tiny.en model folder of Polygon's `voice` extra (faster-whisper; nothing is
  downloaded);
- Pipecat's OpenAI LLM service on any OpenAI-compatible server (`--llm-base-url`, or
  `OPENAI_BASE_URL`; key from `--llm-api-key` or `OPENAI_API_KEY`);
- tools from the tool-stub URL that `start` carries as `customParameters.tools_url` (see
  `fetch_tools`): each call POSTs its JSON arguments to `<tools_url>/<name>`;
- speech from eSpeak NG through Polygon's speech adapter (`EspeakTTSService`);
- what it heard: each final transcript of the caller goes back on the line as Polygon's `user`
  transcript side message (`UserTranscripts`), so Polygon keeps the bot's own hearing of each line.

The bot greets first with a fixed line (`--greeting`), like an agent answering the phone. Variants of the same bot (options):
`--delay-ms 2500` waits that long before each answer; `--never-yield` keeps talking when the caller
speaks over it (no interruptions, so no `clear`); `--drop-after-s N` closes the socket N seconds into
the call (close code 1011, no `stop`); `--silent` listens and thinks but never speaks.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import httpx
import uvicorn
from fastapi import FastAPI, WebSocket
from loguru import logger
from pipecat.adapters.llm.schemas.function_schema import FunctionSchema
from pipecat.adapters.llm.schemas.tools_schema import ToolsSchema
from pipecat.audio.vad.silero import SileroVADAnalyzer
from pipecat.audio.vad.vad_analyzer import VADParams
from pipecat.frames.frames import (
    Frame,
    LLMContextFrame,
    OutputTransportMessageUrgentFrame,
    TranscriptionFrame,
    TTSAudioRawFrame,
    TTSSpeakFrame,
)
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.worker import PipelineParams, PipelineWorker
from pipecat.processors.aggregators.llm_context import LLMContext
from pipecat.processors.aggregators.llm_response_universal import (
    LLMContextAggregatorPair,
    LLMUserAggregatorParams,
)
from pipecat.processors.audio.vad_processor import VADProcessor
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.serializers.twilio import TwilioFrameSerializer
from pipecat.services.llm_service import FunctionCallParams
from pipecat.services.openai.llm import OpenAILLMService
from pipecat.services.settings import TTSSettings
from pipecat.services.tts_service import TTSService
from pipecat.services.whisper.stt import WhisperSTTService
from pipecat.transcriptions.language import Language
from pipecat.transports.websocket.fastapi import FastAPIWebsocketParams, FastAPIWebsocketTransport
from pipecat.turns.user_start import TranscriptionUserTurnStartStrategy, VADUserTurnStartStrategy
from pipecat.turns.user_stop import SpeechTimeoutUserTurnStopStrategy
from pipecat.turns.user_turn_strategies import UserTurnStrategies
from pipecat.utils.types import NOT_GIVEN
from pipecat.workers.runner import WorkerRunner

from polygon_core.adapters.settings import load_settings
from polygon_core.adapters.speech import make_synthesizer, resolve_whisper_model
from polygon_core.voice import Audio, VoiceProfile, resample, to_pcm16

# Whisper hears 16 kHz; the phone line is 8 kHz, so the bot speaks at 8 kHz and the serializer only
# has to mu-law encode (it upsamples the caller's audio to 16 kHz on the way in).
IN_RATE = 16_000
OUT_RATE = 8_000
SYSTEM_PROMPT = ("You are a customer service agent of Northwind on a phone call. Answer in one or two short "
                 "spoken sentences, without lists or markup. Use the tools to look things up.")
GREETING = "Northwind customer service, how can I help you today?"
FIRST_MESSAGES = 8  # messages read while waiting for `start` (Twilio sends `connected`, then `start`)


@dataclass(frozen=True)
class BotOptions:
    """How this bot behaves (the command line, see `parse_args`)."""

    llm_base_url: str | None = None
    llm_api_key: str = "not-needed"
    model: str = "gpt-4.1-mini"
    whisper_model: str = "tiny.en"  # a bundled model name (tiny.en, base) or a CTranslate2 folder
    delay_ms: int = 0
    never_yield: bool = False
    drop_after_s: float | None = None
    silent: bool = False
    end_of_turn_s: float = 0.6
    greeting: str = GREETING


# --- the call's first messages ------------------------------------------------------------------

@dataclass(frozen=True)
class CallStart:
    """What the `start` message says about the call."""

    stream_sid: str
    call_sid: str | None
    custom_parameters: dict[str, str]


def parse_start(message: dict[str, Any]) -> CallStart:
    """The call from a Twilio `start` message; ValueError naming the field when one is missing."""
    start = message.get("start")
    if not isinstance(start, dict) or not isinstance(start.get("streamSid"), str):
        raise ValueError("start message: expected start.streamSid (a string)")
    media = start.get("mediaFormat") or {}
    if media and (media.get("encoding"), media.get("sampleRate")) != ("audio/x-mulaw", 8000):
        raise ValueError(f"start.mediaFormat: expected audio/x-mulaw at 8000 Hz, got {media}")
    custom = start.get("customParameters") or {}
    return CallStart(start["streamSid"], start.get("callSid"), {str(k): str(v) for k, v in custom.items()})


async def read_start(websocket: WebSocket) -> CallStart:
    """Read the socket until Twilio's `start` (after `connected`), as Pipecat's own runner does with
    the first two messages; media before `start` is not part of the protocol."""
    for _ in range(FIRST_MESSAGES):
        message = json.loads(await websocket.receive_text())
        if message.get("event") == "start":
            return parse_start(message)
    raise ValueError(f"no start message among the first {FIRST_MESSAGES} messages")


# --- tools: the tool-stub URL (kept small and apart: the stub server's shape may change) ---------

def tools_from_document(document: Any) -> list[dict[str, Any]]:
    """OpenAI-style function definitions (`{"name", "description", "parameters"}`) from what the
    tool-stub URL serves: a JSON list of function definitions (bare or as `{"type": "function",
    "function": {...}}`), or an OpenAPI document with one POST operation per tool whose JSON request
    body schema is the tool's parameters (the tool's name is the path's last segment)."""
    if isinstance(document, list):
        return [_function(item) for item in document]
    if isinstance(document, dict) and "paths" in document:
        return [_operation(path, op, document) for path, item in document["paths"].items()
                if isinstance(op := item.get("post"), dict)]
    raise ValueError("tools document: expected a JSON list of function definitions or an OpenAPI document")


def _function(item: dict[str, Any]) -> dict[str, Any]:
    function = item.get("function", item) if item.get("type") == "function" else item
    if not isinstance(function.get("name"), str):
        raise ValueError(f"tools document: a function definition without a name: {item}")
    return {"name": function["name"], "description": function.get("description", ""),
            "parameters": function.get("parameters") or {"type": "object", "properties": {}}}


def _operation(path: str, operation: dict[str, Any], document: dict[str, Any]) -> dict[str, Any]:
    schema = (((operation.get("requestBody") or {}).get("content") or {}).get("application/json") or {}).get(
        "schema") or {"type": "object", "properties": {}}
    return {"name": path.rstrip("/").rsplit("/", 1)[-1],
            "description": operation.get("description") or operation.get("summary") or "",
            "parameters": _resolve(schema, document)}


def _resolve(schema: dict[str, Any], document: dict[str, Any]) -> dict[str, Any]:
    """A `#/components/...` reference replaced by what it points at (one level: stub schemas are flat)."""
    ref = schema.get("$ref")
    if not isinstance(ref, str) or not ref.startswith("#/"):
        return schema
    target: Any = document
    for part in ref[2:].split("/"):
        target = target[part]
    return dict(target)


def tools_schema(functions: Sequence[dict[str, Any]]) -> ToolsSchema:
    """Pipecat's tool list for these OpenAI-style function definitions."""
    return ToolsSchema(standard_tools=[
        FunctionSchema(name=f["name"], description=f["description"],
                       properties=f["parameters"].get("properties", {}),
                       required=list(f["parameters"].get("required", [])))
        for f in functions])


async def fetch_tools(client: httpx.AsyncClient, tools_url: str) -> list[dict[str, Any]]:
    """The function definitions served at `tools_url` (GET)."""
    response = await client.get(tools_url)
    response.raise_for_status()
    return tools_from_document(response.json())


def _tool_handler(client: httpx.AsyncClient, tools_url: str) -> Callable[[FunctionCallParams], Awaitable[None]]:
    """Pipecat's function-call handler: each call goes to the stub, and its answer back to the model."""
    async def handle(params: FunctionCallParams) -> None:
        await params.result_callback(await call_tool(client, tools_url, params.function_name, dict(params.arguments)))
    return handle


async def call_tool(client: httpx.AsyncClient, tools_url: str, name: str, arguments: dict[str, Any]) -> Any:
    """POST the call's JSON arguments to `<tools_url>/<name>`; the JSON answer is the result (an HTTP
    error becomes `{"error": ...}`, which the model reads as the tool's failure)."""
    response = await client.post(f"{tools_url.rstrip('/')}/{name}", json=arguments)
    try:
        body = response.json()
    except ValueError:
        body = response.text
    if response.is_error:
        return {"error": body if body else f"HTTP {response.status_code}"}
    return body


# --- speech out and the slow variant ------------------------------------------------------------

class EspeakTTSService(TTSService):
    """Pipecat TTS over eSpeak NG through Polygon's speech adapter: 16-bit PCM at the pipeline's
    output rate, in chunks of `chunk_size`."""

    def __init__(self, *, voice: VoiceProfile | None = None, language: str = "en", **kwargs: Any) -> None:
        """Load eSpeak NG from the `voice` extra for `language`."""
        super().__init__(push_start_frame=True, push_stop_frames=True,
                         settings=TTSSettings(model=None, voice=None, language=None), **kwargs)
        self._voice = voice or VoiceProfile(rate_wpm=175, pitch=45, variant="f2")
        self._language = language
        self._synthesizer = make_synthesizer("espeak", load_settings(), language)

    def can_generate_metrics(self) -> bool:
        """Pipecat's metrics (TTFB) apply."""
        return True

    def _pcm(self, text: str) -> bytes:
        audio: Audio = self._synthesizer.synthesize(text, self._voice, self._language)
        return to_pcm16(resample(audio, self.sample_rate))

    async def run_tts(self, text: str, context_id: str) -> AsyncGenerator[Frame | None, None]:
        """Synthesise `text` off the event loop (eSpeak is synchronous) and yield it in chunks."""
        await self.start_tts_usage_metrics(text)
        pcm = await asyncio.to_thread(self._pcm, text)
        await self.stop_ttfb_metrics()
        step = self.chunk_size
        for offset in range(0, len(pcm), step):
            yield TTSAudioRawFrame(pcm[offset:offset + step], self.sample_rate, 1, context_id=context_id)


class AnswerDelay(FrameProcessor):
    """Holds each request to the model for `delay_ms` (a slow backend). It sits between the user's
    aggregator and the LLM, so it delays each answer once (a tool result goes back to the LLM upstream
    and is not held; the fixed greeting does not go through the model). A caller who speaks meanwhile interrupts
    the wait as Pipecat interrupts any processor."""

    def __init__(self, delay_ms: int) -> None:
        """Hold requests for `delay_ms` milliseconds."""
        super().__init__()
        self._delay_s = delay_ms / 1000

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        """Pass every frame on; a request to the model after the delay."""
        await super().process_frame(frame, direction)
        if isinstance(frame, LLMContextFrame) and direction == FrameDirection.DOWNSTREAM:
            await asyncio.sleep(self._delay_s)
        await self.push_frame(frame, direction)


# --- what the bot heard ---------------------------------------------------------------------------

def user_transcript(stream_sid: str, text: str) -> dict[str, Any]:
    """Polygon's side message for what the bot heard the caller say (docs/voice.md)."""
    return {"event": "polygon", "streamSid": stream_sid,
            "polygon": {"type": "transcript", "role": "user", "text": text}}


class UserTranscripts(FrameProcessor):
    """Sits after the STT: each final transcript of the caller goes out on the line at once (an
    urgent transport message, which Pipecat's Twilio serializer sends as JSON) as Polygon's `user`
    transcript side message, before the transcript itself goes on to the user aggregator. Polygon
    then grades what this bot heard, not its own transcription of the caller's audio."""

    def __init__(self, stream_sid: str) -> None:
        """Messages carry the call's `stream_sid`."""
        super().__init__()
        self._stream_sid = stream_sid

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        """Pass every frame on; a final transcript with words is told to Polygon first."""
        await super().process_frame(frame, direction)
        if isinstance(frame, TranscriptionFrame) and direction == FrameDirection.DOWNSTREAM and frame.text.strip():
            message = user_transcript(self._stream_sid, frame.text.strip())
            await self.push_frame(OutputTransportMessageUrgentFrame(message=message), direction)
        await self.push_frame(frame, direction)


# --- one call -----------------------------------------------------------------------------------

def _turn_strategies(options: BotOptions) -> UserTurnStrategies:
    """Start of the caller's turn on voice or words; its end after `end_of_turn_s` of silence. The
    never-yielding bot hears the caller as usual but never interrupts itself (no `clear`)."""
    interrupt = not options.never_yield
    return UserTurnStrategies(
        start=[VADUserTurnStartStrategy(enable_interruptions=interrupt),
               TranscriptionUserTurnStartStrategy(enable_interruptions=interrupt)],
        stop=[SpeechTimeoutUserTurnStopStrategy(user_speech_timeout=options.end_of_turn_s)])


def _llm(options: BotOptions) -> OpenAILLMService:
    return OpenAILLMService(api_key=options.llm_api_key, base_url=options.llm_base_url,
                            settings=OpenAILLMService.Settings(model=options.model, system_instruction=SYSTEM_PROMPT))


def _stt(options: BotOptions) -> WhisperSTTService:
    folder = resolve_whisper_model(load_settings(), "en", options.whisper_model)
    # no_speech_prob: Pipecat drops a segment whose no-speech probability reaches its threshold
    # (default 0.4). The VAD has already cut the segment to speech, and tiny.en scores a synthetic
    # voice's short lines near 0.4: "My account number is 4821" scored 0.41-0.42 on every run and
    # was dropped, so the bot heard nothing and the call ended silent. 0.8 keeps such lines.
    return WhisperSTTService(settings=WhisperSTTService.Settings(model=str(folder.path), language=Language.EN,
                                                                 no_speech_prob=0.8),
                             device="cpu", compute_type="int8",
                             # Seconds from the end of speech to the transcript (tiny.en on a CPU):
                             # how long the end of turn may wait for words.
                             ttfs_p99_latency=1.0)


async def run_call(websocket: WebSocket, options: BotOptions) -> None:
    """Answer one call on an accepted socket until the caller hangs up (or the bot drops it)."""
    call = await read_start(websocket)
    logger.info(f"call {call.call_sid} stream {call.stream_sid} parameters {call.custom_parameters}")
    serializer = TwilioFrameSerializer(
        stream_sid=call.stream_sid, call_sid=call.call_sid,
        # No Twilio account behind this line: hanging up is closing the socket, not a REST call.
        params=TwilioFrameSerializer.InputParams(auto_hang_up=False))
    transport = FastAPIWebsocketTransport(websocket, FastAPIWebsocketParams(
        audio_in_enabled=True, audio_out_enabled=True, add_wav_header=False, serializer=serializer))
    async with httpx.AsyncClient(timeout=30) as client:
        tools_url = call.custom_parameters.get("tools_url")
        functions = await fetch_tools(client, tools_url) if tools_url else []
        llm = _llm(options)
        if tools_url and functions:
            llm.register_function(None, _tool_handler(client, tools_url))  # None: every tool
        context = LLMContext(tools=tools_schema(functions) if functions else NOT_GIVEN)
        user, assistant = LLMContextAggregatorPair(context, user_params=LLMUserAggregatorParams(
            user_turn_strategies=_turn_strategies(options)))
        # The VAD sits ahead of the STT (Pipecat's default puts it in the user aggregator, after the
        # STT, whose segment buffer then learns of speech late when frames are processed in a burst,
        # and loses the caller's first words): its events travel in order with the audio. A phone
        # line never goes quiet (it carries silence), so no idle timeout either. Silence of 0.4 s ends
        # a segment (Pipecat's 0.2 s splits a sentence at a soft consonant, and each part is
        # transcribed on its own).
        vad = VADProcessor(vad_analyzer=SileroVADAnalyzer(params=VADParams(stop_secs=0.4)), audio_idle_timeout=0)
        stages: list[FrameProcessor] = [transport.input(), vad, _stt(options), UserTranscripts(call.stream_sid), user]
        stages += [AnswerDelay(options.delay_ms)] if options.delay_ms else []
        stages += [llm] + ([] if options.silent else [EspeakTTSService()])
        stages += [transport.output(), assistant]
        worker = PipelineWorker(Pipeline(stages), enable_rtvi=False,
                                params=PipelineParams(audio_in_sample_rate=IN_RATE, audio_out_sample_rate=OUT_RATE))

        @transport.event_handler("on_client_connected")
        async def on_connected(_transport: Any, _socket: Any) -> None:
            if options.greeting and not options.silent:
                await worker.queue_frames([TTSSpeakFrame(options.greeting)])

        @transport.event_handler("on_client_disconnected")
        async def on_disconnected(_transport: Any, _socket: Any) -> None:
            await worker.cancel()

        dropper = asyncio.create_task(_drop(websocket, worker, options.drop_after_s)) if options.drop_after_s else None
        runner = WorkerRunner(handle_sigint=False)
        await runner.add_workers(worker)
        try:
            await runner.run()
        finally:
            if dropper is not None:
                dropper.cancel()


async def _drop(websocket: WebSocket, worker: PipelineWorker, after_s: float) -> None:
    """The dropping variant: close the socket mid-call, without `stop` (code 1011: the server failed)."""
    await asyncio.sleep(after_s)
    logger.info(f"dropping the call after {after_s} s")
    await websocket.close(code=1011, reason="bot dropped the call")
    await worker.cancel()


def make_app(options: BotOptions) -> FastAPI:
    """The bot's web app: the Twilio Media Streams socket at `/ws`."""
    app = FastAPI()

    @app.websocket("/ws")
    async def media_stream(websocket: WebSocket) -> None:
        await websocket.accept()
        try:
            await run_call(websocket, options)
        except ValueError as exc:  # a first message that is not the protocol's, or a bad tools document
            logger.warning(f"refused call: {exc}")
            await websocket.close(code=1008, reason=str(exc)[:120])
        except httpx.HTTPError as exc:  # the tool-stub URL did not answer
            logger.warning(f"refused call: tools_url: {exc!r}")
            await websocket.close(code=1011, reason="tools_url did not answer")

    return app


def warm_up() -> None:
    """Synthesise one word before the first call. eSpeak NG's first synthesis in a process loads its
    data (about 2 s on this 2-core machine, more under load), and Pipecat's TTS service ends a
    context that yields no audio within `stop_frame_timeout_s` (3 s): the first call's greeting was
    dropped unheard on a loaded machine, and the caller hung up on a silent bot."""
    make_synthesizer("espeak", load_settings(), "en").synthesize("Hello.", VoiceProfile(), "en")


def parse_args(argv: Sequence[str] | None = None) -> tuple[argparse.Namespace, BotOptions]:
    """The command line: where to listen, the model server, the variant."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--llm-base-url", default=os.environ.get("OPENAI_BASE_URL"),
                        help="an OpenAI-compatible server (default: OPENAI_BASE_URL, else OpenAI's)")
    parser.add_argument("--llm-api-key", default=os.environ.get("OPENAI_API_KEY", "not-needed"))
    parser.add_argument("--model", default="gpt-4.1-mini")
    parser.add_argument("--whisper-model", default="tiny.en", help="tiny.en, base or a CTranslate2 Whisper folder")
    parser.add_argument("--delay-ms", type=int, default=0, help="wait this long before each answer")
    parser.add_argument("--never-yield", action="store_true", help="keep talking when the caller speaks over it")
    parser.add_argument("--drop-after-s", type=float, default=None, help="close the socket this far into a call")
    parser.add_argument("--silent", action="store_true", help="never speak")
    parser.add_argument("--end-of-turn-s", type=float, default=0.6, help="caller silence that ends their turn")
    parser.add_argument("--greeting", default=GREETING, help="the bot's first words ('' to wait for the caller)")
    parser.add_argument("--log-level", default="INFO")
    args = parser.parse_args(argv)
    if args.delay_ms < 0 or (args.drop_after_s is not None and args.drop_after_s <= 0):
        parser.error("--delay-ms must be >= 0 and --drop-after-s > 0")
    return args, BotOptions(llm_base_url=args.llm_base_url, llm_api_key=args.llm_api_key, model=args.model,
                            whisper_model=args.whisper_model, delay_ms=args.delay_ms, never_yield=args.never_yield,
                            drop_after_s=args.drop_after_s, silent=args.silent, end_of_turn_s=args.end_of_turn_s,
                            greeting=args.greeting)


def main(argv: Sequence[str] | None = None) -> None:
    """Serve the bot until interrupted."""
    args, options = parse_args(argv)
    logger.remove()
    logger.add(sys.stderr, level=args.log_level.upper())
    warm_up()
    uvicorn.run(make_app(options), host=args.host, port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
