"""The bot's side of a real-time call as it plays: its audio laid on the call's clock, its speech
frames (the VAD's, as they play), and which of them start the bot's next turn after a barge-in.

Times are ms on the call's clock; the caller of these methods gives "now" (no clock here).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from polygon_core.voice import Audio, VoiceActivity

from ._turn_taking import STREAM_GAP_MS

__all__ = ["BotChannel", "lay", "stretch"]


def lay(pieces: list[tuple[float, Audio]], rate: int, n: int) -> Audio:
    """`n` samples at `rate` with each (ms, audio) piece laid at its place (overlaps add, clipped)."""
    out = np.zeros(n, dtype=np.float64)
    for at, audio in pieces:
        first = int(at * rate / 1000)
        part = audio.samples[: max(0, n - first)].astype(np.float64)
        out[first:first + len(part)] += part
    return Audio(np.clip(out, -1, 1).astype(np.float32), rate)


def stretch(pieces: list[tuple[float, Audio]], rate: int, start: float, end: float) -> Audio:
    """The channel from `start` to `end` ms: only the pieces that overlap it are laid (each turn
    reads its own stretch, not the whole call again)."""
    first, n = int(rate * start / 1000), int(rate * (end - start) / 1000) + 1
    out = np.zeros(n, dtype=np.float64)
    for at, audio in pieces:
        offset = int(at * rate / 1000) - first
        lo, hi = max(0, -offset), min(len(audio.samples), n - offset)
        if lo < hi:
            out[offset + lo:offset + hi] += audio.samples[lo:hi]
    return Audio(np.clip(out, -1, 1).astype(np.float32), rate)


@dataclass
class BotChannel:
    """The bot's audio as the caller hears it: it plays from when it arrives, after what is queued."""

    vad: VoiceActivity
    rate: int
    pieces: list[tuple[float, Audio]] = field(default_factory=list)  # (play ms, audio)
    speech: list[int] = field(default_factory=list)  # start ms of its speech frames
    play_end: float = 0.0  # when what has arrived has played
    fresh_from: float = 0.0  # the bot's next turn starts at or after this
    _tail: bool = False  # audio arriving now continues the turn the caller talks over
    _last_arrival: float = float("-inf")

    def play(self, audio: Audio, now: float, *, caller_busy: bool) -> None:
        """Audio arrived at `now`; `caller_busy`: the caller is talking over the bot's turn."""
        at = max(now, self.play_end)
        self._track_tail(now, at, caller_busy)
        self.pieces.append((at, audio))
        self.play_end = at + audio.duration_ms
        step = self.vad.frame_ms
        self.speech += [int(at + i * step) for i, speech in enumerate(self.vad.speech_frames(audio)) if speech]

    def _track_tail(self, arrival: float, at: float, caller_busy: bool) -> None:
        """After a barge-in, audio that arrives while the caller talks, or in a stream that has not
        paused since, is the rest of the turn talked over; the first audio after a pause
        (`STREAM_GAP_MS`) starts the bot's next turn (it plays from `at`)."""
        if self._tail and not (caller_busy or arrival - self._last_arrival < STREAM_GAP_MS):
            self._tail, self.fresh_from = False, float(int(at))  # frames start on whole ms
        self._last_arrival = arrival

    def barged(self) -> None:
        """The caller talks over the bot: what it goes on sending is that turn's, until it pauses."""
        self._tail, self.fresh_from = True, float("inf")

    def clear(self, now: float) -> bool:
        """The bot dropped its unplayed audio at `now`; False when nothing was left to play."""
        if self.play_end <= now:
            return False
        kept: list[tuple[float, Audio]] = []
        for at, audio in self.pieces:
            if at >= now:
                continue
            played = audio if at + audio.duration_ms <= now else \
                Audio(audio.samples[: int((now - at) * self.rate / 1000)], audio.rate)
            kept.append((at, played))
        self.pieces, self.play_end = kept, now
        self.speech = [t for t in self.speech if t < now]
        return True

    def turn_frames(self, since: float) -> list[int]:
        """The speech frames of the turn waited for: from `since` (the caller's line's end) and,
        after a barge-in, from the bot's next stream on."""
        since = max(since, self.fresh_from)
        return [t for t in self.speech if t >= since]

    def quiet_from(self, now: float, since: float) -> float:
        """Since when the bot has been silent at `now` (not before `since`)."""
        played = [t + self.vad.frame_ms for t in self.speech if t < now]
        return max([since, *played[-1:]])

    def stretch(self, start: float, end: float) -> Audio:
        """Its audio from `start` to `end` ms."""
        return stretch(self.pieces, self.rate, start, end)
