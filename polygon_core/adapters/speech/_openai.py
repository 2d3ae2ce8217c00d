"""OpenAI speech through the `openai` SDK: synthesis (the Speech API, `audio.speech.create`) and
recognition (the Transcriptions API, `audio.transcriptions.create`), or any server speaking them.

The key and base URL are the OpenAI model provider's (`OPENAI_API_KEY` / `POLYGON_OPENAI_API_KEY`,
`POLYGON_OPENAI_BASE_URL`, read through the settings); a model may carry its own base URL like a
model name does (`whisper-1@http://127.0.0.1:8000/v1`). The engines' Protocols are synchronous, so
these use the SDK's synchronous client, one per process and endpoint, with the SDK's own retries
(`POLYGON_MODEL_MAX_ATTEMPTS` attempts, `POLYGON_MODEL_TIMEOUT` seconds each). A failure after them is
a `ProviderFailure`: one line, the key never in it.

- Synthesis asks for raw PCM (`response_format: pcm`: 24 kHz, 16-bit, mono), resampled to 16 kHz.
  The voice is the profile's `name` when it names an OpenAI voice, else one picked from its variant
  (`m*` and `f*` map to fixed voices); `rate_wpm` becomes `speed` (165 wpm = 1.0). OpenAI has no
  pitch knob, and its audio is not the same on every request: replays differ, unlike eSpeak's.
- Recognition sends a 16 kHz WAV; `whisper-1` answers `verbose_json` with word timestamps
  (`timestamp_granularities: ["word"]`), other models (`gpt-4o-transcribe`) plain JSON without words.
"""

from __future__ import annotations

import re
import threading
from typing import Any

import numpy as np

from polygon_core.voice import Audio, Transcript, VoiceProfile, Word

from ..settings import PolygonSettings
from ._extra import SpeechConfigError
from ._pcm import from_pcm16, resampled, wav_bytes
from ._registry import recognizer, synthesizer

__all__ = ["OPENAI_TTS_RATE", "OpenAIRecognizer", "OpenAISpeechClient", "OpenAISynthesizer", "openai_voice"]

OPENAI_TTS_RATE = 24_000  # `pcm` from the Speech API: 24 kHz, 16-bit signed little-endian, mono
DEFAULT_TTS_MODEL = "gpt-4o-mini-tts"
DEFAULT_STT_MODEL = "whisper-1"
_NEUTRAL_WPM = 165  # the rate `speed: 1.0` stands for
_VARIANT = re.compile(r"[mf]\d")
_MALE = ("onyx", "echo", "ash", "verse", "ballad", "cedar", "fable", "alloy")
_FEMALE = ("nova", "shimmer", "coral", "sage", "marin")


def openai_voice(voice: VoiceProfile) -> str:
    """The OpenAI voice for a profile: its `name` unless that is an eSpeak variant, else one per variant."""
    if voice.name and not _VARIANT.fullmatch(voice.name):
        return voice.name
    variant = voice.variant or ""
    voices = _MALE if variant.startswith("m") else _FEMALE if variant.startswith("f") else ()
    number = int(variant[1:]) if variant[1:].isdigit() else 0
    return voices[(number - 1) % len(voices)] if voices and number else "alloy"


class OpenAISpeechClient:
    """The SDK's synchronous client for one endpoint, and what its failures say."""

    def __init__(self, settings: PolygonSettings, base_url: str | None) -> None:
        from polygon_core.adapters.providers import adapter_class

        from ._extra import import_engine

        adapter = adapter_class("openai")
        key = settings.provider_value("openai", "api_key", adapter.api_key_env)
        base = base_url or settings.provider_value("openai", "base_url", adapter.base_url_env)
        if key is None and base is None:
            raise SpeechConfigError(f"OpenAI speech needs an OpenAI API key: set {adapter.api_key_env[-1]} "
                                    f"(or give a base URL: 'openai:<model>@{adapter.url_example}')")
        self.url = base or adapter.default_url
        self.key_variable = adapter.api_key_env[-1]
        self._key = key
        self.sdk: Any = import_engine("openai")
        self.client: Any = _shared_client(self.sdk, key, base, settings)

    def failure(self, what: str, exc: Exception) -> Exception:
        """A one-line `ProviderFailure` for an SDK error (other exceptions are returned as they are)."""
        from polygon_core.conversation import ProviderFailure

        sdk = self.sdk
        if isinstance(exc, sdk.APIStatusError):
            if exc.status_code in (401, 403):  # no server detail: an endpoint may echo the key it refused
                return ProviderFailure(f"{what} at {self.url}: HTTP {exc.status_code}: check {self.key_variable}")
            return ProviderFailure(self._clean(f"{what} at {self.url}: HTTP {exc.status_code}: {_detail(exc)}"))
        if isinstance(exc, sdk.APITimeoutError):
            return ProviderFailure(f"{what} at {self.url}: timed out")
        if isinstance(exc, sdk.APIConnectionError):
            return ProviderFailure(f"{what}: cannot connect to {self.url}: is the server running?")
        return exc

    def _clean(self, text: str) -> str:
        text = " ".join(text.split())
        return text.replace(self._key, "***") if self._key and len(self._key) >= 4 else text


_CLIENTS: dict[tuple[str | None, str | None, float, int], Any] = {}
_CLIENTS_LOCK = threading.Lock()


def _shared_client(sdk: Any, key: str | None, base: str | None, settings: PolygonSettings) -> Any:
    retries = settings.model_max_attempts - 1
    cache = (key, base, settings.model_timeout, retries)
    with _CLIENTS_LOCK:
        if cache not in _CLIENTS:
            _CLIENTS[cache] = sdk.OpenAI(api_key=key or "no-key", base_url=base, max_retries=retries,
                                         timeout=settings.model_timeout)
        return _CLIENTS[cache]


def _detail(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])[:300]
    return str(getattr(exc, "message", exc))[:300]


def _split_model(model: str | None, default: str) -> tuple[str, str | None]:
    """(model, base URL) from `model[@base URL]`, checked like a model name."""
    from polygon_core.adapters.providers import ModelNameError, parse_model_name

    try:
        spec = parse_model_name(f"openai:{model or default}")
    except ModelNameError as exc:
        raise SpeechConfigError(str(exc).replace("model 'openai:", "OpenAI speech model '")) from None
    return spec.model, spec.base_url


class OpenAISynthesizer:
    """Speech from OpenAI's Speech API (see the module docstring)."""

    name = "openai"

    def __init__(self, client: OpenAISpeechClient, model: str = DEFAULT_TTS_MODEL, *, rate: int = 16_000,
                 label: str | None = None) -> None:
        """`model` as the API names it; `label` is how the call's stack records it (default: `model`)."""
        self._client, self.rate, self._model = client, rate, model
        self.model = label or model

    def synthesize(self, text: str, voice: VoiceProfile, language: str) -> Audio:
        """Say `text` in the profile's OpenAI voice at its speed."""
        if not text.strip():
            return Audio(np.zeros(0, dtype=np.float32), self.rate)
        speed = round(min(max(voice.rate_wpm / _NEUTRAL_WPM, 0.25), 4.0), 2)
        try:
            reply = self._client.client.audio.speech.create(
                model=self._model, voice=openai_voice(voice), input=text, response_format="pcm", speed=speed)
            data = reply.content
        except Exception as exc:
            raise self._client.failure(f"speech synthesis ({self._model})", exc) from None
        data = data[: len(data) // 2 * 2]  # whole 16-bit samples
        return resampled(from_pcm16(data, OPENAI_TTS_RATE), self.rate)


class OpenAIRecognizer:
    """Transcription by OpenAI's Transcriptions API (see the module docstring)."""

    name = "openai"

    def __init__(self, client: OpenAISpeechClient, model: str = DEFAULT_STT_MODEL, *,
                 label: str | None = None) -> None:
        """`model` as the API names it; `label` is how the call's stack records it (default: `model`)."""
        self._client, self._model = client, model
        self.model = label or model
        self._words = model.startswith("whisper")  # only whisper-1 gives word timestamps

    def transcribe(self, audio: Audio, language: str) -> Transcript:
        """What the service hears in `audio`, with word times in ms from its start when it gives them."""
        if len(audio.samples) == 0:
            return Transcript("")
        upload = ("audio.wav", wav_bytes(resampled(audio, 16_000)), "audio/wav")
        extra: dict[str, Any] = ({"response_format": "verbose_json", "timestamp_granularities": ["word"]}
                                 if self._words else {"response_format": "json"})
        try:
            result = self._client.client.audio.transcriptions.create(
                model=self._model, file=upload, language=language, **extra)
        except Exception as exc:
            raise self._client.failure(f"speech recognition ({self._model})", exc) from None
        end = audio.duration_ms
        words = []
        for w in getattr(result, "words", None) or ():
            if not str(w.word).strip():
                continue
            start_ms = min(max(round(w.start * 1000), 0), end)
            words.append(Word(str(w.word).strip(), start_ms, min(max(round(w.end * 1000), start_ms), end)))
        return Transcript(str(result.text).strip(), tuple(words))


def _label(model: str, base: str | None) -> str:
    return f"{model}@{base}" if base else model


@synthesizer("openai")
def _make_synthesizer(settings: PolygonSettings, language: str, *, model: str | None) -> OpenAISynthesizer:
    """OpenAI speech (`openai` or `openai:<model>[@<base URL>]`), with the OpenAI provider's key."""
    name, base = _split_model(model, DEFAULT_TTS_MODEL)
    return OpenAISynthesizer(OpenAISpeechClient(settings, base), name, label=_label(name, base))


@recognizer("openai")
def _make_recognizer(settings: PolygonSettings, *, language: str, model: str | None) -> OpenAIRecognizer:
    """OpenAI transcription (`stt_model`: `whisper-1` by default, `<model>@<base URL>` for another
    server), with the OpenAI provider's key."""
    name, base = _split_model(model, DEFAULT_STT_MODEL)
    return OpenAIRecognizer(OpenAISpeechClient(settings, base), name, label=_label(name, base))
