"""eSpeak NG speech synthesis, offline: `libespeak-ng.so` and its voice data from the
`espeakng-loader` wheel, driven with ctypes.

Licence: eSpeak NG is GPL-3.0-or-later. Polygon does not link it: the library is loaded
dynamically, at run time, from the optional `voice` extra (`pip install 'polygon-bench[voice]'`),
and only when a voice call asks for the `espeak` synthesiser.

eSpeak is a process-global C library, so every utterance holds one lock. It also keeps synthesis
state in function-level statics (the pitch flutter's phase, the gain control, cycle counters in
`wavegen.c`) that neither `espeak_Terminate` nor `espeak_Initialize` resets: the same sentence said
after different ones comes out a few samples different. So each utterance runs on a freshly loaded
copy of the library (`dlopen`, initialise, seed its noise generator, speak, `dlclose`): a few
milliseconds, and the same text in the same voice gives the same samples whatever was said before.

Voices: the language's eSpeak voice (`en` is `en-us`) with the profile's variant (`en-us+m3`,
`ru+f2`), `rate_wpm` as eSpeak's words per minute (80-450), `pitch` (0-100) as its base pitch;
sentences are spoken one by one with `sentence_pause_ms` of silence between them. Output: float32
at 16 kHz by default (resampled from eSpeak's 22,050 Hz; `rate=22050` keeps it as made).
"""

from __future__ import annotations

import atexit
import ctypes
import functools
import os
import re
import shutil
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from polygon_core.voice import Audio, VoiceProfile

from ..settings import PolygonSettings
from ._extra import SpeechConfigError, import_engine
from ._pcm import from_pcm16, resampled
from ._registry import synthesizer

__all__ = ["ESPEAK_RATE", "EspeakSynthesizer", "espeak_voice_name"]

ESPEAK_RATE = 22_050  # what libespeak-ng makes

# speak_lib.h
_AUDIO_OUTPUT_SYNCHRONOUS = 2
_INITIALIZE_DONT_EXIT = 0x8000  # report errors instead of exiting the process
_POS_CHARACTER = 1
_CHARS_UTF8 = 1
_RATE, _VOLUME, _PITCH, _RANGE, _PUNCTUATION, _CAPITALS, _WORDGAP = 1, 2, 3, 4, 5, 6, 7
_EE_OK = 0
_SEED = 20_261_202  # eSpeak's noise (breathy variants) is seeded the same before every utterance

_LANGUAGES = {"en": "en-us"}  # Polygon's language code -> eSpeak's voice, where they differ
_SENTENCE_END = re.compile(r"(?<=[.!?\u2026])\s+")
_CALLBACK = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_short), ctypes.c_int, ctypes.c_void_p)

_LOCK = threading.Lock()  # one utterance at a time in this process
_chunks: list[NDArray[np.int16]] = []  # what the callback collected for the utterance in progress


def _collect(wav: Any, count: int, _events: Any) -> int:
    if count > 0:
        _chunks.append(np.ctypeslib.as_array(wav, shape=(count,)).copy())
    return 0  # 0: go on


_callback = _CALLBACK(_collect)  # kept alive for as long as the module (the library holds its address)


def espeak_voice_name(language: str, variant: str) -> str:
    """eSpeak's name of a language's voice with a variant (`en`, `m3` -> `en-us+m3`)."""
    base = _LANGUAGES.get(language, language)
    return f"{base}+{variant}" if variant else base


class _Paths:
    """Where the wheel's library and data are; the library from a private copy when another part
    of the process already holds the wheel's (its statics would be shared, and our `dlclose` would
    not reset them)."""

    def __init__(self) -> None:
        loader = import_engine("espeakng_loader")
        self.data = str(loader.get_data_path())
        self.library = str(loader.get_library_path())
        self._private: str | None = None

    def library_to_load(self) -> str:
        if self._private is None and _loaded_elsewhere(self.library):
            folder = tempfile.mkdtemp(prefix="polygon-espeak-")
            atexit.register(shutil.rmtree, folder, True)
            self._private = str(shutil.copy2(self.library, Path(folder) / "libespeak-ng-polygon.so"))
        return self._private or self.library


def _loaded_elsewhere(path: str) -> bool:
    """Whether the library at `path` is loaded now (between utterances Polygon holds none of it)."""
    import _ctypes

    try:
        held = ctypes.CDLL(path, mode=os.RTLD_NOLOAD | os.RTLD_LAZY)  # a handle only if already loaded
    except OSError:
        return False
    _ctypes.dlclose(held._handle)  # NOLOAD still counted a reference: give it back
    return True


@functools.cache
def _wheel() -> _Paths:
    """The wheel's paths, found once a process (raises `VoiceExtraMissing` without the wheel)."""
    return _Paths()


@contextmanager
def _fresh_library() -> Iterator[Any]:
    """A freshly loaded, initialised libespeak-ng (call with `_LOCK` held); unloaded on the way out."""
    import _ctypes

    paths = _wheel()
    lib = ctypes.CDLL(paths.library_to_load())
    lib.espeak_Initialize.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_char_p, ctypes.c_int]
    lib.espeak_Initialize.restype = ctypes.c_int
    lib.espeak_Info.argtypes = [ctypes.c_void_p]
    lib.espeak_Info.restype = ctypes.c_char_p
    lib.espeak_SetVoiceByName.argtypes = [ctypes.c_char_p]
    lib.espeak_SetParameter.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int]
    lib.espeak_ng_SetRandSeed.argtypes = [ctypes.c_long]
    lib.espeak_Synth.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_uint, ctypes.c_int, ctypes.c_uint,
                                 ctypes.c_uint, ctypes.c_void_p, ctypes.c_void_p]
    try:
        rate = lib.espeak_Initialize(_AUDIO_OUTPUT_SYNCHRONOUS, 0, paths.data.encode(), _INITIALIZE_DONT_EXIT)
        if rate != ESPEAK_RATE:
            raise RuntimeError(f"libespeak-ng did not start (espeak_Initialize returned {rate}; "
                               f"data folder {paths.data})")
        lib.espeak_SetSynthCallback(_callback)
        yield lib
    finally:
        lib.espeak_Terminate()
        _ctypes.dlclose(lib._handle)


def _variants() -> tuple[str, ...]:
    folder = Path(_wheel().data) / "voices" / "!v"
    return tuple(sorted(p.name for p in folder.iterdir() if p.is_file()))


class EspeakSynthesizer:
    """eSpeak NG through ctypes (see the module docstring): deterministic, offline, fast."""

    name = "espeak"

    def __init__(self, language: str = "en", *, rate: int = 16_000) -> None:
        """Check that eSpeak has a voice for `language` (a one-line `SpeechConfigError` if not);
        audio comes out at `rate` Hz."""
        self.language, self.rate = language, rate
        with _LOCK, _fresh_library() as lib:
            self.version = (lib.espeak_Info(None) or b"?").decode()
            if lib.espeak_SetVoiceByName(espeak_voice_name(language, "").encode()) != _EE_OK:
                raise SpeechConfigError(f"eSpeak has no voice for language {language!r}; expected a language "
                                        f"code eSpeak NG speaks (en, ru, de, fr, ...)")
        self.model = f"espeak-ng {self.version}"
        self._variants = _variants()

    def synthesize(self, text: str, voice: VoiceProfile, language: str) -> Audio:
        """Say `text` in `voice`: the same text and voice give the same samples."""
        if voice.variant and voice.variant not in self._variants:
            raise SpeechConfigError(f"eSpeak voice variant {voice.variant!r} does not exist; expected one of "
                                    f"m1-m8, f1-f5 or another name in espeak-ng-data/voices/!v")
        sentences = [s for s in _SENTENCE_END.split(text.strip()) if s.strip()]
        pause = np.zeros(ESPEAK_RATE * voice.sentence_pause_ms // 1000, dtype=np.int16)
        with _LOCK, _fresh_library() as lib:
            name = espeak_voice_name(language, voice.variant)
            if lib.espeak_SetVoiceByName(name.encode()) != _EE_OK:
                raise SpeechConfigError(f"eSpeak has no voice {name!r} (language {language!r})")
            lib.espeak_ng_SetRandSeed(_SEED)
            for parameter, value in ((_RATE, min(max(voice.rate_wpm, 80), 450)),
                                     (_PITCH, min(max(voice.pitch, 0), 100)), (_RANGE, 50), (_VOLUME, 100),
                                     (_WORDGAP, 0), (_PUNCTUATION, 0), (_CAPITALS, 0)):
                lib.espeak_SetParameter(parameter, value, 0)
            parts: list[NDArray[np.int16]] = []
            for i, sentence in enumerate(sentences):
                if i:
                    parts.append(pause)
                parts.append(_say(lib, sentence))
        samples = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int16)
        return resampled(from_pcm16(samples, ESPEAK_RATE), self.rate)


def _say(lib: Any, sentence: str) -> NDArray[np.int16]:
    """One sentence through `espeak_Synth` (synchronous: the callback has run when it returns)."""
    _chunks.clear()
    data = sentence.encode("utf-8")
    status = lib.espeak_Synth(data, len(data) + 1, 0, _POS_CHARACTER, 0, _CHARS_UTF8, None, None)
    if status != _EE_OK:
        raise RuntimeError(f"espeak_Synth failed with status {status}")
    out = np.concatenate(_chunks) if _chunks else np.zeros(0, dtype=np.int16)
    _chunks.clear()
    return out


@synthesizer("espeak")
def _make(settings: PolygonSettings, language: str, *, model: str | None) -> EspeakSynthesizer:
    """The offline default: eSpeak NG from the `voice` extra (one model: the installed eSpeak NG)."""
    if model is not None:
        raise SpeechConfigError(f"speech synthesis 'espeak:{model}': eSpeak has no models to choose; "
                                f"write 'espeak' (voices are chosen with `voice:`)")
    return EspeakSynthesizer(language)
