"""Signal primitives: G.711 mu-law bit-exact with audioop, SNR exact, resampling lengths, WAV bytes
and the one-line errors of files Polygon cannot use."""

from __future__ import annotations

import io
import math
import struct
import warnings
import wave
from typing import Any

import numpy as np
import pytest

from polygon_core.voice import (
    BURST_KINDS,
    NOISE_COLOURS,
    Audio,
    AudioFormatError,
    NoiseColour,
    burst,
    coloured_noise,
    drop_frames,
    frame_spans,
    low_pass,
    mix_at_snr,
    mulaw_decode,
    mulaw_encode,
    noise_at_snr,
    phone_line,
    read_wav,
    resample,
    snr_db,
    stereo_wav,
    to_pcm16,
)


def _audioop() -> Any:
    # audioop-lts on Python 3.13; the deprecated standard-library module before.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return pytest.importorskip("audioop")


def _tone(hz: float, ms: int, rate: int, amplitude: float = 0.5) -> Audio:
    t = np.arange(rate * ms // 1000) / rate
    return Audio((amplitude * np.sin(2 * np.pi * hz * t)).astype(np.float32), rate)


def _speech_like(rate: int = 16_000) -> Audio:
    """A second of "speech": a tone for 0.6 s, a pause, a tone again, with silence the SNR skips."""
    x = _tone(220, 1000, rate, 0.3).samples.copy()
    x[int(0.6 * rate) : int(0.8 * rate)] = 0.0
    return Audio(x, rate)


def _wav(rate: int = 8000, width: int = 2, channels: int = 1, frames: bytes = b"\x00\x00" * 10) -> bytes:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(channels)
        out.setsampwidth(width)
        out.setframerate(rate)
        out.writeframes(frames)
    return buffer.getvalue()


ALL_PCM16 = np.arange(-32768, 32768, dtype=np.int16)


# --- mu-law -------------------------------------------------------------------------------------

def test_mulaw_encode_is_bit_exact_with_audioop_on_every_16_bit_value() -> None:
    audioop = _audioop()
    audio = Audio(ALL_PCM16.astype(np.float32) / np.float32(32768), 8000)
    assert mulaw_encode(audio) == audioop.lin2ulaw(ALL_PCM16.tobytes(), 2)


def test_mulaw_decode_is_bit_exact_with_audioop_on_every_code() -> None:
    audioop = _audioop()
    codes = bytes(range(256))
    decoded = mulaw_decode(codes)
    assert decoded.rate == 8000
    assert to_pcm16(decoded) == audioop.ulaw2lin(codes, 2)


def test_mulaw_known_codes() -> None:
    # G.711: silence is 0xFF, full scale positive 0x80, full scale negative 0x00.
    audio = Audio(np.array([0.0, 32767 / 32768, -1.0], dtype=np.float32), 8000)
    assert mulaw_encode(audio) == b"\xff\x80\x00"
    assert to_pcm16(mulaw_decode(b"\xff\x80\x00")) == struct.pack("<3h", 0, 32124, -32124)


def test_pcm16_round_trips_every_value() -> None:
    audio = Audio(ALL_PCM16.astype(np.float32) / np.float32(32768), 8000)
    assert to_pcm16(audio) == ALL_PCM16.astype("<i2").tobytes()


def test_phone_line_is_8_khz_and_only_mu_law_levels() -> None:
    line = phone_line(_tone(440, 500, 22_050))
    assert line.rate == 8000 and len(line.samples) == 4000
    levels = set(np.frombuffer(to_pcm16(mulaw_decode(bytes(range(256)))), dtype="<i2").tolist())
    assert set(np.frombuffer(to_pcm16(line), dtype="<i2").tolist()) <= levels


# --- resampling ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("src", "dst", "n", "expected"), [
    (22_050, 8000, 22_050, 8000),
    (22_050, 8000, 1000, 363),  # ceil(1000 * 160 / 441)
    (16_000, 8000, 16_001, 8001),
    (8000, 16_000, 8000, 16_000),
    (44_100, 48_000, 441, 480),
])
def test_resample_lengths(src: int, dst: int, n: int, expected: int) -> None:
    out = resample(Audio(np.zeros(n, dtype=np.float32), src), dst)
    assert (out.rate, len(out.samples), str(out.samples.dtype)) == (dst, expected, "float32")


def test_resample_to_the_same_rate_is_the_audio_itself() -> None:
    audio = _tone(300, 100, 8000)
    assert resample(audio, 8000) is audio


def test_resample_keeps_a_tone_below_the_new_nyquist() -> None:
    out = resample(_tone(440, 1000, 22_050), 8000)
    core = out.samples[400:-400].astype(np.float64)
    assert math.isclose(float(np.sqrt((core**2).mean())), 0.5 / math.sqrt(2), rel_tol=5e-3)  # filter ripple


def test_resample_refuses_a_rate_out_of_range() -> None:
    with pytest.raises(ValueError, match=r"^sample rate 4000 Hz is out of range; expected 8000 to 48000 Hz$"):
        resample(_tone(300, 100, 8000), 4000)


# --- mixing at an SNR ---------------------------------------------------------------------------

@pytest.mark.parametrize("snr", [-5.0, 0.0, 7.5, 20.0])
@pytest.mark.parametrize("colour", NOISE_COLOURS)
def test_mix_at_snr_is_exact_over_the_speech(snr: float, colour: NoiseColour) -> None:
    speech = _speech_like()
    noise = coloured_noise(colour, 300, 16_000, np.random.default_rng(7))  # shorter: looped
    mixed = mix_at_snr(speech, noise, snr)
    assert np.abs(mixed.samples).max() <= 1.0
    # When speech + noise would clip, the whole mix is scaled down to peak 1: the ratio stays.
    raw = speech.samples.astype(np.float64) + noise_at_snr(speech, noise, snr).samples
    gain = 1 / max(1.0, float(np.abs(raw).max()))
    if snr in (-5.0, 20.0):  # both cases are covered: loud noise clips, quiet noise does not
        assert (gain < 1.0) == (snr == -5.0)
    noise_part = mixed.samples.astype(np.float64) - speech.samples.astype(np.float64) * gain
    measured = snr_db(Audio((speech.samples * gain).astype(np.float32), 16_000),
                      Audio(noise_part.astype(np.float32), 16_000))
    assert abs(measured - snr) < 1e-6


def test_noise_at_snr_measures_exactly_and_loops_from_the_offset() -> None:
    speech = _speech_like(8000)
    noise = coloured_noise("pink", 250, 8000, np.random.default_rng(3))
    scaled = noise_at_snr(speech, noise, 12.0, offset=100)
    assert abs(snr_db(speech, scaled) - 12.0) < 1e-6
    assert len(scaled.samples) == 8000
    ratio = scaled.samples[:1900] / noise.samples[100:2000]  # 2000 samples of noise, looped from 100
    assert np.allclose(ratio, ratio[0], rtol=1e-5)
    assert np.allclose(scaled.samples[1900:3900] / noise.samples, ratio[0], rtol=1e-5)


def test_the_snr_ignores_the_pauses() -> None:
    speech = _speech_like()
    padded = Audio(np.concatenate([speech.samples, np.zeros(16_000, dtype=np.float32)]), 16_000)
    noise = coloured_noise("white", 2000, 16_000, np.random.default_rng(1))
    assert abs(snr_db(speech, noise) - snr_db(padded, noise)) < 0.2  # same speech, same noise level


def test_noise_of_another_rate_is_resampled() -> None:
    speech = _speech_like(8000)
    noise = coloured_noise("brown", 500, 22_050, np.random.default_rng(2))
    assert abs(snr_db(speech, noise_at_snr(speech, noise, 5.0)) - 5.0) < 1e-6


def test_silent_speech_has_no_snr() -> None:
    with pytest.raises(ValueError, match=r"^the speech is silent: it has no signal-to-noise ratio$"):
        mix_at_snr(Audio.silence(100, 8000), _tone(300, 100, 8000), 10.0)


# --- noise, filters, drops ----------------------------------------------------------------------

@pytest.mark.parametrize(("colour", "slope"), [("white", 0.0), ("pink", -1.0), ("brown", -2.0)])
def test_coloured_noise_has_its_spectral_slope(colour: str, slope: float) -> None:
    noise = coloured_noise(colour, 4000, 16_000, np.random.default_rng(11))  # type: ignore[arg-type]
    assert len(noise.samples) == 64_000 and math.isclose(float(np.abs(noise.samples).max()), 0.9, rel_tol=1e-6)
    power = np.abs(np.fft.rfft(noise.samples.astype(np.float64))) ** 2
    freqs = np.fft.rfftfreq(64_000, 1 / 16_000)
    band = (freqs >= 50) & (freqs <= 5000)
    fitted = np.polyfit(np.log(freqs[band]), np.log(power[band]), 1)[0]
    assert abs(fitted - slope) < 0.05


def test_coloured_noise_is_seeded() -> None:
    def make(seed: int) -> bytes:
        return to_pcm16(coloured_noise("pink", 500, 8000, np.random.default_rng(seed)))
    assert make(5) == make(5) and make(5) != make(6)


def test_low_pass_muffles_high_frequencies_and_keeps_low_ones() -> None:
    def level(audio: Audio) -> float:
        return float(np.sqrt((audio.samples[2000:].astype(np.float64) ** 2).mean()))
    high, low = _tone(3000, 1000, 8000), _tone(200, 1000, 8000)
    assert 20 * math.log10(level(low_pass(high, 500)) / level(high)) < -40.0
    assert abs(20 * math.log10(level(low_pass(low, 500)) / level(low))) < 0.1


def test_low_pass_refuses_a_cutoff_above_nyquist() -> None:
    with pytest.raises(ValueError, match=r"^cutoff 5000 Hz must be between 0 and half the rate \(4000 Hz\)$"):
        low_pass(_tone(300, 100, 8000), 5000)


def test_frame_spans_cover_whole_20_ms_frames() -> None:
    assert frame_spans([(30, 45)]) == [(20, 60)]
    assert frame_spans([(0, 20), (20, 21), (100, 100), (200, 240)]) == [(0, 40), (200, 240)]


def test_drop_frames_zeroes_the_touched_frames_only() -> None:
    audio = Audio(np.full(8000, 0.25, dtype=np.float32), 8000)
    dropped = drop_frames(audio, [(30, 45), (990, 1000)])
    zero = np.flatnonzero(dropped.samples == 0.0)
    assert zero.tolist() == list(range(160, 480)) + list(range(7840, 8000))
    assert np.all(audio.samples == 0.25)  # the input is untouched


# --- event sounds -------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", BURST_KINDS)
def test_bursts_are_seeded_loud_and_of_their_length(kind: str) -> None:
    def make(seed: int) -> Audio:
        return burst(kind, 400, 8000, np.random.default_rng(seed))  # type: ignore[arg-type]
    sound = make(1)
    assert len(sound.samples) == 3200 and math.isclose(float(np.abs(sound.samples).max()), 0.9, rel_tol=1e-6)
    assert to_pcm16(make(1)) == to_pcm16(sound) and to_pcm16(make(2)) != to_pcm16(sound)


def test_a_cough_is_in_the_speech_band() -> None:
    cough = burst("cough", 500, 16_000, np.random.default_rng(4)).samples.astype(np.float64)
    power = np.abs(np.fft.rfft(cough)) ** 2
    freqs = np.fft.rfftfreq(len(cough), 1 / 16_000)
    assert power[(freqs >= 100) & (freqs <= 3400)].sum() / power.sum() > 0.9


def test_an_unknown_burst_is_refused() -> None:
    with pytest.raises(ValueError, match=r"^unknown burst kind 'siren'; expected one of horn, door, clatter"):
        burst("siren", 100, 8000, np.random.default_rng(0))  # type: ignore[arg-type]


# --- WAV ----------------------------------------------------------------------------------------

def test_stereo_wav_header_and_length() -> None:
    left = Audio(np.array([0.5, -0.5, 0.25], dtype=np.float32), 8000)
    right = Audio(np.array([0.125], dtype=np.float32), 8000)
    data = stereo_wav(left, right)
    assert len(data) == 44 + 3 * 4
    assert data[:4] == b"RIFF" and struct.unpack("<I", data[4:8])[0] == len(data) - 8 and data[8:16] == b"WAVEfmt "
    # fmt: PCM, 2 channels, 8000 Hz, 32000 bytes/s, 4 bytes a frame, 16 bits.
    assert struct.unpack("<IHHIIHH", data[16:36]) == (16, 1, 2, 8000, 32_000, 4, 16)
    assert data[36:40] == b"data" and struct.unpack("<I", data[40:44])[0] == 12
    assert struct.unpack("<6h", data[44:]) == (16384, 4096, -16384, 0, 8192, 0)


def test_stereo_wav_needs_one_rate() -> None:
    with pytest.raises(ValueError, match=r"^stereo channels differ in rate: 8000 Hz and 16000 Hz$"):
        stereo_wav(Audio.silence(10, 8000), Audio.silence(10, 16_000))


def test_read_wav_mixes_channels_to_mono() -> None:
    frames = struct.pack("<4h", 1000, 3000, -2000, 0)
    audio = read_wav(_wav(rate=16_000, channels=2, frames=frames), "room.wav")
    assert audio.rate == 16_000 and audio.samples.tolist() == [2000 / 32768, -1000 / 32768]


def test_read_wav_reads_8_bit_unsigned() -> None:
    audio = read_wav(_wav(width=1, frames=bytes([0, 128, 255])), "old.wav")
    assert audio.samples.tolist() == [-1.0, 0.0, 127 / 128]


def test_read_wav_round_trips_a_stereo_wav() -> None:
    left = _tone(300, 100, 11_025)
    audio = read_wav(stereo_wav(left, left), "call.wav")
    assert audio.rate == 11_025 and to_pcm16(audio) == to_pcm16(left)


@pytest.mark.parametrize(("data", "message"), [
    (b"street noise, recorded on Tuesday\n", "noise.wav is not a WAV file (RIFF/WAVE expected)"),
    (b"RIFF\x24\x00", "noise.wav is not a WAV file (RIFF/WAVE expected)"),
    (_wav()[:20], "noise.wav is a truncated WAV file (it ends inside a chunk header); expected 8- or 16-bit PCM"),
    (_wav()[:36], "noise.wav is a damaged WAV file (fmt chunk and/or data chunk missing); "
                  "expected 8- or 16-bit PCM"),
    (_wav(width=3, frames=b"\x00" * 30), "noise.wav has 24-bit samples; expected 8- or 16-bit PCM"),
    (_wav(width=4, frames=b"\x00" * 40), "noise.wav has 32-bit samples; expected 8- or 16-bit PCM"),
    (_wav(rate=4000), "noise.wav is sampled at 4000 Hz; the line needs 8000 Hz or more"),
    (_wav(rate=96_000), "noise.wav is sampled at 96000 Hz; the line takes at most 48000 Hz"),
    (_wav(frames=b""), "noise.wav has no audio samples; expected a WAV file with sound"),
    (b"RIFF" + struct.pack("<I", 36) + b"WAVEfmt " + struct.pack("<IHHIIHH", 16, 3, 1, 8000, 32_000, 4, 32)
     + b"data" + struct.pack("<I", 0), "noise.wav is not PCM audio (WAV unknown format: 3); expected 8- or 16-bit PCM"),
])
def test_read_wav_errors_are_one_line_and_name_the_file(data: bytes, message: str) -> None:
    with pytest.raises(AudioFormatError) as raised:
        read_wav(data, "noise.wav")
    assert str(raised.value) == message
    assert isinstance(raised.value, ValueError)
