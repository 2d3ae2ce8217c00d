"""The speech engines by name: synthesisers, recognisers and voice activity detectors.

An engine is a factory function in one module of this package, registered with
`@synthesizer(name)`, `@recognizer(name)` or `@voice_activity(name)`; every module here is imported
on the first lookup (`Registry` with `submodules=""`), so no list names them, and an installed
distribution adds one through the `polygon.speech` entry-point group. The modules import no engine:
a factory imports its engine (eSpeak, faster-whisper, webrtcvad, the OpenAI SDK) when it builds one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeVar

from polygon_core._registry import Registry
from polygon_core.voice import Recognizer, Synthesizer, VoiceActivity

from ..settings import PolygonSettings
from ._extra import SpeechConfigError

__all__ = ["PLUGIN_GROUP", "RECOGNIZERS", "SYNTHESIZERS", "VOICE_ACTIVITY", "RecognizerFactory",
           "SynthesizerFactory", "VoiceActivityFactory", "make_recognizer", "make_synthesizer", "make_vad",
           "recognizer", "recognizer_names", "synthesizer", "synthesizer_names", "voice_activity"]

PLUGIN_GROUP = "polygon.speech"
_PACKAGE = __package__ or "polygon_core.adapters.speech"


class SynthesizerFactory(Protocol):
    """Builds a synthesiser for calls in `language` (checked here, before any call runs); `model`
    is what followed the engine's name (`openai:tts-1`), None for its default."""

    def __call__(self, settings: PolygonSettings, language: str, *, model: str | None) -> Synthesizer: ...


class RecognizerFactory(Protocol):
    """Builds a recogniser for `language`; `model` is the engine's model (a name or a folder),
    None for its default."""

    def __call__(self, settings: PolygonSettings, *, language: str, model: str | None) -> Recognizer: ...


class VoiceActivityFactory(Protocol):
    """Builds a voice activity detector with frames of `frame_ms`."""

    def __call__(self, *, frame_ms: int, aggressiveness: int) -> VoiceActivity: ...


# The offline engine first in each: it leads the names listed in help and errors.
SYNTHESIZERS: Registry[SynthesizerFactory] = Registry(
    "speech synthesizer", _PACKAGE, submodules="", first=("_espeak",), plugins=PLUGIN_GROUP)
RECOGNIZERS: Registry[RecognizerFactory] = Registry(
    "speech recognizer", _PACKAGE, submodules="", first=("_whisper",), plugins=PLUGIN_GROUP)
VOICE_ACTIVITY: Registry[VoiceActivityFactory] = Registry(
    "voice activity detector", _PACKAGE, submodules="", first=("_vad",), plugins=PLUGIN_GROUP)

S = TypeVar("S", bound=SynthesizerFactory)
R = TypeVar("R", bound=RecognizerFactory)
V = TypeVar("V", bound=VoiceActivityFactory)
T = TypeVar("T")


def synthesizer(name: str) -> Callable[[S], S]:
    """Register the decorated factory as the speech synthesiser `name`."""
    return SYNTHESIZERS.register(name)  # type: ignore[return-value]


def recognizer(name: str) -> Callable[[R], R]:
    """Register the decorated factory as the speech recogniser `name`."""
    return RECOGNIZERS.register(name)  # type: ignore[return-value]


def voice_activity(name: str) -> Callable[[V], V]:
    """Register the decorated factory as the voice activity detector `name`."""
    return VOICE_ACTIVITY.register(name)  # type: ignore[return-value]


def synthesizer_names() -> tuple[str, ...]:
    """The registered synthesisers, the offline default first."""
    return SYNTHESIZERS.names()


def recognizer_names() -> tuple[str, ...]:
    """The registered recognisers, the offline default first."""
    return RECOGNIZERS.names()


def _factory(registry: Registry[T], kind: str, name: str) -> T:
    found = registry.get(name)
    if found is None:
        raise SpeechConfigError(f"unknown {kind} {name!r}; expected one of {', '.join(registry.names())}")
    return found


def make_synthesizer(name: str, settings: PolygonSettings, language: str) -> Synthesizer:
    """The speech synthesiser `name` (a registered engine, optionally followed by `:<model>`, e.g.
    `openai:tts-1` or `openai:gpt-4o-mini-tts@http://127.0.0.1:8000/v1`), ready for `language`.

    Raises `SpeechConfigError` (an unknown engine, a language it cannot speak) or
    `VoiceExtraMissing` (an offline engine without the `voice` extra)."""
    engine, _, model = name.partition(":")
    return _factory(SYNTHESIZERS, "speech synthesis engine", engine)(settings, language, model=model or None)


def make_recognizer(name: str, settings: PolygonSettings, *, language: str, model: str | None = None) -> Recognizer:
    """The speech recogniser registered as `name` for `language`, with `model` (the cascade's
    `stt_model`: a folder or the engine's model name; None for the engine's default).

    Raises `SpeechConfigError` (an unknown engine, a model folder that is not one) or
    `VoiceExtraMissing`."""
    return _factory(RECOGNIZERS, "speech recognition engine", name)(settings, language=language, model=model)


def make_vad(name: str = "webrtc", *, frame_ms: int = 20, aggressiveness: int = 2) -> VoiceActivity:
    """The voice activity detector registered as `name`."""
    return _factory(VOICE_ACTIVITY, "voice activity detector", name)(frame_ms=frame_ms,
                                                                      aggressiveness=aggressiveness)
