"""The bot's channel on a real-time call (`BotChannel`, kept by `BotCall`): its audio laid where it
played, read back for a turn's recognition and the call's WAV, cut by `clear`, and the bound that
keeps 50 calls' garbage collections short: the objects the cyclic collector tracks that a channel
(and a whole `BotCall`) holds do not grow with how long the bot has talked.
"""

from __future__ import annotations

import asyncio
import contextvars
import gc
import sys
import types
from collections.abc import AsyncIterator, Iterable, Mapping

import numpy as np
import pytest

from polygon.usecases import _call_line
from polygon_core.adapters.voice_bot import BotCall
from polygon_core.adapters.voice_bot._channel import FILL_MS, BotChannel, lay
from polygon_core.models import LineConditions
from polygon_core.voice import Audio, BotAudio, BotEvent, CallStart, mulaw_decode, mulaw_encode

from ._fakes import EnergyVad, fake_parts

RATE = 8000


def _mulaw(ms: float, hz: float = 0.0, seed: int = 0) -> bytes:
    """`ms` of a tone (`hz`) over a little noise, as mu-law: no two pieces decode alike."""
    t = np.arange(int(RATE * ms / 1000)) / RATE
    noise = np.random.default_rng(seed).normal(0, 0.002, len(t))
    return mulaw_encode(Audio((0.4 * np.sin(2 * np.pi * hz * t) + noise).astype(np.float32), RATE))


def test_the_audio_plays_where_it_arrived_after_what_was_queued() -> None:
    channel = BotChannel(EnergyVad(), RATE)
    # (arrives at ms, length ms): the second arrives while the first plays, so it plays at 500; the
    # third after a pause longer than FILL_MS; the fourth after a shorter one; the last is 12.5 ms.
    arrivals = [(0.0, 500), (100.0, 300), (2000.0, 1000), (3500.0, 40), (5000.0, 12.5)]
    played = [0.0, 500.0, 2000.0, 3500.0, 5000.0]
    assert 3500 - 3000 < FILL_MS < 2000 - 800
    pieces = []
    for k, ((now, ms), at) in enumerate(zip(arrivals, played, strict=True)):
        data = _mulaw(ms, 300 + 100 * k, k)
        channel.play(data, now, caller_busy=False)
        pieces.append((at, mulaw_decode(data, RATE)))
    assert channel.play_end == 5000 + 12  # Audio.duration_ms counts whole ms
    assert channel.end_ms == 5000 + 12.5
    n = int(channel.end_ms * RATE / 1000) + 40
    whole = channel.audio(n).samples
    assert np.array_equal(whole, lay(pieces, RATE, n).samples)  # the same samples, each where it played
    for start, end in ((0.0, 5012.0), (450.0, 2500.0), (2100.0, 2200.0), (3000.0, 3600.0), (5010.0, 6000.0)):
        part = channel.stretch(start, end).samples
        first = int(RATE * start / 1000)
        assert len(part) == int(RATE * (end - start) / 1000) + 1
        expected = np.zeros(len(part), dtype=np.float32)
        expected[: max(0, min(len(part), n - first))] = whole[first:first + len(part)]
        assert np.array_equal(part, expected)
    # The speech frames are the VAD's on each piece as it played (tones, all of them speech).
    assert list(channel.speech) == [*range(0, 800, 20), *range(2000, 3000, 20), 3500, 3520, 5000]


def test_clear_drops_what_has_not_played() -> None:
    channel = BotChannel(EnergyVad(), RATE)
    channel.play(_mulaw(1000, 440), 0.0, caller_busy=False)
    channel.play(_mulaw(1000, 660, 1), 1500.0, caller_busy=False)  # 1.5-2.5 s, after 0.5 s of silence
    before = channel.audio(20_000).samples.copy()
    assert channel.clear(1700.5) and channel.play_end == 1700.5
    assert not channel.clear(1800.0)  # nothing left to play
    after = channel.audio(20_000).samples
    cut = int(1700.5 * RATE / 1000)
    assert np.array_equal(after[:cut], before[:cut]) and not after[cut:].any()
    assert channel.speech[-1] == 1700 and channel.end_ms == cut * 1000 / RATE
    # What the bot sends next plays from when it arrives.
    channel.play(_mulaw(100, 880, 2), 1750.0, caller_busy=False)
    assert channel.play_end == 1850.0 and list(channel.speech[-5:]) == [1750, 1770, 1790, 1810, 1830]
    assert np.array_equal(channel.stretch(1750.0, 1849.875).samples, mulaw_decode(_mulaw(100, 880, 2), RATE).samples)


def _held(root: object, shared: Iterable[object]) -> int:
    """The objects the cyclic garbage collector tracks reachable from `root`, not counting what
    the call shares with the process (`shared`, the event loop, contexts, types, modules, code)."""
    skip = {id(o) for o in shared}
    seen: set[int] = set()
    stack, count = [root], 0
    while stack:
        obj = stack.pop()
        if id(obj) in seen or id(obj) in skip or isinstance(obj, (
                type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.CodeType,
                asyncio.AbstractEventLoop, contextvars.Context)):
            continue
        seen.add(id(obj))
        count += gc.is_tracked(obj)
        stack.extend(gc.get_referents(obj))
    return count


def _talk(channel: BotChannel, seconds: int) -> None:
    """The bot talks for `seconds` in 20 ms messages arriving with a few ms of jitter: 1 s of tone, 0.6 s of
    silence, over and over, and every 10 s a 2 s pause (a new stretch)."""
    silence, tone = bytes([0xFF]) * 160, _mulaw(20, 500)
    now = 0.0
    for k in range(seconds * 50):
        if k and k % 500 == 0:
            now += 2000
        jitter = (k * 7919 % 11) - 5  # -5 .. 5 ms, fixed
        channel.play(tone if k % 80 < 50 else silence, now + jitter, caller_busy=False)
        now += 20


def test_a_channel_holds_as_many_tracked_objects_after_ten_minutes_as_after_two_seconds() -> None:
    counts = {}
    for seconds in (2, 60, 600):
        channel = BotChannel(EnergyVad(), RATE)
        _talk(channel, seconds)
        counts[seconds] = _held(channel, [channel.vad])
        assert len(channel.speech) == sum(k % 80 < 50 for k in range(seconds * 50))  # every tone frame
    # The channel, its frame-time and stretch-start arrays, the list of stretches: 4, however long
    # the bot talked (its audio is bytes in bytearrays, its frame times numbers in an array, none
    # of them tracked). One (ms, Audio) pair a message used to add 2 a message: 60,000 in ten minutes.
    assert counts == {2: 4, 60: 4, 600: 4}


class _FeedTransport:
    """A line whose bot sends `seconds` of 20 ms media messages at once, then hangs up."""

    name = "feed"

    def __init__(self, seconds: int) -> None:
        self.seconds, self.received, self.last_received_at, self.closed = seconds, 0, None, None
        self.frames_out = 0

    async def connect(self, url: str, start: CallStart, *, headers: Mapping[str, str] | None = None) -> None:
        return None

    async def send_audio(self, frame: bytes) -> None:
        self.frames_out += 1

    async def send_mark(self, name: str) -> None:
        return None

    async def receive(self, timeout: float | None = None) -> BotEvent | None:
        raise NotImplementedError

    async def events(self) -> AsyncIterator[BotEvent]:
        tone, silence = _mulaw(20, 500), bytes([0xFF]) * 160
        for k in range(self.seconds * 50):
            self.received += 1
            yield BotAudio(tone if k % 80 < 50 else silence)
            if k % 50 == 0:
                await asyncio.sleep(0)

    async def close(self) -> None:
        return None


def _bot_call(seconds: int) -> tuple[int, BotCall]:
    parts = fake_parts()

    async def go() -> tuple[int, BotCall]:
        call = BotCall(transport=_FeedTransport(seconds), url="ws://feed", route=None, parts=parts,
                       conversation_id=f"feed-{seconds}", scenario_id="feed", seed=0, caller_type="neutral",
                       language="en", conditions=LineConditions())
        async with call:
            while call.fault is None:  # the bot hangs up when it has sent everything
                await asyncio.sleep(0.01)
            await call.stop_sending()
        gc.collect()
        return _held(call, [parts, *vars(parts).values()]), call

    return asyncio.run(go())


def test_a_bot_call_holds_as_many_tracked_objects_after_a_minute_of_bot_audio_as_after_two_seconds() -> None:
    short, short_call = _bot_call(2)
    long, long_call = _bot_call(60)
    assert short == long
    for seconds, call in ((2, short_call), (60, long_call)):
        assert call.transport.received == seconds * 50  # every message was played
        frames = call.timeline().side("agent")
        assert frames and call.duration_ms >= seconds * 1000
        assert len(call.render()) == 44 + 4 * (RATE * call.duration_ms // 1000 + 1)  # 16-bit stereo WAV


def test_the_first_call_dialled_freezes_the_heap_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """`polygon run` moves what its first call loaded (engines, the stub server's and SciPy's
    modules) out of the collector's reach, once per process (docs/voice.md)."""
    monkeypatch.setattr(_call_line, "_FROZEN", [])
    gc.unfreeze()
    try:
        assert asyncio.run(_call_line.freeze_after_first_dial()) is True
        assert gc.get_freeze_count() > 0 and "scipy.signal" in sys.modules  # imported for the caller's lines
        frozen = gc.get_freeze_count()
        assert asyncio.run(_call_line.freeze_after_first_dial()) is False and gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()
