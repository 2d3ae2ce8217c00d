"""The caller's audio in real time: frames leave on a steady 20 ms cadence, each on an absolute
deadline (`start + index * period`) on the event loop's clock, so a late wake-up never moves the
frames after it and a 10-minute call ends on time, without drift. Each frame's actual send time is
kept, for the jitter and the late frames to be measured (`cadence`).

The clock and the sleep are parameters: tests drive a sender on a fake clock without sleeping.
"""

from __future__ import annotations

import asyncio
from array import array
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

from polygon_core.voice import FRAME_MS

__all__ = ["FRAME_PERIOD_S", "Cadence", "FrameTimes", "PacedSender", "cadence", "frame_deadline"]

FRAME_PERIOD_S = FRAME_MS / 1000

Clock = Callable[[], float]
Sleep = Callable[[float], Awaitable[object]]


def frame_deadline(start: float, index: int, period_s: float = FRAME_PERIOD_S) -> float:
    """When frame `index` (from 0) is due: computed from the start, never by adding up periods, so
    rounding cannot accumulate either."""
    return start + index * period_s


@dataclass
class FrameTimes:
    """When each frame of one stream was due and when it actually left (clock seconds)."""

    start: float
    period_s: float = FRAME_PERIOD_S
    sent: array[float] = field(default_factory=lambda: array("d"))

    def deadline(self, index: int) -> float:
        """When frame `index` was due."""
        return frame_deadline(self.start, index, self.period_s)

    def lateness_s(self) -> np.ndarray:
        """Each frame's send time minus its deadline (never much below 0: a frame waits for it)."""
        sent = np.frombuffer(self.sent, dtype=np.float64) if len(self.sent) else np.zeros(0)
        return sent - (self.start + np.arange(len(sent)) * self.period_s)

    def late(self) -> int:
        """Frames sent more than one period after their deadline (the next frame was due already)."""
        return int(np.count_nonzero(self.lateness_s() > self.period_s))


@dataclass(frozen=True)
class Cadence:
    """How steadily frames left, over one stream or many (milliseconds): `late` frames were sent more
    than one period after their deadline; lateness is send time minus deadline; jitter is how far
    the gap between consecutive frames of a stream strayed from the period."""

    frames: int
    late: int
    lateness_p50_ms: float
    lateness_p99_ms: float
    lateness_max_ms: float
    jitter_p50_ms: float
    jitter_p99_ms: float


def cadence(streams: Iterable[FrameTimes]) -> Cadence:
    """The cadence of the frames of every stream, pooled (a benchmark's many calls at once)."""
    times = list(streams)
    lateness = np.concatenate([t.lateness_s() for t in times] or [np.zeros(0)]) * 1000
    gaps = [np.abs(np.diff(np.frombuffer(t.sent, dtype=np.float64)) - t.period_s) * 1000
            for t in times if len(t.sent) > 1]
    jitter = np.concatenate(gaps) if gaps else np.zeros(0)

    def pct(values: np.ndarray, q: float) -> float:
        return float(np.percentile(values, q)) if len(values) else 0.0

    return Cadence(frames=len(lateness), late=sum(t.late() for t in times),
                   lateness_p50_ms=pct(lateness, 50), lateness_p99_ms=pct(lateness, 99),
                   lateness_max_ms=float(lateness.max()) if len(lateness) else 0.0,
                   jitter_p50_ms=pct(jitter, 50), jitter_p99_ms=pct(jitter, 99))


class PacedSender:
    """Sends frames through `send` on a steady cadence: frame k waits for `start + k * period` on
    `clock` (the running loop's `loop.time` unless given), then goes. A frame whose deadline has
    passed goes at once and the deadlines do not move: after a stall the next frames catch up
    back-to-back, and the stream keeps its length. The stream is continuous (Twilio's is: silence
    is sent as silence frames), so frame k always plays at k * 20 ms.

    `start`: the first frame's deadline (default: the clock when the first frame is sent).
    """

    def __init__(self, send: Callable[[bytes], Awaitable[object]], *, clock: Clock | None = None,
                 sleep: Sleep = asyncio.sleep, period_s: float = FRAME_PERIOD_S, start: float | None = None) -> None:
        self._send, self._clock, self._sleep = send, clock, sleep
        self.period_s = period_s
        self.times: FrameTimes | None = None if start is None else FrameTimes(start, period_s)

    def now(self) -> float:
        """The sender's clock."""
        if self._clock is None:
            self._clock = asyncio.get_running_loop().time
        return self._clock()

    @property
    def sent(self) -> int:
        """Frames sent so far."""
        return 0 if self.times is None else len(self.times.sent)

    def next_deadline(self) -> float | None:
        """When the next frame is due (None before the first: it goes when sent)."""
        return None if self.times is None else self.times.deadline(len(self.times.sent))

    async def send(self, frame: bytes) -> float:
        """Send `frame` at its deadline; returns when it actually left (the clock after `send`
        returned: a socket that pushes back makes the frame late, and that is measured)."""
        if self.times is None:
            self.times = FrameTimes(self.now(), self.period_s)
        delay = self.times.deadline(len(self.times.sent)) - self.now()
        if delay > 0:
            await self._sleep(delay)
        await self._send(frame)
        sent_at = self.now()
        self.times.sent.append(sent_at)
        return sent_at

    async def send_all(self, frames: Iterable[bytes]) -> None:
        """Send every frame of `frames`, each at its deadline."""
        for frame in frames:
            await self.send(frame)
