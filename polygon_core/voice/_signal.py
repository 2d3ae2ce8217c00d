"""Signal work on `Audio`: resampling, the G.711 mu-law codec, mixing at a signal-to-noise ratio,
coloured noise, muffling, frame drops, synthetic event sounds and 16-bit WAV bytes.

Pure (numpy/scipy, no I/O): WAV files are bytes in and bytes out; the caller reads and writes them.
scipy.signal is imported where it is used, so that importing `polygon_core.voice` costs a text run
nothing (tests/test_lazy_imports.py).

Conventions. Samples are float32 in [-1, 1]; a 16-bit sample `k` is the float `k / 32768`, so
16-bit PCM survives a round trip through `Audio` unchanged. Supported rates: 8,000 to 48,000 Hz.
"""

from __future__ import annotations

import io
import math
import wave
from collections.abc import Sequence
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from ._audio import Audio

MIN_RATE = 8_000
MAX_RATE = 48_000
FRAME_MS = 20  # a telephony packet (RTP / Twilio media frame): what a frame drop loses
PHONE_RATE = 8_000

NoiseColour = Literal["white", "pink", "brown"]
BurstKind = Literal["horn", "door", "clatter", "cough", "keyboard"]
NOISE_COLOURS: tuple[NoiseColour, ...] = ("white", "pink", "brown")
BURST_KINDS: tuple[BurstKind, ...] = ("horn", "door", "clatter", "cough", "keyboard")

_PCM_SCALE = 32768.0
# G.711 mu-law (ITU-T G.711, as audioop's lin2ulaw/ulaw2lin): on 14-bit magnitudes.
_ULAW_BIAS = 0x84
_ULAW_CLIP = 8159
_ULAW_SEGMENT_ENDS = np.array([0x3F, 0x7F, 0xFF, 0x1FF, 0x3FF, 0x7FF, 0xFFF, 0x1FFF], dtype=np.int32)
# Frames quieter than this below the loudest frame are pauses, not speech (for the SNR).
_ACTIVE_FLOOR_DB = -40.0
_PEAK = 0.9  # synthetic sounds are normalised to this peak: loud, never clipped


class AudioFormatError(ValueError):
    """A WAV file Polygon cannot use; the message names the file and what was expected."""


def _audio(samples: NDArray[np.floating], rate: int) -> Audio:
    return Audio(np.clip(samples, -1.0, 1.0).astype(np.float32), rate)


def _check_rate(rate: int) -> None:
    if not MIN_RATE <= rate <= MAX_RATE:
        raise ValueError(f"sample rate {rate} Hz is out of range; expected {MIN_RATE} to {MAX_RATE} Hz")


# --- resampling and the telephone codec ---------------------------------------------------------

def resample(audio: Audio, rate: int) -> Audio:
    """`audio` at `rate` Hz (polyphase filtering with the exact ratio of the two rates).

    The result has `ceil(len * rate / audio.rate)` samples; the same rate returns `audio` itself.
    """
    _check_rate(rate)
    if rate == audio.rate:
        return audio
    from scipy.signal import resample_poly

    g = math.gcd(rate, audio.rate)
    out = resample_poly(audio.samples.astype(np.float64), rate // g, audio.rate // g)
    return _audio(out, rate)


def _pcm16(samples: NDArray[np.float32]) -> NDArray[np.int16]:
    scaled = np.rint(samples.astype(np.float64) * _PCM_SCALE)
    return np.clip(scaled, -32768, 32767).astype(np.int16)


def _ulaw_from_pcm16(pcm: NDArray[np.int16]) -> NDArray[np.uint8]:
    """G.711 mu-law bytes of 16-bit samples, bit-exact with audioop.lin2ulaw(…, 2)."""
    value = pcm.astype(np.int32) >> 2  # the 14-bit sample G.711 codes
    mask = np.where(value < 0, 0x7F, 0xFF)
    magnitude = np.minimum(np.abs(value), _ULAW_CLIP) + (_ULAW_BIAS >> 2)
    segment = np.searchsorted(_ULAW_SEGMENT_ENDS, magnitude, side="left")
    code = (segment << 4) | ((magnitude >> (segment + 1)) & 0xF)
    code = np.where(segment >= 8, 0x7F, code)  # beyond the last segment: the largest code
    return (code ^ mask).astype(np.uint8)


def _pcm16_from_ulaw(codes: NDArray[np.uint8]) -> NDArray[np.int16]:
    """16-bit samples of G.711 mu-law bytes, bit-exact with audioop.ulaw2lin(…, 2)."""
    u = (~codes.astype(np.int32)) & 0xFF
    t = (((u & 0x0F) << 3) + _ULAW_BIAS) << ((u & 0x70) >> 4)
    return np.where(u & 0x80, _ULAW_BIAS - t, t - _ULAW_BIAS).astype(np.int16)


def mulaw_encode(audio: Audio) -> bytes:
    """G.711 mu-law, one byte per sample, at the audio's own rate (resample to 8 kHz first for a phone)."""
    return _ulaw_from_pcm16(_pcm16(audio.samples)).tobytes()


# Each of the 256 mu-law codes decoded once (the formula above, so bit-exact with it): a call
# decodes every 20 ms frame the bot sends, 160 bytes at a time, where one table lookup costs a
# fraction of the formula's seven array operations.
_ULAW_SAMPLES = _pcm16_from_ulaw(np.arange(256, dtype=np.uint8)).astype(np.float32) / np.float32(_PCM_SCALE)
_ULAW_SAMPLES.flags.writeable = False


def mulaw_decode(data: bytes, rate: int = PHONE_RATE) -> Audio:
    """Audio from G.711 mu-law bytes sampled at `rate`."""
    return Audio(_ULAW_SAMPLES[np.frombuffer(data, dtype=np.uint8)], rate)


def phone_line(audio: Audio) -> Audio:
    """What a telephone line passes: `audio` at 8 kHz through the G.711 mu-law codec and back."""
    return mulaw_decode(mulaw_encode(resample(audio, PHONE_RATE)), PHONE_RATE)


# --- mixing -------------------------------------------------------------------------------------

def active_mask(audio: Audio, frame_ms: int = FRAME_MS) -> NDArray[np.bool_]:
    """One flag per sample: inside a `frame_ms` frame within 40 dB of the loudest frame (speech, not pause).

    All False when the audio is silent.
    """
    x = audio.samples.astype(np.float64)
    size = max(1, audio.rate * frame_ms // 1000)
    frames = -(-len(x) // size)
    padded = np.zeros(frames * size)
    padded[: len(x)] = x
    power = (padded.reshape(frames, size) ** 2).mean(axis=1)
    loudest = power.max(initial=0.0)
    if loudest == 0.0:
        return np.zeros(len(x), dtype=bool)
    active = power >= loudest * 10 ** (_ACTIVE_FLOOR_DB / 10)
    return np.repeat(active, size)[: len(x)]


def fit_length(audio: Audio, samples: int, offset: int = 0) -> Audio:
    """`audio` looped (from sample `offset`) or cut to exactly `samples` samples."""
    if len(audio.samples) == 0:
        raise ValueError("cannot loop empty audio")
    index = (np.arange(samples) + offset) % len(audio.samples)
    return Audio(audio.samples[index], audio.rate)


def snr_db(speech: Audio, noise: Audio) -> float:
    """The speech/noise power ratio in dB over the speech's active part (`active_mask`)."""
    mask = active_mask(speech)
    if not mask.any():
        raise ValueError("the speech is silent: it has no signal-to-noise ratio")
    s = speech.samples.astype(np.float64)[mask]
    n = noise.samples.astype(np.float64)[: len(mask)][mask[: len(noise.samples)]]
    return float(10 * np.log10((s**2).mean() / (n**2).mean()))


def noise_at_snr(speech: Audio, noise: Audio, snr: float, offset: int = 0) -> Audio:
    """`noise` (resampled, looped from `offset` or cut to the speech's length) scaled so that
    `snr_db(speech, result) == snr`."""
    if noise.rate != speech.rate:
        noise = resample(noise, speech.rate)
    noise = fit_length(noise, len(speech.samples), offset)
    mask = active_mask(speech)
    if not mask.any():
        raise ValueError("the speech is silent: it has no signal-to-noise ratio")
    n = noise.samples.astype(np.float64)
    speech_power = float((speech.samples.astype(np.float64)[mask] ** 2).mean())
    noise_power = float((n[mask] ** 2).mean())
    if noise_power == 0.0:
        raise ValueError("the noise is silent over the speech: it cannot be scaled to an SNR")
    gain = math.sqrt(speech_power / (noise_power * 10 ** (snr / 10)))
    return Audio((n * gain).astype(np.float32), speech.rate)


def mix_at_snr(speech: Audio, noise: Audio, snr_db: float, offset: int = 0) -> Audio:
    """Speech with background `noise` at `snr_db` dB over the speech's active part.

    The noise is resampled to the speech's rate and looped (from sample `offset`) or cut to its
    length. When the sum would clip, the whole mix is scaled down, which keeps the ratio.
    """
    scaled = noise_at_snr(speech, noise, snr_db, offset)
    return add(speech, scaled)


def add(base: Audio, other: Audio, at: int = 0) -> Audio:
    """`other` added into `base` from sample `at` (cut at `base`'s end); scaled down if it would clip."""
    if other.rate != base.rate:
        raise ValueError(f"cannot add {other.rate} Hz audio to {base.rate} Hz audio")
    out = base.samples.astype(np.float64)
    part = other.samples[: max(0, len(out) - at)].astype(np.float64)
    out[at : at + len(part)] += part
    peak = float(np.abs(out).max(initial=0.0))
    if peak > 1.0:
        out /= peak
    return _audio(out, base.rate)


# --- noise, filters, losses ---------------------------------------------------------------------

def _normalised(x: NDArray[np.float64], rate: int) -> Audio:
    peak = float(np.abs(x).max(initial=0.0))
    return _audio(x * (_PEAK / peak) if peak > 0 else x, rate)


def coloured_noise(kind: NoiseColour, ms: int, rate: int, rng: np.random.Generator) -> Audio:
    """`ms` of white, pink (1/f power) or brown (1/f² power) noise, peak 0.9, shaped in the frequency domain."""
    exponent = {"white": 0.0, "pink": 0.5, "brown": 1.0}[kind]  # of the amplitude spectrum
    n = rate * ms // 1000
    if n == 0:
        return Audio(np.zeros(0, dtype=np.float32), rate)
    spectrum = np.fft.rfft(rng.standard_normal(n))
    freqs = np.fft.rfftfreq(n, 1 / rate)
    shape = np.ones_like(freqs)
    shape[1:] = freqs[1:] ** -exponent
    if exponent:
        shape[0] = 0.0  # no DC: a constant offset is not a sound
    return _normalised(np.fft.irfft(spectrum * shape, n), rate)


def low_pass(audio: Audio, cutoff_hz: float) -> Audio:
    """`audio` through a 4th-order Butterworth low-pass at `cutoff_hz` (a hand over the phone, muffling)."""
    if not 0 < cutoff_hz < audio.rate / 2:
        raise ValueError(f"cutoff {cutoff_hz} Hz must be between 0 and half the rate ({audio.rate / 2:g} Hz)")
    from scipy.signal import butter, sosfilt

    sos = butter(4, cutoff_hz, btype="lowpass", fs=audio.rate, output="sos")
    return _audio(sosfilt(sos, audio.samples.astype(np.float64)), audio.rate)


def frame_spans(spans_ms: Sequence[tuple[int, int]], frame_ms: int = FRAME_MS) -> list[tuple[int, int]]:
    """The `frame_ms` frames (as ms spans, merged) that the spans touch: what a packet loss takes."""
    frames = sorted({k for start, end in spans_ms if end > start
                     for k in range(start // frame_ms, -(-end // frame_ms))})
    merged: list[tuple[int, int]] = []
    for k in frames:
        if merged and merged[-1][1] == k * frame_ms:
            merged[-1] = (merged[-1][0], (k + 1) * frame_ms)
        else:
            merged.append((k * frame_ms, (k + 1) * frame_ms))
    return merged


def drop_frames(audio: Audio, spans_ms: Sequence[tuple[int, int]]) -> Audio:
    """`audio` with every 20 ms frame that a (start_ms, end_ms) span touches zeroed (packet loss)."""
    out = audio.samples.copy()
    for start, end in frame_spans(spans_ms):
        out[audio.rate * start // 1000 : audio.rate * end // 1000] = 0.0
    return Audio(out, audio.rate)


# --- event sounds -------------------------------------------------------------------------------

def _envelope(n: int, attack: int, decay_per_sample: float) -> NDArray[np.float64]:
    rise = np.minimum(np.arange(n) / max(1, attack), 1.0)
    return rise * np.exp(-decay_per_sample * np.maximum(np.arange(n) - attack, 0))


def _band(x: NDArray[np.float64], low: float, high: float, rate: int) -> NDArray[np.float64]:
    from scipy.signal import butter, sosfilt

    high = min(high, rate / 2 * 0.95)
    sos = butter(2, (low, high), btype="bandpass", fs=rate, output="sos")
    return np.asarray(sosfilt(sos, x), dtype=np.float64)


def _horn(n: int, rate: int, rng: np.random.Generator) -> NDArray[np.float64]:
    # A car horn: two detuned tones with harmonics, a flat sustain and short ramps.
    t = np.arange(n) / rate
    base = rng.uniform(380, 460)
    tone = sum(np.sin(2 * np.pi * f * h * t) / h for f in (base, base * 1.26) for h in (1, 2, 3))
    ramp = max(1, rate // 50)
    edge = np.minimum(1.0, np.minimum(np.arange(n), np.arange(n)[::-1]) / ramp)
    return np.asarray(tone, dtype=np.float64) * edge


def _door(n: int, rate: int, rng: np.random.Generator) -> NDArray[np.float64]:
    # A slam: a low thud and a crack of noise, both dying away fast.
    t = np.arange(n) / rate
    decay = 1 / (0.06 * rate)
    thud = np.sin(2 * np.pi * rng.uniform(60, 90) * t) * _envelope(n, rate // 500, decay)
    crack = _band(rng.standard_normal(n), 200, 2500, rate) * _envelope(n, 1, decay * 3)
    return thud + 0.5 * crack


def _hits(n: int, rate: int, rng: np.random.Generator, per_second: float, length_ms: int,
          band: tuple[float, float]) -> NDArray[np.float64]:
    """Short knocks of band-passed noise at random times (clatter, keys)."""
    out = np.zeros(n)
    count = max(1, round(per_second * n / rate))
    size = max(2, rate * length_ms // 1000)
    for start in np.sort(rng.integers(0, max(1, n - size), count)):
        hit = rng.standard_normal(size) * _envelope(size, 1, 5 / size) * rng.uniform(0.4, 1.0)
        out[start : start + size] += hit[: n - start]
    return _band(out, band[0], band[1], rate)


def _cough(n: int, rate: int, rng: np.random.Generator) -> NDArray[np.float64]:
    # One to three voiced, breathy bursts in the speech band: a recogniser and a VAD take it for the
    # caller's voice, which is what makes it a vocal tic.
    t = np.arange(n) / rate
    voice = sum(np.sin(2 * np.pi * rng.uniform(110, 180) * h * t) / h for h in (1, 2, 3, 4))
    breath = _band(rng.standard_normal(n), 300, 3000, rate)
    out = np.zeros(n)
    parts = int(rng.integers(1, 4))
    size = n // parts
    for k in range(parts):
        env = _envelope(size, max(1, rate // 200), 1 / (0.05 * rate))
        out[k * size : (k + 1) * size] = env
    return (0.6 * breath + 0.4 * np.asarray(voice, dtype=np.float64)) * out


def burst(kind: BurstKind, ms: int, rate: int, rng: np.random.Generator) -> Audio:
    """`ms` of a synthetic event sound (peak 0.9): a car horn, a door slam, clattering dishes, a
    cough (usable as the caller's vocal tic) or typing on a keyboard."""
    n = rate * ms // 1000
    if n == 0:
        return Audio(np.zeros(0, dtype=np.float32), rate)
    if kind == "horn":
        x = _horn(n, rate, rng)
    elif kind == "door":
        x = _door(n, rate, rng)
    elif kind == "clatter":
        x = _hits(n, rate, rng, per_second=14, length_ms=25, band=(1500, 6000))
    elif kind == "cough":
        x = _cough(n, rate, rng)
    elif kind == "keyboard":
        x = _hits(n, rate, rng, per_second=8, length_ms=8, band=(1000, 5000))
    else:
        raise ValueError(f"unknown burst kind {kind!r}; expected one of {', '.join(BURST_KINDS)}")
    return _normalised(x, rate)


# --- WAV bytes ----------------------------------------------------------------------------------

def to_pcm16(audio: Audio) -> bytes:
    """16-bit little-endian PCM of the samples (clipped to [-1, 1))."""
    return _pcm16(audio.samples).astype("<i2").tobytes()


def stereo_wav(left: Audio, right: Audio) -> bytes:
    """A 16-bit stereo WAV (left, right), the shorter channel padded with silence; same rate required."""
    if left.rate != right.rate:
        raise ValueError(f"stereo channels differ in rate: {left.rate} Hz and {right.rate} Hz")
    n = max(len(left.samples), len(right.samples))
    frames = np.zeros((n, 2), dtype=np.int16)
    frames[: len(left.samples), 0] = _pcm16(left.samples)
    frames[: len(right.samples), 1] = _pcm16(right.samples)
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(2)
        out.setsampwidth(2)
        out.setframerate(left.rate)
        out.writeframes(frames.astype("<i2").tobytes())
    return buffer.getvalue()


def _read_frames(data: bytes, name: str) -> tuple[bytes, int, int, int]:
    """(frames, channels, sample width, rate) of a WAV file, or a one-line AudioFormatError."""
    if len(data) < 12 or data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        raise AudioFormatError(f"{name} is not a WAV file (RIFF/WAVE expected)")
    try:
        with wave.open(io.BytesIO(data), "rb") as wav:
            params = wav.getparams()
            frames = wav.readframes(params.nframes)
    except wave.Error as e:
        reason = str(e)
        if reason.startswith("unknown format"):
            raise AudioFormatError(f"{name} is not PCM audio (WAV {reason}); expected 8- or 16-bit PCM") from None
        raise AudioFormatError(f"{name} is a damaged WAV file ({reason}); expected 8- or 16-bit PCM") from None
    except EOFError:
        raise AudioFormatError(f"{name} is a truncated WAV file (it ends inside a chunk header); "
                               "expected 8- or 16-bit PCM") from None
    return frames, params.nchannels, params.sampwidth, params.framerate


def read_wav(data: bytes, name: str) -> Audio:
    """The audio of a WAV file's bytes, mixed to mono. `name` (the file) is what errors name.

    Raises AudioFormatError for anything but 8- or 16-bit PCM at 8,000 to 48,000 Hz with samples.
    """
    frames, channels, width, rate = _read_frames(data, name)
    if width not in (1, 2):
        raise AudioFormatError(f"{name} has {8 * width}-bit samples; expected 8- or 16-bit PCM")
    if rate < MIN_RATE:
        raise AudioFormatError(f"{name} is sampled at {rate} Hz; the line needs {MIN_RATE} Hz or more")
    if rate > MAX_RATE:
        raise AudioFormatError(f"{name} is sampled at {rate} Hz; the line takes at most {MAX_RATE} Hz")
    usable = len(frames) // (width * channels) * width * channels  # a truncated last frame is dropped
    if width == 1:  # 8-bit WAV is unsigned
        x = (np.frombuffer(frames[:usable], dtype=np.uint8).astype(np.float64) - 128) / 128
    else:
        x = np.frombuffer(frames[:usable], dtype="<i2").astype(np.float64) / _PCM_SCALE
    if len(x) == 0:
        raise AudioFormatError(f"{name} has no audio samples; expected a WAV file with sound")
    return _audio(x.reshape(-1, channels).mean(axis=1), rate)
