"""Voice activity detection with WebRTC's VAD (`webrtcvad`, from the `webrtcvad-wheels` package).

WebRTC's detector reads 16-bit PCM at 8, 16, 32 or 48 kHz in frames of 10, 20 or 30 ms. Audio at
8 or 16 kHz is read as it is; any other rate is resampled to 16 kHz first. The last frame, when
the audio does not fill it, is padded with silence: there is one flag per started frame.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from polygon_core.voice import Audio

from ._extra import SpeechConfigError, import_engine
from ._pcm import resampled, to_pcm16
from ._registry import voice_activity

__all__ = ["WebRtcVad"]

_NATIVE_RATES = (8_000, 16_000)
_FRAMES_MS = (10, 20, 30)


class WebRtcVad:
    """One speech/non-speech flag per `frame_ms` frame; `aggressiveness` 0 (keeps most) to 3
    (filters most non-speech out). Each call starts afresh: the same audio gives the same flags."""

    name = "webrtc"

    def __init__(self, frame_ms: int = 20, aggressiveness: int = 2) -> None:
        if frame_ms not in _FRAMES_MS:
            raise SpeechConfigError(f"WebRTC VAD frame_ms {frame_ms}: expected one of 10, 20 or 30")
        if aggressiveness not in range(4):
            raise SpeechConfigError(f"WebRTC VAD aggressiveness {aggressiveness}: expected 0, 1, 2 or 3")
        self.frame_ms, self.aggressiveness = frame_ms, aggressiveness
        self._webrtcvad: Any = import_engine("webrtcvad")

    def speech_frames(self, audio: Audio) -> list[bool]:
        """Whether each `frame_ms` frame of `audio` holds speech."""
        if audio.rate not in _NATIVE_RATES:
            audio = resampled(audio, 16_000)
        per_frame = audio.rate * self.frame_ms // 1000
        frames = math.ceil(len(audio.samples) / per_frame)
        if len(audio.samples) != frames * per_frame:  # whole frames (a call's 20 ms ones) need no copy
            padded = np.zeros(frames * per_frame, dtype=np.float32)
            padded[: len(audio.samples)] = audio.samples
            audio = Audio(padded, audio.rate)
        pcm = to_pcm16(audio)
        size = per_frame * 2  # bytes: 16-bit samples
        # A new detector per call: WebRTC's adapts its noise model as it reads, so one kept across
        # calls would flag the same audio differently depending on what it heard before.
        vad = self._webrtcvad.Vad(self.aggressiveness)
        return [bool(vad.is_speech(pcm[i * size:(i + 1) * size], audio.rate)) for i in range(frames)]


@voice_activity("webrtc")
def _make(*, frame_ms: int, aggressiveness: int) -> WebRtcVad:
    """WebRTC's VAD from the `voice` extra."""
    return WebRtcVad(frame_ms, aggressiveness)
