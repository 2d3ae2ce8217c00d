"""OpenAI speech (the Speech and Transcriptions APIs) through the real `openai` SDK, against a local
server speaking their wire formats (tests/fakes/speech_server.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from polygon_core.adapters.settings import PolygonSettings, load_settings
from polygon_core.adapters.speech import SpeechConfigError, make_recognizer, make_synthesizer
from polygon_core.conversation import ProviderFailure
from polygon_core.voice import Audio, Recognizer, Synthesizer, VoiceProfile, Word
from tests.fakes.speech_server import MS_PER_CHARACTER, FakeSpeechServer, SpeechBehaviour

KEY = "sk-polygon-speech-SECRET-0123456789"


@pytest.fixture
def server() -> Iterator[FakeSpeechServer]:
    with FakeSpeechServer() as srv:
        yield srv


def _settings(tmp_path: Path, server: FakeSpeechServer, **overrides: Any) -> PolygonSettings:
    values: dict[str, Any] = {"home": tmp_path, "openai_api_key": KEY, "openai_base_url": server.url,
                              "model_max_attempts": 1, "model_timeout": 5.0}
    values.update(overrides)
    return load_settings(**values)


def test_synthesis_asks_for_pcm_in_the_profiles_voice(tmp_path: Path, server: FakeSpeechServer) -> None:
    synth = make_synthesizer("openai", _settings(tmp_path, server), "en")
    assert isinstance(synth, Synthesizer) and (synth.name, synth.model) == ("openai", "gpt-4o-mini-tts")
    text = "Hello, how can I help?"
    audio = synth.synthesize(text, VoiceProfile(rate_wpm=198, variant="f2"), "en")
    assert server.behaviour.seen == [{"model": "gpt-4o-mini-tts", "voice": "shimmer", "input": text,
                                      "response_format": "pcm", "speed": 1.2}]
    assert audio.rate == 16_000 and audio.samples.dtype == np.float32
    assert audio.duration_ms == MS_PER_CHARACTER * len(text)  # 24 kHz PCM, resampled: the same length
    assert 0.29 < float(np.abs(audio.samples).max()) < 0.31  # the server's tone at 0.3
    assert {k.lower(): v for k, v in server.headers_seen[0].items()}["authorization"] == f"Bearer {KEY}"


def test_the_voice_name_wins_and_variants_map_to_voices(tmp_path: Path, server: FakeSpeechServer) -> None:
    synth = make_synthesizer("openai:tts-1", _settings(tmp_path, server), "en")
    assert synth.model == "tts-1"
    for profile in (VoiceProfile(name="alloy", variant="m2"), VoiceProfile(variant="m1"),
                    VoiceProfile(name="f1", variant="f1"), VoiceProfile(variant="x"),
                    VoiceProfile(rate_wpm=20), VoiceProfile(rate_wpm=900)):
        synth.synthesize("Hi.", profile, "en")
    assert [(b["model"], b["voice"], b["speed"]) for b in server.behaviour.seen] == [
        ("tts-1", "alloy", 1.0), ("tts-1", "onyx", 1.0), ("tts-1", "nova", 1.0), ("tts-1", "alloy", 1.0),
        ("tts-1", "ash", 0.25), ("tts-1", "ash", 4.0)]
    assert synth.synthesize("  ", VoiceProfile(), "en").duration_ms == 0
    assert len(server.behaviour.seen) == 6  # nothing to say: no request


def test_a_base_url_in_the_model_name(tmp_path: Path, server: FakeSpeechServer) -> None:
    settings = load_settings(home=tmp_path, model_max_attempts=1)  # no key, no base URL in the settings
    synth = make_synthesizer(f"openai:my-tts@{server.url}", settings, "en")
    assert synth.model == f"my-tts@{server.url}"
    synth.synthesize("Hi.", VoiceProfile(), "en")
    assert server.behaviour.seen[0]["model"] == "my-tts"
    with pytest.raises(SpeechConfigError) as raised:
        make_synthesizer("openai:tts-1@ftp://x", settings, "en")
    assert str(raised.value) == ("OpenAI speech model 'tts-1@ftp://x': the base URL after '@' must start with "
                                 "http:// or https://")


def test_without_a_key_or_url_it_says_which_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "POLYGON_OPENAI_API_KEY", "POLYGON_OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(SpeechConfigError) as raised:
        make_recognizer("openai", load_settings(home=tmp_path), language="en")
    assert str(raised.value) == ("OpenAI speech needs an OpenAI API key: set OPENAI_API_KEY "
                                 "(or give a base URL: 'openai:<model>@http://host:port/v1')")


def test_transcription_sends_a_wav_and_reads_word_times(tmp_path: Path, server: FakeSpeechServer) -> None:
    ears = make_recognizer("openai", _settings(tmp_path, server), language="en", model=None)
    assert isinstance(ears, Recognizer) and (ears.name, ears.model) == ("openai", "whisper-1")
    audio = Audio(np.full(8_000 * 4, 0.1, dtype=np.float32), 8_000)  # 4 s on a phone line
    heard = ears.transcribe(audio, "en")
    assert server.behaviour.seen == [{
        "model": ["whisper-1"], "language": ["en"], "response_format": ["verbose_json"],
        "timestamp_granularities[]": ["word"],
        "file": {"filename": "audio.wav", "rate": 16_000, "channels": 1, "width": 2, "frames": 64_000}}]
    assert heard.text == "I want a refund for the double charge."
    assert heard.words == (Word("I", 0, 500), Word("want", 500, 1000), Word("a", 1000, 1500),
                           Word("refund", 1500, 2000), Word("for", 2000, 2500), Word("the", 2500, 3000),
                           Word("double", 3000, 3500), Word("charge", 3500, 4000))


def test_a_model_without_word_times_asks_for_plain_json(tmp_path: Path, server: FakeSpeechServer) -> None:
    ears = make_recognizer("openai", _settings(tmp_path, server), language="ru", model="gpt-4o-transcribe")
    heard = ears.transcribe(Audio(np.zeros(16_000, dtype=np.float32), 16_000), "ru")
    assert (server.behaviour.seen[0]["response_format"], server.behaviour.seen[0]["language"]) == (["json"], ["ru"])
    assert "timestamp_granularities[]" not in server.behaviour.seen[0]
    assert (heard.text, heard.words) == ("I want a refund for the double charge.", ())
    assert ears.transcribe(Audio.silence(0, 16_000), "ru").text == ""
    assert server.requests == 1


def test_failures_are_one_line_without_the_key(tmp_path: Path) -> None:
    behaviour = SpeechBehaviour(fault_for=lambda n: ("401", "400", "500")[n % 3])
    with FakeSpeechServer(behaviour) as server:
        synth = make_synthesizer("openai", _settings(tmp_path, server), "en")
        ears = make_recognizer("openai", _settings(tmp_path, server), language="en")
        with pytest.raises(ProviderFailure) as raised:
            synth.synthesize("Hi.", VoiceProfile(), "en")
        assert str(raised.value) == (f"speech synthesis (gpt-4o-mini-tts) at {server.url}: HTTP 401: "
                                     f"check OPENAI_API_KEY")
        with pytest.raises(ProviderFailure) as raised:
            ears.transcribe(Audio.silence(500, 16_000), "en")
        assert str(raised.value) == (f"speech recognition (whisper-1) at {server.url}: HTTP 400: "
                                     "fake fault 400")
        with pytest.raises(ProviderFailure) as raised:
            synth.synthesize("Hi.", VoiceProfile(), "en")
        assert str(raised.value).endswith("HTTP 500: fake fault 500")
        assert server.requests == 3  # one attempt each (POLYGON_MODEL_MAX_ATTEMPTS=1)


def test_a_server_that_is_down(tmp_path: Path) -> None:
    with FakeSpeechServer() as server:
        url = server.url
    settings = load_settings(home=tmp_path, openai_api_key=KEY, openai_base_url=url, model_max_attempts=1)
    with pytest.raises(ProviderFailure) as raised:
        make_synthesizer("openai", settings, "en").synthesize("Hi.", VoiceProfile(), "en")
    assert str(raised.value) == f"speech synthesis (gpt-4o-mini-tts): cannot connect to {url}: is the server running?"
