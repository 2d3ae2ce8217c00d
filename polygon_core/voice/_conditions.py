"""Conditions on the line: what the caller's room and the telephone do to the caller's voice.

A preset (`LineConditions.preset`) names what can happen; `LineConditions.intensity` is the one dial
(0 = the preset's mildest, 1 = its harshest): every number below is a pair (at intensity 0, at
intensity 1) and the value used is the straight line between them. Probabilities are per caller
turn (a "slot" is one chance: two bursts can happen in one turn, three frame drops).

| preset | line | background noise (SNR) | SNR drift | bursts (per slot; level vs speech peak) | muffling (cutoff) | frame drops (length) | vocal tics | non-directed speech |
| --- | --- | --- | --- | --- | --- | --- | --- | --- |
| clean | 16 kHz, no codec | none | - | none | none | none | none | none |
| phone | 8 kHz G.711 mu-law | none | - | none | none | none | none | none |
| street | 8 kHz G.711 mu-law | brown or pink, 20 dB -> 3 dB | ±3 dB -> ±8 dB | horn, clatter: 2 slots, 0.1 -> 0.5; -15 dB -> -3 dB | 0.05 -> 0.3 (1,800 Hz -> 700 Hz) | 3 slots, 0.05 -> 0.3 (1..2 -> 1..8 frames) | 0.1 -> 0.4 | 0.05 -> 0.25 |
| office | 8 kHz G.711 mu-law | babble (pink without babble), 25 dB -> 8 dB | ±2 dB -> ±5 dB | keyboard: 2 slots, 0.2 -> 0.6; -20 dB -> -8 dB | none | none | 0.1 -> 0.35 | 0.05 -> 0.3 |
| car | 8 kHz G.711 mu-law | brown, 18 dB -> 4 dB | ±2 dB -> ±5 dB | none | 0.1 -> 0.4 (1,500 Hz -> 600 Hz) | 3 slots, 0.05 -> 0.35 (1..2 -> 1..10 frames) | none | none |

- Background noise covers the whole utterance at one SNR per turn, measured over the speech's active
  part (`snr_db`). The SNR drifts between turns: centre + drift x sin(2 pi turn / period + phase) +
  a quarter of the drift as jitter, with period (5 to 12 turns) and phase fixed per conversation,
  rounded to 0.1 dB. The noise is the user's noise files when given (`noise_bank`: one file per turn,
  from a random point, looped), else babble (office; pink noise when no babble is given), else the
  preset's synthetic colour (street: brown or pink, fixed per conversation; car: brown).
  Presets without background noise (clean, phone) ignore noise files.
- Bursts: sounds of 0.15 to 2 s (by kind) at a random place in the utterance.
- Muffling: a 0.4 to 1.5 s stretch through a low-pass filter (a hand over the phone).
- Frame drops: 1 to N consecutive 20 ms frames zeroed (packet loss), N the dial's value.
- Vocal tics ("um", "uh", a cough) and speech not directed at the agent ("hold on, honey" on the
  street, "sorry, one sec" to a colleague in the office) are not applied to the utterance: they are
  planned per turn (`plan_room_sounds`) for the call to say during the agent's speech or a silence.
  Confused callers tic 1.5x as often and talkative ones 1.25x; busy callers talk to the room 1.5x as
  often and talkative ones 1.25x (capped at 1).

Seeding, like text noise (`polygon_core.noise`): every aspect has its own random stream from
`stable_seed("polygon.line", aspect, conversation_id, turn)` and draws the same numbers whatever the
intensity, so for one conversation and turn a higher intensity only adds events and lowers the SNR.
Same inputs, same samples, bit for bit.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from .._hashing import stable_seed
from ..models import LineConditions
from ._audio import Audio
from ._signal import (
    FRAME_MS,
    PHONE_RATE,
    BurstKind,
    active_mask,
    add,
    burst,
    coloured_noise,
    fit_length,
    frame_spans,
    low_pass,
    mulaw_decode,
    mulaw_encode,
    noise_at_snr,
    resample,
)
from ._timeline import LineEvent

CLEAN_RATE = 16_000
CODEC = "G.711 mu-law"
NoiseSource = Literal["brown", "pink", "babble"]
RoomSoundKind = Literal["vocal_tic", "non_directed"]
During = Literal["agent_speech", "silence"]

_BURST_SLOTS = 2
_DROP_SLOTS = 3
_MUFFLE_MS = (400, 1500)
_RAMP_MS = 10  # muffling fades in and out: a hard switch would click
_BURST_MS: dict[BurstKind, tuple[int, int]] = {
    "horn": (300, 900), "door": (150, 400), "clatter": (400, 1200), "cough": (250, 600), "keyboard": (600, 2000),
}
# Events at one time are listed in the order they were applied.
_ORDER = {"noise": 0, "burst": 1, "muffle": 2, "frame_drop": 3, "codec": 4}
_TIC_FACTOR = {"confused": 1.5, "talkative": 1.25}
_ROOM_TALK_FACTOR = {"busy": 1.5, "talkative": 1.25}
_TICS = {"en": ("um", "uh", ""), "ru": ("э-э", "м-м", "")}  # "": a cough
_ROOM_LINES: dict[str, dict[str, tuple[str, ...]]] = {
    "street": {
        "en": ("hold on, honey", "one sec, I'm on the phone", "no, the other way", "wait, let me cross first"),
        "ru": ("подожди, дорогая", "секунду, я по телефону", "нет, в другую сторону", "подожди, перейдём дорогу"),
    },
    "office": {
        "en": ("sorry, one sec", "I'll be right with you", "can we talk after this call?", "just leave it on my desk"),
        "ru": ("извините, одну секунду", "сейчас подойду", "давай после звонка", "оставь на столе, пожалуйста"),
    },
}


@dataclass(frozen=True)
class Dial:
    """A number at intensity 0 (`mild`) and at intensity 1 (`harsh`)."""

    mild: float
    harsh: float

    def at(self, intensity: float) -> float:
        """The value at `intensity` (0..1), on the straight line between the two."""
        return self.mild + (self.harsh - self.mild) * intensity


_NEVER = Dial(0.0, 0.0)


@dataclass(frozen=True)
class Preset:
    """What a named condition does; see the module's table."""

    name: str
    line_rate: int
    codec: bool = True
    noise: tuple[NoiseSource, ...] = ()  # one is chosen per conversation; () = no background noise
    snr_db: Dial = Dial(30.0, 30.0)
    snr_drift_db: Dial = _NEVER
    bursts: tuple[BurstKind, ...] = ()
    burst_p: Dial = _NEVER
    burst_level_db: Dial = Dial(-20.0, -20.0)
    muffle_p: Dial = _NEVER
    muffle_cutoff_hz: Dial = Dial(1500.0, 1500.0)
    drop_p: Dial = _NEVER
    drop_frames: Dial = Dial(1.0, 1.0)
    tic_p: Dial = _NEVER
    non_directed_p: Dial = _NEVER


PRESETS: dict[str, Preset] = {
    "clean": Preset("clean", CLEAN_RATE, codec=False),
    "phone": Preset("phone", PHONE_RATE),
    "street": Preset("street", PHONE_RATE, noise=("brown", "pink"), snr_db=Dial(20, 3), snr_drift_db=Dial(3, 8),
                     bursts=("horn", "clatter"), burst_p=Dial(0.1, 0.5), burst_level_db=Dial(-15, -3),
                     muffle_p=Dial(0.05, 0.3), muffle_cutoff_hz=Dial(1800, 700),
                     drop_p=Dial(0.05, 0.3), drop_frames=Dial(2, 8),
                     tic_p=Dial(0.1, 0.4), non_directed_p=Dial(0.05, 0.25)),
    "office": Preset("office", PHONE_RATE, noise=("babble",), snr_db=Dial(25, 8), snr_drift_db=Dial(2, 5),
                     bursts=("keyboard",), burst_p=Dial(0.2, 0.6), burst_level_db=Dial(-20, -8),
                     tic_p=Dial(0.1, 0.35), non_directed_p=Dial(0.05, 0.3)),
    "car": Preset("car", PHONE_RATE, noise=("brown",), snr_db=Dial(18, 4), snr_drift_db=Dial(2, 5),
                  muffle_p=Dial(0.1, 0.4), muffle_cutoff_hz=Dial(1500, 600),
                  drop_p=Dial(0.05, 0.35), drop_frames=Dial(2, 10)),
}


@dataclass(frozen=True)
class RoomSound:
    """A sound the caller makes that is not a turn: a vocal tic or speech to someone in the room.

    `text` is what to say ("" for a cough: synthesise `burst("cough", ...)`); `during` is the stretch
    it falls in (the agent's speech or a silence) and `at` where in it, as a fraction 0..1.
    """

    kind: RoomSoundKind
    text: str
    during: During
    at: float


def _pair(dial: Dial, unit: str = "", fmt: str = "g") -> str:
    return f"{dial.mild:{fmt}}{unit} -> {dial.harsh:{fmt}}{unit}"


def _row(p: Preset) -> list[str]:
    none = "none"
    line = f"{p.line_rate // 1000} kHz" + (f" {CODEC}" if p.codec else ", no codec")
    sources = " or ".join(p.noise).replace("babble", "babble (pink without babble)")
    noise = f"{sources}, {_pair(p.snr_db, ' dB')}" if p.noise else none
    drift = f"±{_pair(p.snr_drift_db, ' dB')}".replace("-> ", "-> ±") if p.noise else "-"
    bursts = (f"{', '.join(p.bursts)}: {_BURST_SLOTS} slots, {_pair(p.burst_p)}; {_pair(p.burst_level_db, ' dB')}"
              if p.bursts else none)
    muffle = f"{_pair(p.muffle_p)} ({_pair(p.muffle_cutoff_hz, ' Hz', ',.0f')})" if p.muffle_p != _NEVER else none
    frames = f"1..{p.drop_frames.mild:g} -> 1..{p.drop_frames.harsh:g} frames"
    drops = f"{_DROP_SLOTS} slots, {_pair(p.drop_p)} ({frames})" if p.drop_p != _NEVER else none
    tics = _pair(p.tic_p) if p.tic_p != _NEVER else none
    room = _pair(p.non_directed_p) if p.non_directed_p != _NEVER else none
    return [p.name, line, noise, drift, bursts, muffle, drops, tics, room]


def preset_table() -> str:
    """The presets' numbers as a Markdown table (the module's docstring and docs/voice.md show it)."""
    head = ["preset", "line", "background noise (SNR)", "SNR drift", "bursts (per slot; level vs speech peak)",
            "muffling (cutoff)", "frame drops (length)", "vocal tics", "non-directed speech"]
    rows = [head, ["---"] * len(head), *(_row(p) for p in PRESETS.values())]
    return "\n".join("| " + " | ".join(r) + " |" for r in rows)


def preset(conditions: LineConditions) -> Preset:
    """The preset `conditions` names."""
    return PRESETS[conditions.preset]


def line_rate(conditions: LineConditions) -> int:
    """The line's sample rate: 8000 Hz on the phone-based presets, 16000 Hz on clean."""
    return preset(conditions).line_rate


def _rng(aspect: str, conversation_id: str, turn: int | None) -> np.random.Generator:
    return np.random.default_rng(stable_seed("polygon.line", aspect, conversation_id, turn))


def _ms(audio: Audio, sample: int) -> int:
    return sample * 1000 // audio.rate


def _sample(audio: Audio, ms: float) -> int:
    return int(audio.rate * ms // 1000)


# --- background noise ---------------------------------------------------------------------------

def turn_snr_db(conditions: LineConditions, *, conversation_id: str, turn: int) -> float:
    """This turn's background SNR (dB): the preset's centre, drifting from turn to turn."""
    p, intensity = preset(conditions), conditions.intensity
    drift = _rng("snr-drift", conversation_id, None)
    period, phase = drift.uniform(5.0, 12.0), drift.uniform(0.0, 2 * math.pi)
    jitter = _rng("snr", conversation_id, turn).uniform(-0.25, 0.25)
    amplitude = p.snr_drift_db.at(intensity)
    value = p.snr_db.at(intensity) + amplitude * (math.sin(2 * math.pi * turn / period + phase) + jitter)
    return round(value, 1)


def _noise_source(p: Preset, conversation_id: str, noise_bank: Sequence[Audio],
                  babble: Audio | None) -> tuple[str, Sequence[Audio]]:
    """(what the event calls the noise, the recordings to take it from; () = synthesise the colour)."""
    if noise_bank:
        return "file", noise_bank
    colour = p.noise[int(_rng("noise-kind", conversation_id, None).integers(len(p.noise)))]
    if colour == "babble":
        return ("babble", (babble,)) if babble is not None else ("pink", ())
    return colour, ()


def _background(audio: Audio, p: Preset, conditions: LineConditions, conversation_id: str, turn: int,
                noise_bank: Sequence[Audio], babble: Audio | None) -> tuple[Audio, list[LineEvent]]:
    if not p.noise or not active_mask(audio).any():
        return audio, []
    source, recordings = _noise_source(p, conversation_id, noise_bank, babble)
    rng = _rng("noise", conversation_id, turn)
    pick, start = int(rng.integers(1 << 30)), float(rng.random())
    detail: dict[str, object] = {"source": source}
    if recordings:
        index = pick % len(recordings)
        noise = resample(recordings[index], audio.rate)
        noise = fit_length(noise, len(audio.samples), int(start * len(noise.samples)))
        if source == "file":
            detail["file"] = index
    else:
        noise = coloured_noise(source, audio.duration_ms + 1, audio.rate, rng)  # type: ignore[arg-type]
    snr = turn_snr_db(conditions, conversation_id=conversation_id, turn=turn)
    mixed = add(audio, noise_at_snr(audio, noise, snr))
    event = LineEvent(kind="noise", start_ms=0, end_ms=audio.duration_ms, side="caller",
                      detail={**detail, "snr_db": snr})
    return mixed, [event]


# --- bursts, muffling, frame drops --------------------------------------------------------------

def _bursts(audio: Audio, line: Audio, p: Preset, intensity: float, conversation_id: str,
            turn: int) -> tuple[Audio, list[LineEvent]]:
    rng = _rng("burst", conversation_id, turn)
    reference = float(np.abs(audio.samples).max(initial=0.0)) or 0.5  # the speech's peak
    events: list[LineEvent] = []
    for slot in range(_BURST_SLOTS):
        u, pick, length, where, jitter = rng.random(), int(rng.integers(1 << 30)), *rng.random(3)
        if not p.bursts or u >= p.burst_p.at(intensity):
            continue
        kind = p.bursts[pick % len(p.bursts)]
        low, high = _BURST_MS[kind]
        ms = int(low + (high - low) * length)
        start = int(max(0, line.duration_ms - ms) * where)
        level = round(p.burst_level_db.at(intensity) + 3 * (jitter - 0.5), 1)
        sound = burst(kind, ms, line.rate, _rng(f"burst-sound-{slot}", conversation_id, turn))
        gain = reference * 10 ** (level / 20) / (float(np.abs(sound.samples).max(initial=0.0)) or 1.0)
        line = add(line, Audio((sound.samples * gain).astype(np.float32), line.rate), _sample(line, start))
        events.append(LineEvent(kind="burst", start_ms=start, end_ms=min(start + ms, line.duration_ms),
                                side="caller", detail={"sound": kind, "level_db": level}))
    return line, events


def _ramp(n: int, ramp: int) -> NDArray[np.float64]:
    """0 -> 1 over `ramp` samples at each end of `n` samples, 1 between."""
    k = np.arange(n)
    return np.asarray(np.minimum(1.0, np.minimum(k + 1, n - k) / max(1, ramp)), dtype=np.float64)


def _muffle(line: Audio, p: Preset, intensity: float, conversation_id: str,
            turn: int) -> tuple[Audio, list[LineEvent]]:
    rng = _rng("muffle", conversation_id, turn)
    u, length, where = rng.random(3)
    if u >= p.muffle_p.at(intensity) or line.duration_ms == 0:
        return line, []
    ms = min(line.duration_ms, int(_MUFFLE_MS[0] + (_MUFFLE_MS[1] - _MUFFLE_MS[0]) * length))
    start = int((line.duration_ms - ms) * where)
    cutoff = round(p.muffle_cutoff_hz.at(intensity))
    a, b = _sample(line, start), _sample(line, start + ms)
    muffled = low_pass(line, cutoff).samples[a:b].astype(np.float64)
    mix = _ramp(b - a, _sample(line, _RAMP_MS))
    out = line.samples.astype(np.float64)
    out[a:b] = mix * muffled + (1 - mix) * out[a:b]
    event = LineEvent(kind="muffle", start_ms=start, end_ms=start + ms, side="caller",
                      detail={"cutoff_hz": cutoff})
    return Audio(out.astype(np.float32), line.rate), [event]


def _drops(line: Audio, p: Preset, intensity: float, conversation_id: str,
           turn: int) -> tuple[Audio, list[LineEvent]]:
    rng = _rng("frame-drop", conversation_id, turn)
    frames = line.duration_ms // FRAME_MS
    spans: list[tuple[int, int]] = []
    for _ in range(_DROP_SLOTS):
        u, length, where = rng.random(3)
        if u >= p.drop_p.at(intensity) or frames == 0:
            continue
        count = 1 + int(length * round(p.drop_frames.at(intensity)))
        first = int(where * frames)
        spans.append((first * FRAME_MS, min(frames, first + count) * FRAME_MS))
    merged = frame_spans(spans)
    out = line.samples.copy()
    events: list[LineEvent] = []
    for start, end in merged:
        out[_sample(line, start) : _sample(line, end)] = 0.0
        events.append(LineEvent(kind="frame_drop", start_ms=start, end_ms=end, side="caller",
                                detail={"frames": (end - start) // FRAME_MS}))
    return Audio(out, line.rate), events


# --- the whole line -----------------------------------------------------------------------------

def degrade(
    audio: Audio,
    conditions: LineConditions,
    *,
    conversation_id: str,
    turn: int,
    noise_bank: Sequence[Audio] = (),
    babble: Audio | None = None,
) -> tuple[Audio, list[LineEvent]]:
    """One caller utterance as the agent's end of the line receives it, and what happened to it.

    In order: resampling to the line's rate (`line_rate`), background noise (`noise_bank`: the
    user's noise recordings; `babble`: synthesised speech for the office), bursts, muffling, frame
    drops, then the codec (G.711 mu-law on the phone-based presets). Returns the line audio at
    `line_rate(conditions)` and the events, sorted by start, with times in ms from the start of the
    utterance (side "caller"; at one start, in the order applied). Same inputs, same samples.
    """
    p, intensity = preset(conditions), conditions.intensity
    speech = resample(audio, p.line_rate)
    line, events = _background(speech, p, conditions, conversation_id, turn, noise_bank, babble)
    line, more = _bursts(speech, line, p, intensity, conversation_id, turn)
    events += more
    line, more = _muffle(line, p, intensity, conversation_id, turn)
    events += more
    line, more = _drops(line, p, intensity, conversation_id, turn)
    events += more
    if p.codec:
        line = mulaw_decode(mulaw_encode(line), line.rate)
        events.append(LineEvent(kind="codec", start_ms=0, end_ms=line.duration_ms, side="caller",
                                detail={"codec": CODEC, "rate": line.rate}))
    return line, sorted(events, key=lambda e: (e.start_ms, _ORDER[e.kind], e.end_ms))


def plan_room_sounds(
    conditions: LineConditions,
    *,
    conversation_id: str,
    turn: int,
    caller_type: str,
    language: str = "en",
) -> list[RoomSound]:
    """The vocal tic and the speech to someone else that the caller makes around this turn (each at
    most once), for the call to synthesise and place. None on clean and phone.

    Lines are English or Russian (`language`; another language gets the English ones).
    """
    p, intensity = preset(conditions), conditions.intensity
    rng = _rng("room", conversation_id, turn)
    sounds: list[RoomSound] = []
    tics = _TICS.get(language, _TICS["en"])
    u, pick, during, at = rng.random(), int(rng.integers(1 << 30)), rng.random(), rng.random()
    if u < min(1.0, p.tic_p.at(intensity) * _TIC_FACTOR.get(caller_type, 1.0)):
        sounds.append(RoomSound("vocal_tic", tics[pick % len(tics)], _during(during), _at(at)))
    u, pick, during, at = rng.random(), int(rng.integers(1 << 30)), rng.random(), rng.random()
    lines = _ROOM_LINES.get(p.name, {})
    said = lines.get(language, lines.get("en", ()))
    if said and u < min(1.0, p.non_directed_p.at(intensity) * _ROOM_TALK_FACTOR.get(caller_type, 1.0)):
        sounds.append(RoomSound("non_directed", said[pick % len(said)], _during(during), _at(at)))
    return sounds


def _during(u: float) -> During:
    return "agent_speech" if u < 0.5 else "silence"


def _at(u: float) -> float:
    # Not at the very edges: a sound at 0 or 1 of a stretch belongs to the stretch next to it.
    return round(0.1 + 0.8 * u, 3)
