"""Speech engines for tests that need exact times: a tone per word, ears that look the audio up.

`ToneVoice` says each word as a 300 ms tone and 100 ms of silence (a sentence's end adds the voice's
`sentence_pause_ms`), so a line's length is known to the millisecond; `LookupEars` hears exactly
what `ToneVoice` said when the audio reaches it unchanged (the `clean` preset), through an optional
mishearing map, and nothing otherwise (a cough); `EnergyVad` flags a frame as speech by its energy.
"""

from __future__ import annotations

import hashlib
import re

import numpy as np

from polygon_core.voice import Audio, CallParts, Transcript, VoiceProfile

RATE = 16_000
WORD_MS, GAP_MS = 300, 100


def _key(samples: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(samples, dtype=np.float32).tobytes()).hexdigest()


class ToneVoice:
    """One tone per word (its pitch from the word), a gap after each; a pause between sentences."""

    name, model = "tone", "1"

    def __init__(self, said: dict[str, str]) -> None:
        self.said = said  # audio fingerprint -> text, shared with LookupEars
        self.calls: list[tuple[str, int, int]] = []  # text, words per minute, sentence pause

    def synthesize(self, text: str, voice: VoiceProfile, language: str) -> Audio:
        self.calls.append((text, voice.rate_wpm, voice.sentence_pause_ms))
        parts: list[np.ndarray] = []
        sentences = [s for s in re.split(r"(?<=[.?!])\s+", text.strip()) if s]
        for i, sentence in enumerate(sentences):
            if i:
                parts.append(np.zeros(RATE * voice.sentence_pause_ms // 1000, dtype=np.float32))
            for word in sentence.split():
                hz = 200 + (int(hashlib.sha256(word.encode()).hexdigest(), 16) % 3000)
                t = np.arange(RATE * WORD_MS // 1000) / RATE
                parts.append((0.5 * np.sin(2 * np.pi * hz * t)).astype(np.float32))
                parts.append(np.zeros(RATE * GAP_MS // 1000, dtype=np.float32))
        samples = np.concatenate(parts) if parts else np.zeros(0, dtype=np.float32)
        self.said[_key(samples)] = text
        return Audio(samples, RATE)


class LookupEars:
    """Hears what ToneVoice said (through `mishear`), and nothing in audio it did not make."""

    name, model = "lookup", "1"

    def __init__(self, said: dict[str, str], mishear: dict[str, str] | None = None) -> None:
        self.said, self.mishear = said, mishear or {}

    def transcribe(self, audio: Audio, language: str) -> Transcript:
        text = self.said.get(_key(audio.samples), "")
        return Transcript(self.mishear.get(text, text))


class EnergyVad:
    """Speech where a 20 ms frame's RMS is above 0.01."""

    name, frame_ms = "energy", 20

    def speech_frames(self, audio: Audio) -> list[bool]:
        n = audio.rate * self.frame_ms // 1000
        frames = -(-len(audio.samples) // n)
        return [float(np.sqrt(np.mean(np.square(audio.samples[i * n:(i + 1) * n], dtype=np.float64)))) > 0.01
                for i in range(frames)]


def fake_parts(mishear: dict[str, str] | None = None) -> CallParts:
    """Tone voices for both sides, lookup ears, an energy VAD."""
    said: dict[str, str] = {}
    voice = ToneVoice(said)
    return CallParts(caller_voice=voice, agent_voice=voice, agent_ears=LookupEars(said, mishear), vad=EnergyVad())


def word_ms(words: int) -> int:
    """Where the speech of `words` tone words ends (the last word's gap is silence)."""
    return words * (WORD_MS + GAP_MS) - GAP_MS
