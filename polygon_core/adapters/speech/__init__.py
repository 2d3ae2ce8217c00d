"""Speech engines behind the Protocols of `polygon_core.voice`: synthesis, recognition and voice
activity detection, registered by name.

- synthesis (`make_synthesizer`): `espeak` (eSpeak NG from the `espeakng-loader` wheel, offline,
  the default) and `openai` (the Speech API through the `openai` SDK);
- recognition (`make_recognizer`): `whisper` (faster-whisper on Whisper models shipped in wheels,
  or a CTranslate2 folder; offline, the default) and `openai` (the Transcriptions API);
- voice activity (`make_vad`): `webrtc` (WebRTC's VAD from `webrtcvad-wheels`).

The registry (`_registry.py`) imports this package's modules on the first lookup, and they import
no engine: eSpeak, faster-whisper/CTranslate2, webrtcvad and the OpenAI SDK are imported when an
engine is built, so a text run never loads them. The offline engines come with the optional
`voice` extra; `check_voice_extra()` says whether it is installed without importing anything, and
`VoiceExtraMissing` is its one-line error. `bundled_models()` describes the offline models.
"""

from ._espeak import ESPEAK_RATE, EspeakSynthesizer, espeak_voice_name
from ._extra import (
    VOICE_EXTRA_MESSAGE,
    BundledModel,
    SpeechConfigError,
    VoiceExtraMissing,
    bundled_models,
    check_voice_extra,
)
from ._openai import OPENAI_TTS_RATE, OpenAIRecognizer, OpenAISynthesizer, openai_voice
from ._registry import (
    PLUGIN_GROUP,
    RECOGNIZERS,
    SYNTHESIZERS,
    VOICE_ACTIVITY,
    make_recognizer,
    make_synthesizer,
    make_vad,
    recognizer,
    recognizer_names,
    synthesizer,
    synthesizer_names,
    voice_activity,
)
from ._vad import WebRtcVad
from ._whisper import (
    BUNDLED_WHISPER,
    WHISPER_RATE,
    WhisperModelFolder,
    WhisperRecognizer,
    joined_base_model,
    resolve_whisper_model,
    speech_models_folder,
)

__all__ = [
    "BUNDLED_WHISPER",
    "ESPEAK_RATE",
    "OPENAI_TTS_RATE",
    "PLUGIN_GROUP",
    "RECOGNIZERS",
    "SYNTHESIZERS",
    "VOICE_ACTIVITY",
    "VOICE_EXTRA_MESSAGE",
    "WHISPER_RATE",
    "BundledModel",
    "EspeakSynthesizer",
    "OpenAIRecognizer",
    "OpenAISynthesizer",
    "SpeechConfigError",
    "VoiceExtraMissing",
    "WebRtcVad",
    "WhisperModelFolder",
    "WhisperRecognizer",
    "bundled_models",
    "check_voice_extra",
    "espeak_voice_name",
    "joined_base_model",
    "make_recognizer",
    "make_synthesizer",
    "make_vad",
    "openai_voice",
    "recognizer",
    "recognizer_names",
    "resolve_whisper_model",
    "speech_models_folder",
    "synthesizer",
    "synthesizer_names",
    "voice_activity",
]
