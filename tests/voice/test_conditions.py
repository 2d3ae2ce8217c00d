"""Conditions on the line: the presets, seeded per conversation and turn, bit-identical on replay."""

from __future__ import annotations

import inspect
import itertools
from collections import Counter

import numpy as np
import pytest

from polygon_core.models import LineConditions
from polygon_core.voice import (
    CODEC,
    PRESETS,
    Audio,
    LineEvent,
    coloured_noise,
    degrade,
    line_rate,
    phone_line,
    plan_room_sounds,
    preset_table,
    resample,
    to_pcm16,
    turn_snr_db,
)

CALL = "call-1"
TURNS = range(50)
CALLER_TYPES = ("cooperative", "busy", "distrustful", "confused", "aggressive", "talkative")


def _speech(ms: int = 1000, rate: int = 22_050) -> Audio:
    """A voiced tone with a pause in the middle: what a synthesised sentence looks like to the line."""
    t = np.arange(rate * ms // 1000) / rate
    x = 0.3 * np.sin(2 * np.pi * 180 * t) * (1 + 0.3 * np.sin(2 * np.pi * 3 * t))
    x[int(len(x) * 0.45) : int(len(x) * 0.55)] = 0.0
    return Audio(x.astype(np.float32), rate)


def _conditions(preset: str, intensity: float = 1.0, **kw: object) -> LineConditions:
    return LineConditions(preset=preset, intensity=intensity, **kw)  # type: ignore[arg-type]


def _counts(preset: str, intensity: float, audio: Audio) -> Counter[str]:
    counts: Counter[str] = Counter()
    for turn in TURNS:
        _, events = degrade(audio, _conditions(preset, intensity), conversation_id=CALL, turn=turn)
        counts.update(e.kind for e in events)
    return counts


SPEECH = _speech()


def test_line_rates() -> None:
    assert {name: line_rate(_conditions(name)) for name in PRESETS} == {
        "clean": 16_000, "phone": 8000, "street": 8000, "office": 8000, "car": 8000}


def test_clean_is_only_resampled_to_16_khz() -> None:
    for turn in TURNS:
        line, events = degrade(SPEECH, _conditions("clean"), conversation_id=CALL, turn=turn)
        assert events == []
        assert line.rate == 16_000 and line.samples.tobytes() == resample(SPEECH, 16_000).samples.tobytes()


def test_phone_is_only_the_codec() -> None:
    expected = phone_line(SPEECH)
    for turn in TURNS:
        line, events = degrade(SPEECH, _conditions("phone"), conversation_id=CALL, turn=turn)
        assert events == [LineEvent(kind="codec", start_ms=0, end_ms=1000, side="caller",
                                    detail={"codec": "G.711 mu-law", "rate": 8000})]
        assert line.rate == 8000 and line.samples.tobytes() == expected.samples.tobytes()
    assert CODEC == "G.711 mu-law"


@pytest.mark.parametrize("preset", ["street", "office", "car"])
def test_same_inputs_same_samples(preset: str) -> None:
    bank = (coloured_noise("pink", 700, 16_000, np.random.default_rng(1)),)
    babble = _speech(3000, 22_050)
    for kw in ({}, {"noise_bank": bank}, {"babble": babble}):
        runs = [degrade(_speech(), _conditions(preset, 0.7), conversation_id=CALL, turn=4, **kw)
                for _ in range(2)]
        assert runs[0][0].samples.tobytes() == runs[1][0].samples.tobytes()
        assert runs[0][1] == runs[1][1]


@pytest.mark.parametrize("preset", ["street", "office", "car"])
def test_another_turn_or_call_is_another_plan(preset: str) -> None:
    def run(call: str, turn: int) -> tuple[bytes, list[LineEvent]]:
        line, events = degrade(SPEECH, _conditions(preset), conversation_id=call, turn=turn)
        return to_pcm16(line), events
    base = run(CALL, 4)
    for other in (run(CALL, 5), run("call-2", 4)):
        assert other[0] != base[0] and other[1] != base[1]


def test_street_has_more_events_at_full_intensity_over_50_turns() -> None:
    mild, harsh = _counts("street", 0.0, SPEECH), _counts("street", 1.0, SPEECH)
    assert mild == Counter({"noise": 50, "codec": 50, "burst": 12, "frame_drop": 10, "muffle": 3})
    assert harsh == Counter({"noise": 50, "codec": 50, "burst": 57, "frame_drop": 45, "muffle": 15})


def test_office_and_car_counts_over_50_turns() -> None:
    assert _counts("office", 1.0, SPEECH) == Counter({"noise": 50, "codec": 50, "burst": 65})
    assert _counts("car", 1.0, SPEECH) == Counter({"noise": 50, "codec": 50, "frame_drop": 50, "muffle": 17})


@pytest.mark.parametrize("preset", ["street", "office", "car"])
def test_a_higher_intensity_only_adds_events(preset: str) -> None:
    for turn in range(20):
        per_level = [Counter(e.kind for e in degrade(SPEECH, _conditions(preset, i), conversation_id=CALL,
                                                       turn=turn)[1]) for i in (0.0, 0.5, 1.0)]
        assert all(not (low - high) for low, high in itertools.pairwise(per_level))


@pytest.mark.parametrize("preset", ["street", "car"])
def test_events_lie_inside_the_utterance_and_dropped_frames_are_silent(preset: str) -> None:
    dropped = 0
    for turn in TURNS:
        line, events = degrade(SPEECH, _conditions(preset), conversation_id=CALL, turn=turn)
        assert len(line.samples) == 8000
        for event in events:
            assert 0 <= event.start_ms <= event.end_ms <= 1000 and event.side == "caller"
            if event.kind == "frame_drop":
                assert event.start_ms % 20 == 0 and event.end_ms % 20 == 0
                assert event.detail == {"frames": (event.end_ms - event.start_ms) // 20}
                assert not line.samples[event.start_ms * 8 : event.end_ms * 8].any()
                dropped += 1
        starts = [(e.start_ms, e.kind) for e in events]
        assert starts == sorted(starts, key=lambda s: (s[0], ["noise", "burst", "muffle", "frame_drop",
                                                               "codec"].index(s[1])))
    assert dropped > 0


def test_event_details() -> None:
    _, events = degrade(SPEECH, _conditions("street"), conversation_id=CALL, turn=0)
    assert [(e.kind, e.start_ms, e.end_ms, e.detail) for e in events] == [
        ("noise", 0, 1000, {"source": "pink", "snr_db": turn_snr_db(_conditions("street"), conversation_id=CALL,
                                                                     turn=0)}),
        ("codec", 0, 1000, {"codec": "G.711 mu-law", "rate": 8000}),
        *[(e.kind, e.start_ms, e.end_ms, e.detail) for e in events[2:]],
    ]
    kinds = {(e.kind, tuple(sorted(e.detail))) for t in TURNS
             for e in degrade(SPEECH, _conditions("street"), conversation_id=CALL, turn=t)[1]}
    assert kinds == {("noise", ("snr_db", "source")), ("codec", ("codec", "rate")),
                     ("burst", ("level_db", "sound")), ("muffle", ("cutoff_hz",)), ("frame_drop", ("frames",))}


def test_the_snr_drifts_between_turns_within_the_dial() -> None:
    conditions = _conditions("street", 1.0)
    values = [turn_snr_db(conditions, conversation_id=CALL, turn=t) for t in range(12)]
    assert values == [turn_snr_db(conditions, conversation_id=CALL, turn=t) for t in range(12)]
    assert all(3 - 8 * 1.25 <= v <= 3 + 8 * 1.25 for v in values)
    assert len(set(values)) == 12 and max(values) - min(values) > 8  # it drifts, by more than the jitter
    mild = [turn_snr_db(_conditions("street", 0.0), conversation_id=CALL, turn=t) for t in range(12)]
    assert all(20 - 3 * 1.25 <= v <= 20 + 3 * 1.25 for v in mild)
    assert all(m > h for m, h in zip(mild, values, strict=True))  # harsher is noisier, turn by turn


def test_the_users_noise_files_replace_the_synthetic_noise() -> None:
    bank = (coloured_noise("white", 300, 16_000, np.random.default_rng(2)),
            coloured_noise("brown", 500, 8000, np.random.default_rng(3)))
    sources: Counter[object] = Counter()
    for turn in range(20):
        _, events = degrade(SPEECH, _conditions("car"), conversation_id=CALL, turn=turn, noise_bank=bank)
        noise = [e for e in events if e.kind == "noise"]
        assert len(noise) == 1 and noise[0].detail["source"] == "file"
        sources[noise[0].detail["file"]] += 1
    assert set(sources) == {0, 1}


def test_phone_ignores_noise_files() -> None:
    bank = (coloured_noise("white", 300, 16_000, np.random.default_rng(2)),)
    line, events = degrade(SPEECH, _conditions("phone"), conversation_id=CALL, turn=0, noise_bank=bank)
    assert [e.kind for e in events] == ["codec"] and to_pcm16(line) == to_pcm16(phone_line(SPEECH))


def test_office_babble_is_the_babble_given_or_pink_noise() -> None:
    def source(**kw: object) -> object:
        _, events = degrade(SPEECH, _conditions("office"), conversation_id=CALL, turn=1, **kw)  # type: ignore[arg-type]
        return next(e.detail["source"] for e in events if e.kind == "noise")
    assert source() == "pink"
    assert source(babble=_speech(2500)) == "babble"


def test_a_silent_utterance_gets_no_background_noise() -> None:
    _, events = degrade(Audio.silence(500, 22_050), _conditions("street"), conversation_id=CALL, turn=0)
    assert "noise" not in {e.kind for e in events} and "codec" in {e.kind for e in events}


# --- room sounds --------------------------------------------------------------------------------

def _room(preset: str, intensity: float, caller_type: str = "cooperative", language: str = "en") -> Counter[str]:
    return Counter(s.kind for t in TURNS for s in plan_room_sounds(
        _conditions(preset, intensity), conversation_id=CALL, turn=t, caller_type=caller_type, language=language))


@pytest.mark.parametrize("preset", ["clean", "phone", "car"])
def test_no_room_sounds_on_clean_phone_and_car(preset: str) -> None:
    assert all(_room(preset, 1.0, caller_type) == Counter() for caller_type in CALLER_TYPES)


def test_room_sound_counts_over_50_turns() -> None:
    assert _room("street", 0.0) == Counter({"vocal_tic": 12, "non_directed": 4})
    assert _room("street", 1.0) == Counter({"vocal_tic": 20, "non_directed": 13})
    assert _room("office", 1.0) == Counter({"vocal_tic": 19, "non_directed": 16})
    assert _room("street", 1.0, "confused") == Counter({"vocal_tic": 31, "non_directed": 13})
    assert _room("street", 1.0, "busy") == Counter({"vocal_tic": 20, "non_directed": 25})


def test_room_sounds_are_what_the_call_can_place() -> None:
    seen = set()
    for language, tics in (("en", {"um", "uh", ""}), ("ru", {"э-э", "м-м", ""})):
        for turn in TURNS:
            for sound in plan_room_sounds(_conditions("office"), conversation_id=CALL, turn=turn,
                                          caller_type="talkative", language=language):
                assert sound.during in ("agent_speech", "silence") and 0.1 <= sound.at <= 0.9
                if sound.kind == "vocal_tic":
                    assert sound.text in tics
                else:
                    assert sound.text and (language == "en") == sound.text.isascii()
                seen.add((sound.kind, sound.during))
    assert seen == {(k, d) for k in ("vocal_tic", "non_directed") for d in ("agent_speech", "silence")}
    assert plan_room_sounds(_conditions("office"), conversation_id=CALL, turn=3, caller_type="busy") == \
        plan_room_sounds(_conditions("office"), conversation_id=CALL, turn=3, caller_type="busy")


def test_street_and_office_say_different_things_to_the_room() -> None:
    def lines(preset: str) -> set[str]:
        return {s.text for t in TURNS for s in plan_room_sounds(_conditions(preset), conversation_id=CALL, turn=t,
                                                                caller_type="busy") if s.kind == "non_directed"}
    assert "sorry, one sec" in lines("office") and not lines("office") & lines("street")


def test_the_docstring_table_is_the_presets() -> None:
    assert preset_table() in (inspect.getmodule(degrade).__doc__ or "")
    assert preset_table().splitlines()[4].startswith("| street | 8 kHz G.711 mu-law | brown or pink, 20 dB -> 3 dB |")
