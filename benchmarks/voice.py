"""Voice calls (issue 29): simulated call seconds per CPU second, CPU per call-minute by stage, peak memory.

N cascade calls of the demo suite with the demo agents, run in this process one after another through
the use case `polygon run --channel voice` runs for each conversation (`usecases.simulate_async`: the
call's line from the run's manifest, the turn loop on the call's clock, the stereo WAV and timeline
stored before the transcript, the conversation's row) on the offline stack (eSpeak NG, Whisper tiny.en
on faster-whisper, WebRTC VAD), in a temporary POLYGON_HOME (SQLite, local artifacts). Not measured:
the judge, the probes, the scorecard and Prefect (`throughput.py` measures those for text runs).

    .venv/bin/python benchmarks/voice.py --calls 12,6 --conditions phone,street [--json] [--keep]

Calls are chosen in a fixed order, per conditions: seed 0, 1, ...; per seed agent v1 then v2; per
agent the suite's six scenarios in file order (`--calls 6` is agent v1 on every scenario at seed 0,
`--calls 12` adds agent v2). `--calls` is one count for every conditions or one per conditions.

Stages, each the CPU of the calls into it: `synthesis` (the caller's and the agent's Synthesizer),
`conditions` (`CallLine._degrade`: noise, room sounds, frame drops, muffling and the codec on the
caller's line; `CallLine._on_line`: the agent's voice and the caller's asides resampled to the line
and through its codec), `vad` (VoiceActivity on every piece of audio), `recognition` (the agent's
Recognizer, including its resampling to 16 kHz), `store` (`close_line`: the call's WAV, timeline,
interaction metrics and their writes), and `other`, the rest of each call's CPU: the agent, the
simulated caller, the turn loop, the line's own bookkeeping, the transcript, checks and row. The
engines are wrapped in proxies with the same attributes, and the line is a subclass that times its
two signal methods; the use case builds them as usual (`call_parts` and `CallLine` are swapped in
`polygon.usecases._call_line` for the run, `close_line` in `_simulate`).

The clock is `time.process_time()`, the CPU of every thread of this process, read around each call
into a stage; `time.thread_time()` would be wrong. The line calls the engines through
`asyncio.to_thread`, and faster-whisper decodes in CTranslate2's own worker thread while the calling
thread waits: on this machine a 5.6 s sentence took 0.6-1.0 s of process CPU to transcribe and
0.006-0.013 s of the calling thread's. Process CPU is attributable to a stage only because nothing
else runs meanwhile: calls run one at a time, a call awaits each engine call before the next, and the
stores are opened without the batched writer's thread (`open_stores`). A stage entered inside another
(the office preset's babble is synthesised inside `_degrade`) is charged to the inner stage only.

Ratios, all from the one run: simulated s per CPU s = the calls' timeline durations / their CPU (the
issue's goal: at least 10, i.e. ten times faster than real time on one core); CPU s per call-minute
per stage = the stage's CPU / (simulated s / 60); share = the stage's CPU / all the calls' CPU. Peak
memory is this process's peak RSS (`ru_maxrss`), also read once the engines are loaded (before the
first call; their loading CPU is reported apart and not in the calls').

`--realtime N` (issue 30) measures real-time calls instead: N concurrent calls of `--seconds` each on
one event loop, each a `BotCall` (the real `TwilioTransport`, its `PacedSender` send loop, its receive
loop decoding the bot's audio and running the WebRTC VAD on it) to a local echo bot in its own
process (`echo_bot.py`). The caller says one pre-rendered line (eSpeak, or `--clip tone`), silence for
`--gap-s`, the line again, through `BotCall.caller_spoke` (synthesis and recognition replaced by the
clip and deaf ears: no speech engine runs). After `--seconds` of frames each call's stream stops
(`BotCall.stop_sending`), the echoes on their way are awaited, and it hangs up. Before the calls the
heap is frozen as `polygon run` freezes it once its first call has dialled
(`freeze_after_first_dial`; `--no-gc-freeze` to measure without). Reported: the outgoing cadence
of every call pooled (`cadence` over `BotCall.frame_times`: jitter = |gap between consecutive frames
- 20 ms|, p50 and p99; a frame is late when it left more than 20 ms, one period, after its
deadline), frames and echoes, the VAD's frames, this process's CPU (every thread) and the bot's,
peak RSS, and the garbage collector's pauses.

    .venv/bin/python benchmarks/voice.py --realtime 50 --seconds 60 [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import os
import platform
import resource
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from unittest import mock

from polygon_core.demo import demo_dir
from polygon_core.voice import Audio, CallLine, CallParts, Transcript, VoiceProfile

ENGINE_STAGES = ("synthesis", "conditions", "vad", "recognition")
STAGES = (*ENGINE_STAGES, "store", "other")
GOAL_SIM_PER_CPU = 10.0
AGENTS = ("v1", "v2")
Clock = Callable[[], float]


class StageClock:
    """Exclusive CPU per stage on one clock: a stage entered inside another pauses the outer one.

    Stages may be entered from any thread, but one at a time (plus nesting): the benchmark's calls
    run one after another, so the process clock between entry and exit is the stage's."""

    def __init__(self, clock: Clock = time.process_time) -> None:
        self.clock = clock
        self.cpu: dict[str, float] = dict.fromkeys(STAGES, 0.0)
        self.calls: dict[str, int] = dict.fromkeys(STAGES, 0)
        self._open: list[str] = []
        self._mark = 0.0
        self._lock = threading.Lock()

    def _charge(self) -> None:
        now = self.clock()
        if self._open:
            self.cpu[self._open[-1]] += now - self._mark
        self._mark = now

    @contextlib.contextmanager
    def stage(self, name: str) -> Iterator[None]:
        """Charge the CPU spent inside the block to `name` (less any stage entered inside it)."""
        with self._lock:
            self._charge()
            self._open.append(name)
            self.calls[name] += 1
        try:
            yield
        finally:
            with self._lock:
                self._charge()
                self._open.pop()

    def timed(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        """`fn` with its calls charged to `name`."""
        @functools.wraps(fn)
        def call(*args: Any, **kwargs: Any) -> Any:
            with self.stage(name):
                return fn(*args, **kwargs)
        return call


class _TimedSynthesizer:
    def __init__(self, inner: Any, stages: StageClock) -> None:
        self.inner, self.stages, self.name, self.model = inner, stages, inner.name, inner.model

    def synthesize(self, text: str, voice: VoiceProfile, language: str) -> Audio:
        with self.stages.stage("synthesis"):
            return self.inner.synthesize(text, voice, language)


class _TimedRecognizer:
    def __init__(self, inner: Any, stages: StageClock) -> None:
        self.inner, self.stages, self.name, self.model = inner, stages, inner.name, inner.model

    def transcribe(self, audio: Audio, language: str) -> Transcript:
        with self.stages.stage("recognition"):
            return self.inner.transcribe(audio, language)


class _TimedVad:
    def __init__(self, inner: Any, stages: StageClock) -> None:
        self.inner, self.stages, self.name, self.frame_ms = inner, stages, inner.name, inner.frame_ms

    def speech_frames(self, audio: Audio) -> list[bool]:
        with self.stages.stage("vad"):
            return self.inner.speech_frames(audio)


def timed_parts(parts: CallParts, stages: StageClock) -> CallParts:
    """The same engines behind proxies that charge their calls to their stage."""
    return CallParts(caller_voice=_TimedSynthesizer(parts.caller_voice, stages),
                     agent_voice=_TimedSynthesizer(parts.agent_voice, stages),
                     agent_ears=_TimedRecognizer(parts.agent_ears, stages), vad=_TimedVad(parts.vad, stages))


class TimedLine(CallLine):
    """A `CallLine` whose conditions (`_degrade`, `_on_line`) are charged to the `conditions` stage
    (`stages`, set by `timed_line`)."""

    stages: StageClock | None = None

    def _degrade(self, audio: Audio, turn: int) -> Any:
        assert self.stages is not None
        with self.stages.stage("conditions"):
            return super()._degrade(audio, turn)

    def _on_line(self, audio: Audio) -> Audio:
        assert self.stages is not None
        with self.stages.stage("conditions"):
            return super()._on_line(audio)


def timed_line(stages: StageClock) -> Callable[..., CallLine]:
    """Builds `TimedLine`s as `CallLine(...)` builds lines, charging `stages`."""
    def build(**kwargs: Any) -> CallLine:
        line = TimedLine(**kwargs)
        line.stages = stages
        return line
    return build


@dataclass(frozen=True)
class CallSpec:
    """One call to run: its conditions (`NAME` or `NAME@INTENSITY`), demo agent, scenario and seed."""

    conditions: str
    agent: str
    scenario: str
    seed: int


def choose_calls(conditions: Sequence[str], counts: Sequence[int], scenarios: Sequence[str]) -> list[CallSpec]:
    """The first `count` calls of each conditions in the fixed order (module docstring)."""
    chosen: list[CallSpec] = []
    for name, count in zip(conditions, counts, strict=True):
        order = (CallSpec(name, agent, scenario, seed)
                 for seed in range(count) for agent in AGENTS for scenario in scenarios)
        chosen += [spec for _, spec in zip(range(count), order, strict=False)]
    return chosen


@dataclass
class CallResult:
    """One call's figures: its simulated length and its CPU, all in and by stage."""

    spec: CallSpec
    turns: int
    end_reason: str
    simulated_s: float
    cpu_s: float
    stages: dict[str, float] = field(default_factory=dict)
    stage_calls: dict[str, int] = field(default_factory=dict)  # calls into each stage ("other": none)
    peak_rss_mib: float = 0.0  # the process's peak so far, after this call


def _rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def _run_id(spec: CallSpec) -> str:
    return f"voice-bench-{spec.conditions.replace('@', '-at-')}-{spec.agent}"


async def _run_calls(stores: Any, specs: Sequence[CallSpec], stages: StageClock, suite: str) -> list[CallResult]:
    from polygon import usecases
    from polygon.usecases._simulate import simulate_async

    runs: dict[str, Any] = {}
    for spec in specs:  # one run per conditions and agent, as `polygon run` would make
        rid = _run_id(spec)
        if rid in runs:
            continue
        mine = [s for s in specs if _run_id(s) == rid]
        agent = str(demo_dir() / "agents" / f"agent_{spec.agent}.yaml")
        run = usecases.new_run(agent, suite, seeds=sorted({s.seed for s in mine}), run_id=rid, roles={},
                               settings=stores.settings, caches=stores.caches)
        line = usecases.LineRequest(channel="voice", conditions=usecases.parse_conditions(spec.conditions))
        runs[rid] = (usecases.create_run(stores, run, suite_path=suite, agent_path=agent, line=line,
                                         scenarios=sorted({s.scenario for s in mine})), agent)
    results: list[CallResult] = []
    for spec in specs:
        run, agent = runs[_run_id(spec)]
        before, calls_before = dict(stages.cpu), dict(stages.calls)
        start = stages.clock()
        sim = await simulate_async(stores, run.id, suite, agent, spec.scenario, spec.seed, run=run)
        cpu = stages.clock() - start
        conv = sim.conversation
        if conv is None or conv.voice is None:
            raise RuntimeError(f"call {spec} was not simulated as a call (stored before, or not on the line)")
        by_stage = {s: stages.cpu[s] - before[s] for s in STAGES if s != "other"}
        by_stage["other"] = cpu - sum(by_stage.values())
        results.append(CallResult(spec, len(conv.turns), conv.end_reason.value, conv.voice.duration_ms / 1000,
                                  cpu, by_stage, {s: stages.calls[s] - calls_before[s] for s in STAGES},
                                  _rss_mib()))
    return results


def measure(specs: Sequence[CallSpec], home: Path, *, clock: Clock = time.process_time,
            parts: Callable[[], CallParts] | None = None) -> dict[str, Any]:
    """Run `specs` as calls in `home` (a POLYGON_HOME) and return the report (`report`).

    `parts` replaces the offline engines (tests); by default they are the use case's own
    (`call_parts`), loaded before the first call and timed apart."""
    from polygon import usecases
    from polygon.usecases import _call_line, _simulate
    from polygon_core.adapters.settings import load_settings
    from polygon_core.models import CascadeSettings

    stores = usecases.open_stores(load_settings(home=home))
    stages = StageClock(clock)
    suite = str(demo_dir() / "suite")
    real_parts = _call_line.call_parts
    load_start = clock()
    # The engines the demo agents' calls use (no `voice:` in their configs: the default cascade).
    loaded = real_parts(stores.settings, CascadeSettings(), language="en", stt_model=None) if parts is None \
        else parts()
    load_cpu = clock() - load_start
    rss_loaded = _rss_mib()

    def engines(*args: Any, **kwargs: Any) -> CallParts:
        return timed_parts(real_parts(*args, **kwargs) if parts is None else loaded, stages)

    with mock.patch.object(_call_line, "call_parts", engines), \
            mock.patch.object(_call_line, "CallLine", timed_line(stages)), \
            mock.patch.object(_simulate, "close_line", stages.timed("store", _simulate.close_line)):
        results = asyncio.run(_run_calls(stores, specs, stages, suite))
    return report(results, stack=loaded.stack(), load_cpu_s=load_cpu, rss_loaded_mib=rss_loaded,
                  peak_rss_mib=_rss_mib())


def summary(results: Sequence[CallResult]) -> dict[str, Any]:
    """Calls, simulated and CPU seconds, simulated s per CPU s, and per stage: CPU s, CPU s per
    call-minute and share of the calls' CPU."""
    sim = sum(r.simulated_s for r in results)
    cpu = sum(r.cpu_s for r in results)
    stages = {}
    for name in STAGES:
        spent = sum(r.stages[name] for r in results)
        entered = sum(r.stage_calls[name] for r in results)
        stages[name] = {"cpu_s": spent, "cpu_s_per_call_minute": spent / (sim / 60) if sim else None,
                        "share": spent / cpu if cpu else None, "calls": entered,
                        "cpu_ms_per_call": 1000 * spent / entered if entered else None}
    return {"calls": len(results), "turns": sum(r.turns for r in results), "simulated_s": sim, "cpu_s": cpu,
            "sim_s_per_cpu_s": sim / cpu if cpu else None,
            "cpu_s_per_call_minute": cpu / (sim / 60) if sim else None,
            "goal_met": bool(cpu and sim / cpu >= GOAL_SIM_PER_CPU), "stages": stages}


def report(results: Sequence[CallResult], *, stack: dict[str, str], load_cpu_s: float, rss_loaded_mib: float,
           peak_rss_mib: float) -> dict[str, Any]:
    """The benchmark's report: per conditions and over all calls, and each call."""
    groups = {name: summary([r for r in results if r.spec.conditions == name])
              for name in dict.fromkeys(r.spec.conditions for r in results)}
    return {"goal_sim_s_per_cpu_s": GOAL_SIM_PER_CPU, "stack": stack, "engines_load_cpu_s": load_cpu_s,
            "rss_after_engines_mib": rss_loaded_mib, "peak_rss_mib": peak_rss_mib,
            "by_conditions": groups, "all": summary(results),
            "calls": [{"conditions": r.spec.conditions, "agent": r.spec.agent, "scenario": r.spec.scenario,
                       "seed": r.spec.seed, "turns": r.turns, "end_reason": r.end_reason,
                       "simulated_s": r.simulated_s, "cpu_s": r.cpu_s,
                       "sim_s_per_cpu_s": r.simulated_s / r.cpu_s if r.cpu_s else None,
                       "stages": r.stages, "stage_calls": r.stage_calls, "peak_rss_mib": r.peak_rss_mib}
                      for r in results]}


def _table(out: dict[str, Any]) -> str:
    cols = {**out["by_conditions"], **({"all": out["all"]} if len(out["by_conditions"]) > 1 else {})}
    width = max(13, *(len(c) + 2 for c in cols))

    def row(label: str, values: list[str]) -> str:
        return f"{label:<34}" + "".join(f"{v:>{width}}" for v in values)

    lines = [row("", list(cols)),
             row("calls (turns)", [f"{g['calls']} ({g['turns']})" for g in cols.values()]),
             row("simulated s", [f"{g['simulated_s']:.1f}" for g in cols.values()]),
             row("CPU s", [f"{g['cpu_s']:.1f}" for g in cols.values()]),
             row(f"simulated s per CPU s (goal >= {GOAL_SIM_PER_CPU:g})",
                 [f"{g['sim_s_per_cpu_s']:.2f}" for g in cols.values()]),
             row("CPU s per call-minute", [f"{g['cpu_s_per_call_minute']:.2f}" for g in cols.values()])]
    for name in STAGES:
        lines.append(row(f"  {name} (share)", [f"{g['stages'][name]['cpu_s_per_call_minute']:.2f} "
                                               f"({g['stages'][name]['share']:.0%})" for g in cols.values()]))
    lines.append(row("CPU ms per engine call", []))
    for name in ENGINE_STAGES:
        lines.append(row(f"  {name} (calls)", [f"{g['stages'][name]['cpu_ms_per_call']:.1f} "
                                               f"({g['stages'][name]['calls']})" for g in cols.values()]))
    lines += ["", f"engines: {', '.join(f'{k} {v}' for k, v in out['stack'].items())}",
              f"engine loading: {out['engines_load_cpu_s']:.2f} CPU s (not in the calls'); "
              f"peak RSS {out['rss_after_engines_mib']:.0f} MiB after loading, {out['peak_rss_mib']:.0f} MiB at the end",
              f"machine: {out['machine']['cpus']} CPUs ({out['machine']['cpu']}), load average {out['machine']['load_before']} before, "
              f"{out['machine']['load_after']} after; {out['date']}"]
    return "\n".join(lines)


# --- real-time calls (issue 30) -----------------------------------------------------------------

REALTIME_GOAL_JITTER_P99_MS = 20.0
ECHO_BOT = Path(__file__).resolve().parent / "echo_bot.py"
CALLER_LINE = "Hello, I would like to change the address on my account, please."


class CannedVoice:
    """A Synthesizer that says one pre-rendered clip whatever the text: the caller's lines cost no
    synthesis during the measured calls."""

    name, model = "canned", "1"

    def __init__(self, clip: Audio) -> None:
        self.clip = clip

    def synthesize(self, text: str, voice: VoiceProfile, language: str) -> Audio:
        return self.clip


class DeafEars:
    """A Recognizer that hears nothing: no recognition runs during the measured calls."""

    name, model = "none", "0"

    def transcribe(self, audio: Audio, language: str) -> Transcript:
        return Transcript("")


class CountingVad:
    """The call's VAD, counting what it reads: the calls to it, the frames and the speech frames."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.name, self.frame_ms = inner, inner.name, inner.frame_ms
        self.calls = self.frames = self.speech = 0

    def speech_frames(self, audio: Audio) -> list[bool]:
        flags: list[bool] = self.inner.speech_frames(audio)
        self.calls, self.frames, self.speech = self.calls + 1, self.frames + len(flags), self.speech + sum(flags)
        return flags


def tone_clip(words: int = 8, rate: int = 16_000) -> Audio:
    """A line of `words` 300 ms tones (200-1,100 Hz), 100 ms apart: speech-like bursts, no engine."""
    import numpy as np

    t = np.arange(rate * 3 // 10) / rate
    gap = np.zeros(rate // 10, dtype=np.float32)
    parts = [piece for k in range(words)
             for piece in ((0.5 * np.sin(2 * np.pi * (200 + 130 * k) * t)).astype(np.float32), gap)]
    return Audio(np.concatenate(parts), rate)


def espeak_clip(text: str = CALLER_LINE) -> Audio:
    """`text` in eSpeak NG's voice, rendered once (the offline stack's caller voice)."""
    from polygon_core.adapters.settings import PolygonSettings
    from polygon_core.adapters.speech import make_synthesizer

    return make_synthesizer("espeak", PolygonSettings(), "en").synthesize(text, VoiceProfile(), "en")


@dataclass
class EchoBot:
    """The echo bot (benchmarks/echo_bot.py) in a process of its own."""

    delay_ms: float = 0.0
    url: str = ""
    counts: dict[str, Any] = field(default_factory=dict)
    _proc: Any = None

    def __enter__(self) -> EchoBot:
        import subprocess

        self._proc = subprocess.Popen([sys.executable, str(ECHO_BOT), "--delay-ms", str(self.delay_ms)],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.url = self._proc.stdout.readline().strip()
        if not self.url.startswith("ws://"):
            self._proc.kill()
            raise RuntimeError(f"the echo bot did not start (said {self.url!r})")
        return self

    def __exit__(self, *_: object) -> None:
        out, _err = self._proc.communicate(timeout=30)  # closes its stdin: it prints its counts and exits
        lines = out.strip().splitlines()
        self.counts = json.loads(lines[-1]) if lines else {}


class GcPauses:
    """The garbage collector's pauses while the calls run, per generation (count, total and
    longest ms): a pause stops the event loop, every call's frames with it."""

    def __init__(self) -> None:
        self.pauses: dict[int, list[float]] = {0: [], 1: [], 2: []}
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.pauses[info["generation"]].append((time.perf_counter() - self._started) * 1000)

    @contextlib.contextmanager
    def watching(self) -> Iterator[GcPauses]:
        import gc

        gc.callbacks.append(self)
        try:
            yield self
        finally:
            gc.callbacks.remove(self)

    def summary(self) -> dict[str, dict[str, float]]:
        return {f"gen{g}": {"count": len(p), "total_ms": sum(p), "max_ms": max(p, default=0.0)}
                for g, p in self.pauses.items()}


@dataclass
class RealtimeCall:
    """One call's figures: its frames' send times, the echoes received, how it ended."""

    index: int
    times: Any  # FrameTimes
    sent: int
    received: int
    fault: str | None


def _phase_delay(index: int, calls: int, ramp_s: float) -> float:
    """When call `index` dials: spread over `ramp_s`, each on its own phase of the 20 ms cadence
    (golden-ratio steps), as calls that arrive at random moments are; never all on one tick."""
    from polygon_core.adapters.transports import FRAME_PERIOD_S

    return ramp_s * index / calls + (index * 0.6180339887 % 1.0) * FRAME_PERIOD_S


async def _talk(call: Any, gap_s: float) -> None:
    """The caller: its line, silence for `gap_s` (the send loop streams silence frames), again."""
    turn = 0
    while True:
        await call.caller_spoke(turn, CALLER_LINE)
        turn += 1
        await asyncio.sleep(gap_s)


async def _realtime_call(index: int, url: str, parts: CallParts, seconds: float, gap_s: float,
                         delay_s: float) -> RealtimeCall:
    """One call through `BotCall`: dial (the real `TwilioTransport`), its send loop (`PacedSender`)
    streaming the caller's lines and the silence between, its receive loop playing the echoed audio
    through the VAD; after `seconds` of frames the send loop stops, the echoes still on the way are
    awaited, and the call hangs up."""
    from polygon_core.adapters.transports import FRAME_PERIOD_S, TwilioTransport
    from polygon_core.adapters.voice_bot._call import BotCall
    from polygon_core.models import LineConditions

    await asyncio.sleep(delay_s)
    transport = TwilioTransport()
    call = BotCall(transport=transport, url=url, route=None, parts=parts, conversation_id=f"realtime-{index}",
                   scenario_id="echo", seed=index, caller_type="neutral", language="en",
                   conditions=LineConditions())
    frames = round(seconds / FRAME_PERIOD_S)
    async with asyncio.timeout(seconds + 60), call:  # a hang guard: a stuck call fails, not the run
        talking = asyncio.create_task(_talk(call, gap_s))
        await call.stop_sending(after=frames)
        talking.cancel()
        await asyncio.wait([talking])  # (not `await` under suppress(CancelledError): the hang guard's cancel would be lost)
        # The echoes of the last frames are on their way: wait for them (a guard, not a timing).
        async with asyncio.timeout(10):
            while transport.received < call.frames_sent and not call.closed:
                await asyncio.sleep(FRAME_PERIOD_S)
        times = call.frame_times
        assert times is not None
        return RealtimeCall(index, times, call.frames_sent, transport.received,
                            str(call.fault) if call.fault is not None else None)


def warm_up(parts: CallParts, audio: Audio) -> float:
    """What a call does first, once, before the calls (seconds it took): the imports it makes on
    first use (SciPy's signal module for the resampling of the caller's line, ~1 s; the
    `websockets` client) would otherwise stall every stream on the loop at once, as they do in a
    fresh process (`--cold` measures that)."""
    from websockets.asyncio.client import connect  # noqa: F401  (the import is the point)

    from polygon_core.models import LineConditions
    from polygon_core.voice import caller_frames, degrade, mulaw_decode

    start = time.perf_counter()
    line, _ = degrade(audio, LineConditions(), conversation_id="warm-up", turn=0)
    frames = caller_frames(line)
    getattr(parts.vad, "inner", parts.vad).speech_frames(mulaw_decode(frames[0], 8000))
    return time.perf_counter() - start


def measure_realtime(calls: int, seconds: float, *, clip: str = "espeak", gap_s: float = 1.5,
                     ramp_s: float = 1.0, echo_delay_ms: float = 0.0, cold: bool = False,
                     gc_freeze: bool = True) -> dict[str, Any]:
    """`calls` concurrent real-time calls of `seconds` each to a local echo bot, on one event loop;
    the report (`realtime_report`). `cold`: no `warm_up` first; `gc_freeze`: freeze the heap before
    the calls as `polygon run` does once its first call has dialled (`freeze_after_first_dial`);
    False measures the calls without it."""
    from polygon.usecases._call_line import freeze_after_first_dial
    from polygon_core.adapters.speech import make_vad

    audio = tone_clip() if clip == "tone" else espeak_clip()
    vad = CountingVad(make_vad("webrtc"))
    parts = CallParts(caller_voice=CannedVoice(audio), agent_voice=CannedVoice(audio), agent_ears=DeafEars(),
                      vad=vad)
    warm_s = None if cold else warm_up(parts, audio)

    async def run(url: str) -> list[RealtimeCall]:
        if gc_freeze:
            await freeze_after_first_dial()
        return list(await asyncio.gather(*(_realtime_call(i, url, parts, seconds, gap_s,
                                                          _phase_delay(i, calls, ramp_s))
                                           for i in range(calls))))

    with EchoBot(echo_delay_ms) as bot, GcPauses().watching() as gc_pauses:
        cpu0, wall0 = time.process_time(), time.perf_counter()
        results = asyncio.run(run(bot.url))
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    return realtime_report(results, seconds=seconds, clip=clip, clip_s=audio.duration_ms / 1000, gap_s=gap_s,
                           cpu_s=cpu, wall_s=wall, vad=vad, bot=bot.counts, peak_rss_mib=_rss_mib(),
                           warm_up_s=warm_s, gc_pauses=gc_pauses.summary(), gc_freeze=gc_freeze)


def realtime_report(results: Sequence[RealtimeCall], *, seconds: float, clip: str, clip_s: float, gap_s: float,
                    cpu_s: float, wall_s: float, vad: CountingVad, bot: dict[str, Any],
                    peak_rss_mib: float, warm_up_s: float | None = None,
                    gc_pauses: dict[str, dict[str, float]] | None = None,
                    gc_freeze: bool = True) -> dict[str, Any]:
    """The outgoing cadence pooled over every call (`cadence`: jitter is |gap between consecutive
    frames - 20 ms|; a frame is late when it left more than 20 ms after its deadline), the frames
    and echoes per call, the CPU (this process, every thread) and the echo bot's, peak RSS."""
    from dataclasses import asdict

    from polygon_core.adapters.transports import cadence

    c = cadence(r.times for r in results)
    sent = [r.sent for r in results]
    call_s = sum(sent) * 0.02
    return {"calls": len(results), "seconds": seconds, "clip": clip, "clip_s": clip_s, "gap_s": gap_s,
            "warm_up_s": warm_up_s,
            "frames_sent": sum(sent), "frames_per_call_min": min(sent, default=0),
            "frames_per_call_max": max(sent, default=0), "echoes_received": sum(r.received for r in results),
            "calls_missing_echoes": sum(r.received != r.sent for r in results),
            "faults": [r.fault for r in results if r.fault], "cadence": asdict(c),
            "goal_jitter_p99_ms": REALTIME_GOAL_JITTER_P99_MS,
            "goal_met": bool(results) and c.jitter_p99_ms < REALTIME_GOAL_JITTER_P99_MS and c.late == 0,
            "vad": {"calls": vad.calls, "frames": vad.frames, "speech_frames": vad.speech},
            "cpu_s": cpu_s, "wall_s": wall_s, "cpu_share_of_one_core": cpu_s / wall_s if wall_s else None,
            "cpu_s_per_call_minute": cpu_s / (call_s / 60) if call_s else None,
            "peak_rss_mib": peak_rss_mib, "bot": bot, "gc_freeze": gc_freeze,
            "gc_pauses": gc_pauses or {}}


def _realtime_table(out: dict[str, Any]) -> str:
    c, m = out["cadence"], out["machine"]
    rows = [("calls x seconds", f"{out['calls']} x {out['seconds']:g} s ({out['clip']} line {out['clip_s']:.1f} s, "
                                f"{out['gap_s']:g} s silence)"),
            ("warm-up before the calls", "none (--cold)" if out["warm_up_s"] is None else f"{out['warm_up_s']:.2f} s"),
            ("frames sent (per call)", f"{out['frames_sent']} ({out['frames_per_call_min']}-{out['frames_per_call_max']})"),
            ("echoes received", f"{out['echoes_received']} (calls missing some: {out['calls_missing_echoes']})"),
            ("jitter p50 / p99 ms", f"{c['jitter_p50_ms']:.2f} / {c['jitter_p99_ms']:.2f} "
                                    f"(goal p99 < {out['goal_jitter_p99_ms']:g})"),
            ("lateness p50 / p99 / max ms", f"{c['lateness_p50_ms']:.2f} / {c['lateness_p99_ms']:.2f} / "
                                            f"{c['lateness_max_ms']:.2f}"),
            ("late frames (> 20 ms after deadline)", f"{c['late']} of {c['frames']}"),
            ("goal met", "yes" if out["goal_met"] else "no"),
            ("VAD frames (speech)", f"{out['vad']['frames']} ({out['vad']['speech_frames']})"),
            ("Polygon CPU s (share of one core)", f"{out['cpu_s']:.1f} ({out['cpu_share_of_one_core']:.0%})"),
            ("CPU s per call-minute", f"{out['cpu_s_per_call_minute']:.3f}"),
            ("echo bot CPU s", f"{out['bot'].get('cpu_s', float('nan')):.1f}"),
            ("peak RSS MiB (Polygon / bot)", f"{out['peak_rss_mib']:.0f} / {out['bot'].get('peak_rss_mib', 0):.0f}"),
            ("faults", str(len(out["faults"]))),
            *((f"GC gen{g} pauses: n / total / max ms", f"{p['count']} / {p['total_ms']:.0f} / {p['max_ms']:.1f}")
              for g, p in enumerate(out["gc_pauses"].values())),
            ("heap frozen before the calls", "yes (as polygon run)" if out["gc_freeze"] else "no (--no-gc-freeze)"),
            ("machine", f"{m['cpus']} CPUs ({m['cpu']}), load {m['load_before']} before, {m['load_after']} after"),
            ("date", out["date"])]
    return "\n".join(f"{label:<38}{value}" for label, value in rows)


def _cpu_model() -> str:
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.partition(":")[2].strip()
    return platform.processor() or platform.machine()


def _counts(text: str, n: int) -> list[int]:
    try:
        counts = [int(c) for c in text.split(",")]
    except ValueError:
        counts = []
    if len(counts) == 1:
        counts *= n
    if len(counts) != n or min(counts) < 1:
        raise ValueError(f"--calls {text!r}: expected one count of at least 1, or one per conditions ({n})")
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", default="12,6", help="calls per conditions: N, or N1,N2 (default 12,6)")
    parser.add_argument("--conditions", default="phone,street", help="presets, NAME or NAME@INTENSITY, comma-separated")
    parser.add_argument("--json", action="store_true", help="print the report as one JSON object")
    parser.add_argument("--keep", action="store_true", help="keep the temporary POLYGON_HOME and print where it is")
    live = parser.add_argument_group("real-time calls to a local echo bot (issue 30)")
    live.add_argument("--realtime", type=int, nargs="?", const=50, metavar="N",
                      help="run N concurrent real-time calls instead (default 50)")
    live.add_argument("--seconds", type=float, default=60.0, help="each call's length (default 60)")
    live.add_argument("--clip", choices=("espeak", "tone"), default="espeak", help="the caller's line (default espeak)")
    live.add_argument("--gap-s", type=float, default=1.5, help="silence between the caller's lines (default 1.5)")
    live.add_argument("--ramp-s", type=float, default=1.0, help="the calls dial over this long (default 1)")
    live.add_argument("--echo-delay-ms", type=float, default=0.0, help="the bot echoes each frame this late")
    live.add_argument("--cold", action="store_true", help="no warm-up: the first call's imports happen mid-call")
    live.add_argument("--no-gc-freeze", dest="gc_freeze", action="store_false",
                      help="no gc.freeze() before the calls (polygon run freezes once its first call has dialled)")
    args = parser.parse_args()
    if args.realtime is not None:
        main_realtime(args)
        return
    from polygon import usecases
    from polygon_core.files import load_suite

    conditions = [c.strip() for c in args.conditions.split(",") if c.strip()]
    try:
        for name in conditions:
            usecases.parse_conditions(name)
        counts = _counts(args.calls, len(conditions))
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    scenarios = [s.id for s in load_suite(demo_dir() / "suite").scenarios]
    specs = choose_calls(conditions, counts, scenarios)
    home = Path(tempfile.mkdtemp(prefix="polygon-voice-bench-"))
    load_before = [round(x, 2) for x in os.getloadavg()]
    try:
        out = measure(specs, home)
    finally:
        if args.keep:
            print(f"POLYGON_HOME kept at {home}", file=sys.stderr)
        else:
            shutil.rmtree(home, ignore_errors=True)
    out = {"date": datetime.now(UTC).isoformat(timespec="seconds"), "command": " ".join(sys.argv[1:]),
           "machine": _machine(load_before), **out}
    print(json.dumps(out, indent=2) if args.json else _table(out))


def _machine(load_before: list[float]) -> dict[str, Any]:
    return {"cpus": os.cpu_count(), "cpu": _cpu_model(), "python": platform.python_version(),
            "load_before": load_before, "load_after": [round(x, 2) for x in os.getloadavg()]}


def main_realtime(args: argparse.Namespace) -> None:
    """`--realtime N`: the concurrent calls to the echo bot; a table, or JSON."""
    if args.realtime < 1 or args.seconds <= 0:
        print("error: --realtime N needs N >= 1 and --seconds > 0", file=sys.stderr)
        raise SystemExit(2)
    load_before = [round(x, 2) for x in os.getloadavg()]
    out = measure_realtime(args.realtime, args.seconds, clip=args.clip, gap_s=args.gap_s, ramp_s=args.ramp_s,
                           echo_delay_ms=args.echo_delay_ms, cold=args.cold, gc_freeze=args.gc_freeze)
    out = {"date": datetime.now(UTC).isoformat(timespec="seconds"), "command": " ".join(sys.argv[1:]),
           "machine": _machine(load_before), **out}
    print(json.dumps(out, indent=2) if args.json else _realtime_table(out))


if __name__ == "__main__":
    main()
