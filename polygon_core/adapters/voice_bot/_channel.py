"""The bot's side of a real-time call as it plays: its audio laid on the call's clock, its speech
frames (the VAD's, as they play), and which of them start the bot's next turn after a barge-in.

Times are ms on the call's clock; the caller of these methods gives "now" (no clock here).

The channel keeps no object per message the bot sends (fifty a second per call). Its audio is the
wire's own mu-law bytes, one growing `bytearray` per stretch of contiguous audio (a pause under
`FILL_MS` is filled with mu-law silence, so a bot streaming at line speed is one stretch however
long it talks), with the stretches' first samples in an `array`; its speech frames are an `array`
of start times. Neither a `bytearray` nor the numbers in an `array` are objects the cyclic garbage
collector tracks, so the objects it walks in a full collection do not grow with the call's length
(each kept `(ms, Audio)` pair used to add two per message: with 50 calls a full collection took
hundreds of ms, and every call's frames went late at once; benchmarks/README.md, "Voice calls in
real time"). Reading the audio (a turn's stretch for the recogniser, the call's WAV) decodes the
bytes it needs when it is read.
"""

from __future__ import annotations

import bisect
from array import array
from dataclasses import dataclass, field

import numpy as np

from polygon_core.voice import MULAW_SILENCE, Audio, VoiceActivity, mulaw_decode

from ._turn_taking import STREAM_GAP_MS

__all__ = ["FILL_MS", "BotChannel", "lay"]

# A gap shorter than this between the bot's audio and what it sent before is filled with silence
# (a stream's arrival jitter, a short pause): the stretch goes on. A longer one starts a new stretch,
# so a bot silent for minutes costs no bytes.
FILL_MS = 1000
_SILENCE_BYTE = bytes([MULAW_SILENCE])


def lay(pieces: list[tuple[float, Audio]], rate: int, n: int) -> Audio:
    """`n` samples at `rate` with each (ms, audio) piece laid at its place (overlaps add, clipped)."""
    out = np.zeros(n, dtype=np.float64)
    for at, audio in pieces:
        first = int(at * rate / 1000)
        part = audio.samples[: max(0, n - first)].astype(np.float64)
        out[first:first + len(part)] += part
    return Audio(np.clip(out, -1, 1).astype(np.float32), rate)


def _int_array() -> array[int]:
    return array("q")


@dataclass
class BotChannel:
    """The bot's audio as the caller hears it: it plays from when it arrives, after what is queued.

    `rate`: the samples per second of the bot's mu-law bytes on the call's clock."""

    vad: VoiceActivity
    rate: int
    speech: array[int] = field(default_factory=_int_array)  # start ms of its speech frames, ascending
    play_end: float = 0.0  # when what has arrived has played
    fresh_from: float = 0.0  # the bot's next turn starts at or after this
    _firsts: array[int] = field(default_factory=_int_array)  # each stretch's first sample, ascending
    _stretches: list[bytearray] = field(default_factory=list)  # each stretch's mu-law bytes
    _tail: bool = False  # audio arriving now continues the turn the caller talks over
    _last_arrival: float = float("-inf")

    def play(self, mulaw: bytes, now: float, *, caller_busy: bool) -> None:
        """Mu-law audio arrived at `now`; `caller_busy`: the caller is talking over the bot's turn."""
        audio = mulaw_decode(mulaw, self.rate)  # for the VAD, then dropped
        at = max(now, self.play_end)
        self._track_tail(now, at, caller_busy)
        self._append(int(at * self.rate / 1000), mulaw)
        self.play_end = at + audio.duration_ms
        step = self.vad.frame_ms
        self.speech.extend(int(at + i * step) for i, speech in enumerate(self.vad.speech_frames(audio)) if speech)

    def _append(self, first: int, mulaw: bytes) -> None:
        """Lay `mulaw` from sample `first`: on the last stretch (after silence up to `FILL_MS`), or
        as a new one. Audio plays after what is queued, so `first` is never before the last
        stretch's end but by a rounding of the ms clock: it then follows on directly."""
        if self._stretches:
            last = self._stretches[-1]
            gap = first - (self._firsts[-1] + len(last))
            if gap <= self.rate * FILL_MS // 1000:
                if gap > 0:
                    last += _SILENCE_BYTE * gap
                last += mulaw
                return
        self._firsts.append(first)
        self._stretches.append(bytearray(mulaw))

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
        cut = int(now * self.rate / 1000)
        keep = bisect.bisect_left(self._firsts, cut)  # the stretches begun before `now`
        del self._firsts[keep:], self._stretches[keep:]
        if self._stretches:
            del self._stretches[-1][max(0, cut - self._firsts[-1]):]
        self.play_end = now
        del self.speech[bisect.bisect_left(self.speech, now):]
        return True

    def turn_frames(self, since: float) -> array[int]:
        """The speech frames of the turn waited for: from `since` (the caller's line's end) and,
        after a barge-in, from the bot's next stream on."""
        since = max(since, self.fresh_from)
        return self.speech[bisect.bisect_left(self.speech, since):]

    def quiet_from(self, now: float, since: float) -> float:
        """Since when the bot has been silent at `now` (not before `since`)."""
        played = bisect.bisect_left(self.speech, now)  # the frames started before `now`
        return max(since, self.speech[played - 1] + self.vad.frame_ms) if played else since

    @property
    def end_ms(self) -> float:
        """Where the bot's audio laid so far ends (0 before any)."""
        return (self._firsts[-1] + len(self._stretches[-1])) * 1000 / self.rate if self._stretches else 0.0

    def stretch(self, start: float, end: float) -> Audio:
        """Its audio from `start` to `end` ms (silence where it sent none): only the stretches that
        overlap it are decoded (each turn reads its own, not the whole call again)."""
        return self._samples(int(self.rate * start / 1000), int(self.rate * (end - start) / 1000) + 1)

    def audio(self, n: int) -> Audio:
        """Its first `n` samples (the call's WAV)."""
        return self._samples(0, n)

    def _samples(self, first: int, n: int) -> Audio:
        """`n` samples from sample `first`, decoded from the stretches that overlap them."""
        out = np.zeros(n, dtype=np.float32)
        i = max(0, bisect.bisect_right(self._firsts, first) - 1)  # the stretch holding `first`, if any
        for at, data in zip(self._firsts[i:], self._stretches[i:], strict=True):
            offset = at - first
            if offset >= n:
                break
            lo, hi = max(0, -offset), min(len(data), n - offset)
            if lo < hi:
                out[offset + lo:offset + hi] = mulaw_decode(bytes(memoryview(data)[lo:hi]), self.rate).samples
        return Audio(out, self.rate)
