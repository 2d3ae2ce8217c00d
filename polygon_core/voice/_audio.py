"""Audio as numpy arrays, and the contracts of the speech parts (synthesis, recognition, VAD).

The engines themselves are adapters (`polygon_core.adapters.speech`), registered by name; this
module only says what they take and give, so the call on its clock stays pure.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from ._voices import VoiceProfile


@dataclass(frozen=True)
class Audio:
    """Mono audio: float32 samples in [-1, 1] at `rate` Hz."""

    samples: NDArray[np.float32]
    rate: int

    @property
    def duration_ms(self) -> int:
        """Length in whole milliseconds."""
        return int(len(self.samples) * 1000 // self.rate)

    @classmethod
    def silence(cls, ms: int, rate: int) -> Audio:
        """`ms` milliseconds of silence."""
        return cls(np.zeros(int(rate * ms // 1000), dtype=np.float32), rate)


@dataclass(frozen=True)
class Word:
    """A recognised word with its times inside the audio it was heard in."""

    text: str
    start_ms: int
    end_ms: int


@dataclass(frozen=True)
class Transcript:
    """What a recogniser heard."""

    text: str
    words: tuple[Word, ...] = field(default_factory=tuple)


@runtime_checkable
class Synthesizer(Protocol):
    """Speech synthesis: text to audio in a voice. Same text and voice, same samples."""

    name: str
    model: str

    def synthesize(self, text: str, voice: VoiceProfile, language: str) -> Audio:
        """Say `text`."""
        ...


@runtime_checkable
class Recognizer(Protocol):
    """Speech recognition: audio to text with word times."""

    name: str
    model: str

    def transcribe(self, audio: Audio, language: str) -> Transcript:
        """Hear `audio`."""
        ...


@runtime_checkable
class VoiceActivity(Protocol):
    """Voice activity detection on fixed frames."""

    name: str
    frame_ms: int

    def speech_frames(self, audio: Audio) -> list[bool]:
        """One flag per `frame_ms` frame of `audio`: speech or not."""
        ...
