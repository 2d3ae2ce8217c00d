"""The voice benchmark's core (benchmarks/voice.py) on one call with tone voices and a counting clock.

No timing is asserted: the clock advances one tick per read, so every figure is a count of reads,
and the report's arithmetic can be checked exactly (stages, shares, ratios, per call-minute).
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import sys
import threading
from pathlib import Path

import pytest

from polygon.usecases._common import call_timeline_key
from polygon_core.adapters.artifacts import artifact_store_from_url
from polygon_core.conversation import conversation_key
from polygon_core.demo import demo_dir
from polygon_core.files import load_suite

from ._fakes import fake_parts

_SPEC = importlib.util.spec_from_file_location(
    "voice_benchmark", Path(__file__).resolve().parents[2] / "benchmarks" / "voice.py")
assert _SPEC is not None and _SPEC.loader is not None
bench = importlib.util.module_from_spec(_SPEC)
sys.modules[_SPEC.name] = bench  # its dataclasses look their module up while it loads
_SPEC.loader.exec_module(bench)

TICK = 0.001


class CountingClock:
    """Advances TICK on every read, from any thread."""

    def __init__(self) -> None:
        self._reads = itertools.count(1)
        self._lock = threading.Lock()

    def __call__(self) -> float:
        with self._lock:
            return next(self._reads) * TICK


def test_a_stage_inside_another_is_charged_to_the_inner_one_only() -> None:
    times = iter([0.0, 1.0, 3.0, 6.0, 10.0])
    stages = bench.StageClock(lambda: next(times))
    with stages.stage("conditions"), stages.stage("synthesis"):  # conditions from 0.0, synthesis 1.0 .. 3.0
        pass
    # conditions: 0-1 and 3-6; synthesis: 1-3
    assert stages.cpu["conditions"] == 4.0 and stages.cpu["synthesis"] == 2.0
    assert stages.calls == {"synthesis": 1, "conditions": 1, "vad": 0, "recognition": 0, "store": 0, "other": 0}


def test_calls_are_chosen_seed_then_agent_then_scenario() -> None:
    chosen = bench.choose_calls(["phone", "street"], [3, 1], ["a", "b"])
    assert [(c.conditions, c.agent, c.scenario, c.seed) for c in chosen] == [
        ("phone", "v1", "a", 0), ("phone", "v1", "b", 0), ("phone", "v2", "a", 0), ("street", "v1", "a", 0)]


def test_one_call_report_adds_up(tmp_path: Path) -> None:
    parts = fake_parts()
    specs = bench.choose_calls(["clean"], [1], ["address-change"])
    out = bench.measure(specs, tmp_path, clock=CountingClock(), parts=lambda: parts)

    call = out["calls"][0]
    assert (call["conditions"], call["agent"], call["scenario"], call["seed"]) == ("clean", "v1", "address-change", 0)
    # Simulated seconds are the stored timeline's duration.
    cid = conversation_key(load_suite(demo_dir() / "suite").scenario("address-change"), 0)
    timeline = json.loads(artifact_store_from_url(tmp_path / "artifacts").get_text(
        call_timeline_key("voice-bench-clean-v1", cid)))
    assert call["simulated_s"] == timeline["duration_ms"] / 1000 > 0

    # Each engine call is two reads of the clock, so one tick; nothing nests with tone voices.
    assert call["stage_calls"]["synthesis"] == len(parts.caller_voice.calls)  # type: ignore[attr-defined]
    assert call["stage_calls"]["store"] == 1
    assert min(call["stage_calls"][name] for name in ("synthesis", "conditions", "vad", "recognition")) > 0
    for name in ("synthesis", "conditions", "vad", "recognition", "store"):
        assert call["stages"][name] == pytest.approx(call["stage_calls"][name] * TICK)
    assert all(call["stages"][name] > 0 for name in ("conditions", "vad", "recognition"))
    assert call["stages"]["other"] == pytest.approx(call["cpu_s"] - sum(
        v for k, v in call["stages"].items() if k != "other"))

    total = out["all"]
    assert out["by_conditions"] == {"clean": total}
    assert (total["calls"], total["simulated_s"], total["cpu_s"]) == (1, call["simulated_s"], call["cpu_s"])
    assert total["sim_s_per_cpu_s"] == pytest.approx(total["simulated_s"] / total["cpu_s"])
    assert total["cpu_s_per_call_minute"] == pytest.approx(total["cpu_s"] / (total["simulated_s"] / 60))
    assert sum(s["share"] for s in total["stages"].values()) == pytest.approx(1.0)
    assert sum(s["cpu_s"] for s in total["stages"].values()) == pytest.approx(total["cpu_s"])
    for stage in total["stages"].values():
        assert stage["share"] == pytest.approx(stage["cpu_s"] / total["cpu_s"])
        assert stage["cpu_s_per_call_minute"] == pytest.approx(stage["cpu_s"] * 60 / total["simulated_s"])
    for name, stage in total["stages"].items():
        assert stage["calls"] == call["stage_calls"][name]
        if name != "other":
            assert stage["cpu_ms_per_call"] == pytest.approx(1000 * TICK)
    assert total["goal_met"] == (total["sim_s_per_cpu_s"] >= 10)
    assert out["stack"] == parts.stack()
    assert out["peak_rss_mib"] >= out["rss_after_engines_mib"] > 0


def test_realtime_calls_to_the_echo_bot_count_every_frame() -> None:
    """Three real-time calls of 2 s through BotCall to the echo bot (its own process): every call
    sent 100 frames (`BotCall.stop_sending(after=100)`), every frame came back echoed and went
    through the VAD, and the report has its fields. No timing is asserted. (The heap is not frozen
    here, to leave the test process as it was; tests/voice/test_bot_call_heap.py tests the freeze.)"""
    out = bench.measure_realtime(3, 2.0, clip="tone", ramp_s=0.1, gc_freeze=False)

    assert out["calls"] == 3 and out["faults"] == []
    assert out["frames_sent"] == 300
    assert out["frames_per_call_min"] == out["frames_per_call_max"] == 100
    assert out["echoes_received"] == out["frames_sent"] and out["calls_missing_echoes"] == 0
    # The bot saw the same frames, echoed each once, and each call's start and stop.
    bot = out["bot"]
    assert (bot["connections"], bot["media_in"], bot["media_out"], bot["stops"]) == (3, out["frames_sent"],
                                                                                   out["frames_sent"], 3)
    assert bot["other_in"] == 3 * 3  # connected, start, stop
    # BotCall's receive loop played each echoed 20 ms frame through the VAD: one flag per frame.
    assert out["vad"]["calls"] == out["vad"]["frames"] == out["frames_sent"]
    assert 0 < out["vad"]["speech_frames"] < out["vad"]["frames"]  # the tones, and the silence after them
    assert out["cadence"]["frames"] == out["frames_sent"]
    assert set(out["cadence"]) == {"frames", "late", "lateness_p50_ms", "lateness_p99_ms", "lateness_max_ms",
                                   "jitter_p50_ms", "jitter_p99_ms"}
    assert out["gc_freeze"] is False and set(out["gc_pauses"]) == {"gen0", "gen1", "gen2"}
    for key in ("goal_met", "cpu_s", "wall_s", "cpu_s_per_call_minute", "peak_rss_mib", "warm_up_s"):
        assert key in out
    assert out["bot"]["cpu_s"] > 0 and out["peak_rss_mib"] > 0
