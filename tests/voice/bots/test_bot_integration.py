"""Issue #30's acceptance test: Polygon calls the real Pipecat bot (examples/pipecat_bot.py) through
its command line, as a user would, and every part of a call to a deployed bot holds end to end.

One module-wide bench: the fake model server (each scenario's one tool called with valid arguments),
five bots (normal, slow `--delay-ms 2500`, dropping `--drop-after-s 1`, silent `--silent`, and
never-yielding `--never-yield`) and four `polygon run --channel voice` commands, each in its own
POLYGON_HOME: the normal and slow bots over the same three scenarios in one command (two runs, three
calls in flight), then the dropping, the silent and the never-yielding bot on one scenario each, all
three at once. The never-yielding bot greets with a long line (`TALK_OVER_GREETING`, about 21 s) and
its scenario's caller is aggressive with a conversation id whose seeded plan talks over the bot's
turn 0 (its greeting) 2.2 s in (`TALK_OVER`): the barge-in is certain, and the bot talks on. The
tests then read what the commands printed and stored, compare the two runs with `polygon compare`,
and fetch a call's WAV from the web app (and play it in Chromium when it is installed).

The Pipecat bot tells Polygon what it heard of each caller line (its `user` transcript side
message), so the normal bot's caller segments carry the bot's own hearing (`heard_from: agent`).

Integration: its own invocation (`pytest -m integration tests/voice/bots`, which `.ci/run` runs),
a few minutes of real-time calls that the default suite's budget cannot carry.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import wave
from collections.abc import Iterator
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path
from typing import Any

import httpx
import pytest

from polygon_core.demo import demo_dir
from tests.fakes.llm_server import FakeLLMServer
from tests.fakes.served import serving
from tests.voice.bots.conftest import BOT, Bot, _free_port, _wait_listening

pytestmark = [pytest.mark.integration, pytest.mark.bot]

POLYGON = Path(sys.executable).with_name("polygon")
COMMAND_DEADLINE_S = 600  # a hang guard for one `polygon` command, not a measure
SLOW_MS = 2500
# A clean line: the test is about the call's plumbing, and on a loaded machine the bot's Whisper once
# heard nothing in a noisy phone line's first caller turn (its call then failed `silent`).
CONDITIONS = "clean"
CONCURRENCY = 3  # calls in flight: a scenario's three calls to one bot at once

# Each scenario offers the bot one tool, which the fake model calls with valid arguments on the
# caller's first turn: the call reaches the stub, changes its state and raises its event.
ARGUMENTS = {
    "lookup_account": '{"account_id": "4821", "postcode": "SW1A 2AA"}',
    "update_address": '{"street": "1 Mill Lane", "postcode": "M1 3HU"}',
    "issue_refund": '{"amount": 12.5, "reason": "duplicate charge"}',
}
PERSONA = """persona:
  name: {name}
  temperament: calm
  goal: {goal}
  intended_outcome: success
  difficulty: 1
  ground_truth: {{account_id: "4821", postcode: "SW1A 2AA"}}
context:
  customer: {{account_id: "4821", postcode: "SW1A 2AA", name: Dana Whitfield}}
"""
SCENARIOS = {
    "verify-account": ("confirm my account details", "lookup_account",
                       "verified: happened(identity_verified)\n  looked_up: called(lookup_account)"),
    "change-address": ("move the billing address", "update_address",
                       "moved: address_updated(postcode == 'M1 3HU')\n  called_once: count(address_updated) == 1"),
    "refund-charge": ("get a duplicate charge refunded", "issue_refund",
                      "refunded: refund_issued(amount == 12.5)\n  one_refund: count(refund_issued) <= 1"),
}
EXPECTED_CALLS = {"verify-account": ("lookup_account", {"account_id": "4821", "postcode": "SW1A 2AA"}),
                  "change-address": ("update_address", {"street": "1 Mill Lane", "postcode": "M1 3HU"}),
                  "refund-charge": ("issue_refund", {"amount": 12.5, "reason": "duplicate charge"})}
EXPECTED_ASSERTIONS = {"verify-account": {"verified": True, "looked_up": True},
                       "change-address": {"moved": True, "called_once": True},
                       "refund-charge": {"refunded": True, "one_refund": True}}


# The never-yielding bot's call: an aggressive caller (temperament frustrated: barge-in chance 0.5 a
# bot turn) whose conversation id (`talk-over-s0-c8bd884b`, from the scenario id, the persona and
# seed 0) draws a barge-in 2,212 ms into the bot's turn 0 and none in its turns 2, 4 and 6
# (`turn_plan`; `test_the_talk_over_callers_plan_barges_into_the_greeting` pins it). Turn 0 is the
# bot's greeting, about 21 s of speech: the caller talks over it for certain, and it talks on for
# seconds. No other turn is talked over: a barge-in near the natural end of a short answer would
# count as a yield (the bot's speech ends within 2 s of the caller's start), whatever the bot does.
# The bot's answer to the barging line is queued behind the rest of its greeting and streams on
# without a pause, so Polygon reads it as the rest of turn 0 (docs/voice.md, `STREAM_GAP_MS`); the
# caller then says "hello?" into the silence after it and the bot's answer to that is turn 2.
TALK_OVER = "talk-over"
TALK_OVER_PERSONA = PERSONA.replace("temperament: calm", "temperament: frustrated").replace("{name}", "loud_caller")
# About 21 s of speech. The caller's barging line starts when it is ready, not at the decision's
# instant: on a loaded 2-core machine it started 7.1 s into the greeting (Polygon's first Whisper
# load and eSpeak synthesis in the call), and the greeting must still run on 2 s past it.
TALK_OVER_GREETING = ("Northwind customer service. Before we begin, please note that this call may be recorded for "
                      "quality and training purposes. Our privacy notice is available on our website, and you can "
                      "ask for a copy at any time. Our opening hours have changed: we are now open from eight in "
                      "the morning until eight in the evening, seven days a week. How can I help you today?")


def _scenario(sid: str, persona: str = PERSONA) -> str:
    goal, tool, assertions = SCENARIOS["verify-account" if sid == TALK_OVER else sid]
    return (f"id: {sid}\nmax_turns: 3\n" + persona.format(name=sid.replace("-", "_"), goal=goal)
            + f"tools: [{tool}]\nassertions:\n  {assertions}\n")


def write_suite(root: Path, name: str = "suite", scenarios: dict[str, str] | None = None) -> Path:
    """Short scenarios (by default the three of `SCENARIOS`) on the demo suite's tool library, one seed
    each."""
    suite = root / name
    (suite / "scenarios").mkdir(parents=True)
    shutil.copy(demo_dir() / "suite" / "tools.yaml", suite / "tools.yaml")
    (suite / "suite.yaml").write_text("name: bot-integration\nrubric: v1\nseeds: [0]\n", encoding="utf-8")
    for sid, text in (scenarios or {sid: _scenario(sid) for sid in SCENARIOS}).items():
        (suite / "scenarios" / f"{sid}.yaml").write_text(text, encoding="utf-8")
    return suite


@dataclass(frozen=True)
class Done:
    """A finished `polygon` command: its POLYGON_HOME, exit code and output."""

    home: Path
    code: int
    out: str
    err: str


@dataclass(frozen=True)
class Bench:
    """What the module's three commands left behind, and the bots they called."""

    root: Path
    suite: Path
    bots: dict[str, Bot]
    calls: Done       # the normal and the slow bot: two runs of three calls
    dropped: Done     # the bot that drops the line
    silent: Done      # the bot that never speaks
    talked_over: Done  # the bot that never yields, talked over by the caller
    env: dict[str, str]

    def polygon(self, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
        """A `polygon` command on `home`, as a user runs it."""
        return subprocess.run([str(POLYGON), *args], env={**self.env, "POLYGON_HOME": str(home)}, cwd=self.root,
                              capture_output=True, text=True, check=False, timeout=COMMAND_DEADLINE_S)

    def logs(self) -> str:
        return "\n".join(f"--- {name}:\n{bot.log_tail(15)}" for name, bot in self.bots.items())


def _start_bots(root: Path, llm: FakeLLMServer, variants: dict[str, tuple[str, ...]]) -> dict[str, Bot]:
    """Every variant at once (their imports take seconds each), then wait until each listens."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    env.update(POLYGON_HOME=str(root / ".bot-home"), HF_HUB_OFFLINE="1")
    bots, ports = {}, {}
    for name, flags in variants.items():
        port = ports[name] = _free_port()
        log = root / f"bot-{name}.log"
        command = [sys.executable, str(BOT), "--port", str(port), "--llm-base-url", llm.openai_url,
                   "--llm-api-key", "test", "--model", "fake-model", "--log-level", "DEBUG", *flags]
        with log.open("wb") as out:
            process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=root)
        bots[name] = Bot(f"ws://127.0.0.1:{port}/ws", process, log)
    for name, bot in bots.items():
        _wait_listening(bot, ports[name])
    return bots


def _stop(bots: dict[str, Bot]) -> None:
    for bot in bots.values():
        bot.process.terminate()
    for bot in bots.values():
        try:
            bot.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            bot.process.kill()
            bot.process.wait()


def _agent(root: Path, name: str, bot: Bot) -> Path:
    path = root / f"{name}.yaml"
    path.write_text(f"name: {name}\nvoice: {{url: '{bot.url}'}}\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def bench(prefect_harness: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bench]:
    from prefect.settings import get_current_settings

    root = tmp_path_factory.mktemp("bot-integration")
    suite = write_suite(root)
    talk_over = write_suite(root, "suite-talk-over", {TALK_OVER: _scenario(TALK_OVER, TALK_OVER_PERSONA)})
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("OPENAI_") and k not in ("POLYGON_DATABASE_URL", "POLYGON_ARTIFACTS_URL",
                                                        "POLYGON_API_TOKENS", "POLYGON_CONCURRENCY")}
    # One Prefect API for every command (the session's test server), no model hub.
    env.update(PREFECT_API_URL=str(get_current_settings().api.url), HF_HUB_OFFLINE="1")
    with FakeLLMServer() as llm:
        llm.behaviour.tool_call = True
        llm.behaviour.tool_arguments = ARGUMENTS
        bots = _start_bots(root, llm, {"normal": (), "slow": ("--delay-ms", str(SLOW_MS)),
                                       "dropping": ("--drop-after-s", "1"), "silent": ("--silent",),
                                       "never-yield": ("--never-yield", "--greeting", TALK_OVER_GREETING)})
        try:
            agents = {name: _agent(root, name, bot) for name, bot in bots.items()}
            # The calls first, three in flight; then the two failing bots and the never-yielding one
            # together. All at once, the bots' start of call (a Whisper model loaded per call, the
            # greeting synthesised) took over 15 s on this 2-core machine, and Polygon hung up on a
            # bot that had not spoken yet.
            done = _run_all(root, env, {"calls": [str(suite),
                "--agent", str(agents["normal"]), "--agent", str(agents["slow"]), "--concurrency", str(CONCURRENCY),
                "--run-id", "bots"]})
            done |= _run_all(root, env, {
                "dropped": [str(suite), "--agent", str(agents["dropping"]), "--scenario", "verify-account",
                            "--run-id", "dropped"],
                "silent": [str(suite), "--agent", str(agents["silent"]), "--scenario", "verify-account",
                           "--run-id", "silent"],
                "talked_over": [str(talk_over), "--agent", str(agents["never-yield"]), "--run-id", "talked-over"]})
            yield Bench(root, suite, bots, done["calls"], done["dropped"], done["silent"], done["talked_over"], env)
        finally:
            _stop(bots)


def _run_all(root: Path, env: dict[str, str], jobs: dict[str, list[str]]) -> dict[str, Done]:
    """`polygon run SUITE --channel voice ...` for every job (its suite, then its options) at once, each
    in its own POLYGON_HOME; a command still running past the deadline is killed (a hang guard)."""
    started = {name: subprocess.Popen(
        [str(POLYGON), "run", args[0], "--channel", "voice", "--conditions", CONDITIONS, "--json", *args[1:]],
        env={**env, "POLYGON_HOME": str(root / name)}, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True) for name, args in jobs.items()}
    done = {}
    try:
        for name, process in started.items():
            out, err = process.communicate(timeout=COMMAND_DEADLINE_S)
            done[name] = Done(root / name, process.returncode, out, err)
    finally:
        for process in started.values():
            if process.poll() is None:
                process.kill()
                process.communicate()
    return done


def _show(bench: Bench, home: Path, *args: str) -> dict[str, Any]:
    shown = bench.polygon(home, "show", *args, "--json")
    assert shown.returncode == 0, shown.stderr
    return dict(json.loads(shown.stdout))


def _stores(home: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    from polygon import usecases

    monkeypatch.setenv("POLYGON_HOME", str(home))
    for var in ("POLYGON_DATABASE_URL", "POLYGON_ARTIFACTS_URL"):
        monkeypatch.delenv(var, raising=False)
    return usecases.open_stores()


def _conversations(home: Path, run_id: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The run's stored conversations by scenario id."""
    from polygon import usecases

    stores = _stores(home, monkeypatch)
    return {conv.scenario_id: conv for conv in (usecases.load_conversation(stores, run_id, cid)
                                                 for cid in usecases.conversation_ids(stores, run_id))}


def _timeline(home: Path, run_id: str, conversation_id: str, monkeypatch: pytest.MonkeyPatch) -> Any:
    """A stored call's timeline."""
    from polygon import usecases

    return usecases.call_timeline(_stores(home, monkeypatch), run_id, conversation_id)


def _no_traceback(done: Done) -> None:
    assert "Traceback" not in done.err and "Traceback" not in done.out


# --- the normal bot: three calls through `polygon run` ---------------------------------------------

def test_the_run_of_calls_completes_and_says_so_in_json(bench: Bench) -> None:
    assert bench.calls.code == 0, (bench.calls.err, bench.logs())
    _no_traceback(bench.calls)
    runs = {r["agent"]: r for r in json.loads(bench.calls.out)["runs"]}
    assert {name: (r["run_id"], r["conversations"], r["agent_failures"], r["channel"], sum(r["verdicts"].values()))
            for name, r in runs.items()} == {"normal": ("bots-1", 3, 0, "voice", 3), "slow": ("bots-2", 3, 0, "voice", 3)}


def test_the_bots_tool_calls_reach_the_stubs_and_the_assertions_and_judge_run(
        bench: Bench, monkeypatch: pytest.MonkeyPatch) -> None:
    for run_id in ("bots-1", "bots-2"):
        convs = _conversations(bench.calls.home, run_id, monkeypatch)
        assert {sid: c.end_reason.value for sid, c in convs.items()} == dict.fromkeys(SCENARIOS, "max_turns"), \
            {sid: c.end_detail for sid, c in convs.items()}
        # Each model tool call went through the bot to Polygon's stub, valid, and is in the trace.
        assert {sid: [(t.name, t.arguments, t.valid) for turn in c.turns for t in turn.tool_calls]
                for sid, c in convs.items()} == {sid: [(*call, True)] for sid, call in EXPECTED_CALLS.items()}
        verified = next(t for turn in convs["verify-account"].turns for t in turn.tool_calls)
        assert verified.result["verified"] is True and verified.events == ["identity_verified"]
        assert convs["change-address"].final_state["address_changes"] == [{"street": "1 Mill Lane",
                                                                            "postcode": "M1 3HU"}]
        # The bot's turns were heard: its greeting and its answers, timed on the call.
        for c in convs.values():
            spoken = [t for t in c.turns if t.speaker == "agent" and t.text]
            assert len(spoken) >= 2 and all(t.start_ms is not None and t.end_ms is not None for t in spoken)
        # Assertions and the (offline) judge ran on every call: `polygon show --json` has them.
        shown = _show(bench, bench.calls.home, run_id)
        rows = {r["scenario_id"]: r for r in shown["conversations"]}
        assert {sid: {k: v == "pass" for k, v in r["assertions"].items()} for sid, r in rows.items()} == \
            EXPECTED_ASSERTIONS
        assert all(r["verdict"] in ("pass", "warn", "fail") and r["composite"] is not None and r["criteria"]
                   for r in rows.values()), rows
        assert shown["scorecard"]["judge_model"] == "offline-heuristic" and shown["scorecard"]["scored"] == 3


def test_each_calls_metrics_are_stored(bench: Bench, monkeypatch: pytest.MonkeyPatch) -> None:
    for c in _conversations(bench.calls.home, "bots-1", monkeypatch).values():
        assert c.voice is not None and c.voice.duration_ms > 0
        metrics = c.voice.metrics
        assert metrics["response_latency"].value is not None and metrics["response_latency"].value > 0
        assert metrics["response_latency"].count >= 1 and metrics["response_rate"].value == 1.0
        assert metrics["time_to_first_audio"].value is not None


def test_what_the_bot_heard_of_the_caller_is_its_own_transcript(bench: Bench, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bot sends its `user` transcript of each caller line; Polygon keeps it as what the bot heard
    (the caller segment's `heard`, and the transcript turn's), and says so (`heard_from: agent`)."""
    kept = []
    for conv in _conversations(bench.calls.home, "bots-1", monkeypatch).values():
        turns = {t.index: t for t in conv.turns}
        for segment in _timeline(bench.calls.home, "bots-1", conv.id, monkeypatch).side("caller"):
            if segment.kind == "speech":
                assert segment.heard_from in ("agent", "polygon") and segment.heard == turns[segment.turn].heard
                kept += [segment] if segment.heard_from == "agent" else []
    assert kept and all(s.heard for s in kept), bench.logs()


def test_the_slow_bot_answers_past_its_delay(bench: Bench, monkeypatch: pytest.MonkeyPatch) -> None:
    latencies = {sid: c.voice.metrics["response_latency"].value
                 for sid, c in _conversations(bench.calls.home, "bots-2", monkeypatch).items()}
    assert all(value is not None and value > SLOW_MS / 1000 for value in latencies.values()), latencies


def test_compare_labels_the_slow_bot_worse_on_response_latency(bench: Bench) -> None:
    compared = bench.polygon(bench.calls.home, "compare", "bots-1", "bots-2")
    assert compared.returncode == 1, compared.stdout + compared.stderr
    said = " ".join(compared.stdout.split())
    assert "calls are worse than" in said and "beyond noise on response_latency (lower is better)" in said, said
    as_json = bench.polygon(bench.calls.home, "compare", "bots-1", "bots-2", "--json")
    assert as_json.returncode == 1
    found = {d["metric"]: d for d in json.loads(as_json.stdout)["differences"] if d["scope"] == "overall"}
    latency = found["voice:response_latency"]
    assert (latency["label"], latency["pairs"]) == ("worse", 3)
    # Slower on every pair: the whole interval of the difference is above zero (seconds).
    assert latency["delta"] > 0 and latency["ci_low"] > 0, latency


def test_the_calls_wav_is_served_by_the_web_app_and_seekable(bench: Bench, monkeypatch: pytest.MonkeyPatch) -> None:
    conv = _conversations(bench.calls.home, "bots-1", monkeypatch)["verify-account"]
    with _web_app(bench.calls.home) as base:
        url = f"{base}/api/runs/bots-1/conversations/{conv.id}/audio"
        whole = httpx.get(url, timeout=30)
        part = httpx.get(url, headers={"Range": "bytes=0-43"}, timeout=30)
    assert (whole.status_code, whole.headers["content-type"], whole.content[:4]) == (200, "audio/wav", b"RIFF")
    with wave.open(BytesIO(whole.content)) as wav:  # stereo: the caller left, the bot right
        assert wav.getnchannels() == 2 and wav.getnframes() > 0
        assert wav.getnframes() * 1000 // wav.getframerate() == pytest.approx(conv.voice.duration_ms, abs=20)
    assert (part.status_code, part.content) == (206, whole.content[:44])
    assert part.headers["content-range"] == f"bytes 0-43/{len(whole.content)}"


@contextlib.contextmanager
def _web_app(home: Path) -> Iterator[str]:
    """The web app on `home`, served by uvicorn on a free loopback port (as tests/web's call page)."""
    import uvicorn

    from polygon.web import create_app
    from polygon_core.adapters.settings import load_settings

    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(load_settings(home=home)), host="127.0.0.1", port=port,
                                           log_level="warning"))
    with serving(server):
        yield f"http://127.0.0.1:{port}"


CHROMIUM = Path("/usr/bin/chromium")


@pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed at /usr/bin/chromium "
                                                   "(apt-get install -y chromium; .ci/run does it)")
def test_the_call_page_plays_the_wav_in_a_browser(bench: Bench, monkeypatch: pytest.MonkeyPatch,
                                                  tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    from tests.web.test_browser import ARGS

    conv = _conversations(bench.calls.home, "bots-1", monkeypatch)["verify-account"]
    with _web_app(bench.calls.home) as base, sync_playwright() as p:
        context = p.chromium.launch_persistent_context(str(tmp_path / "chromium-profile"),
                                                       executable_path=str(CHROMIUM), args=ARGS, headless=True)
        try:
            page = context.new_page()
            page.goto(f"{base}/runs/bots-1/conversations/{conv.id}")
            page.wait_for_selector("body[data-ready]", state="attached")  # the page has drawn the call
            page.wait_for_function("() => document.getElementById('call-audio').readyState >= 1")  # metadata
            duration = page.evaluate("() => document.getElementById('call-audio').duration")
        finally:
            context.close()
    assert duration == pytest.approx(conv.voice.duration_ms / 1000, abs=0.05)


# --- bots that fail: one line naming the reason, exit 1, the rows intact ----------------------------

@pytest.mark.parametrize(("job", "run_id", "reason"), [
    ("dropped", "dropped", "closed: the bot closed the socket mid-call (code 1011: bot dropped the call)"),
    ("silent", "silent", "silent: the bot said nothing for 15 s"),
])
def test_a_failing_bot_ends_its_call_agent_error_with_its_reason(
        bench: Bench, monkeypatch: pytest.MonkeyPatch, job: str, run_id: str, reason: str) -> None:
    done: Done = getattr(bench, job)
    agent = "dropping" if job == "dropped" else "silent"
    assert done.code == 1, (done.err, bench.logs())
    _no_traceback(done)
    assert done.err.splitlines() == [f"error: agent {agent} failed on 1 of 1 conversations: agent_error: {reason}"]
    (conv,) = _conversations(done.home, run_id, monkeypatch).values()
    assert (conv.end_reason.value, conv.end_detail) == ("agent_error", reason)
    assert conv.voice is not None  # the call's audio and timeline were stored all the same
    shown = _show(bench, done.home, run_id)
    assert [(r["scenario_id"], r["end_reason"], r["status"], r["reason"]) for r in shown["conversations"]] == [
        ("verify-account", "agent_error", "agent_failure", f"agent_error: {reason}")]
    assert shown["scorecard"]["agent_failures"] == 1


# --- the bot that never yields: talked over, it talks on ---------------------------------------------

def test_the_talk_over_callers_plan_barges_into_the_greeting(tmp_path: Path) -> None:
    from polygon_core.adapters.voice_bot._turn_taking import turn_plan
    from polygon_core.conversation import conversation_key
    from polygon_core.files import load_suite
    from polygon_core.voice import caller_habits

    scenario = load_suite(write_suite(tmp_path, "talk-over", {TALK_OVER: _scenario(TALK_OVER, TALK_OVER_PERSONA)}
                                      )).scenario(TALK_OVER)
    cid = conversation_key(scenario, 0)
    habits = caller_habits(scenario.persona.type)
    assert (cid, scenario.persona.type, habits.barge_in_p) == ("talk-over-s0-c8bd884b", "aggressive", 0.5)
    assert [turn_plan(habits, cid, turn, "en").barge_at_ms for turn in (0, 2, 4, 6)] == [2212, None, None, None]


def test_the_never_yielding_bot_talks_on_over_the_caller_and_its_yield_rate_is_zero(
        bench: Bench, monkeypatch: pytest.MonkeyPatch) -> None:
    done = bench.talked_over
    assert done.code == 0, (done.err, bench.logs())
    _no_traceback(done)
    (conv,) = _conversations(done.home, "talked-over", monkeypatch).values()
    assert conv.voice is not None and conv.turns[0].interrupted, [(t.speaker, t.text) for t in conv.turns]
    timeline = _timeline(done.home, "talked-over", conv.id, monkeypatch)
    kinds = [e.kind for e in timeline.events]
    assert "barge_in" in kinds and "yield" not in kinds, kinds  # talked over, it never sent `clear`
    # Its greeting ran on more than the yield window past the caller's barge-in.
    barge = next(e.start_ms for e in timeline.events if e.kind == "barge_in")
    greeting = next(s for s in timeline.side("agent") if s.turn == 0)
    assert greeting.start_ms < barge and greeting.end_ms - barge > 2000, (greeting, barge)
    # R_Y is 0 over at least one barge-in, and I_A or L_Y shows it (docs/voice.md, the metrics):
    # no yield, so no yield latency, or the bot starting over the caller.
    metrics = conv.voice.metrics
    assert metrics["yield_rate"].value == 0.0 and metrics["yield_rate"].count >= 1, metrics["yield_rate"]
    latency, interrupting = metrics["yield_latency"], metrics["agent_interruption_rate"]
    assert (interrupting.value or 0) > 0 or latency.value is None or latency.value > 2.0, (latency, interrupting)
    assert (latency.value, latency.count) == (None, 0)
    # The bot's own log says the same: its VAD heard the caller start while it spoke, it never
    # interrupted itself (Pipecat logs "broadcasting interruption" when it does), and it stopped
    # speaking only after that.
    log = bench.bots["never-yield"].log.read_text(errors="replace").splitlines()
    heard = next(i for i, line in enumerate(log) if "VADProcessor#0: User started speaking" in line)
    started = next(i for i, line in enumerate(log) if "Bot started speaking" in line)
    stopped = next(i for i, line in enumerate(log) if "Bot stopped speaking" in line)
    assert started < heard < stopped, (started, heard, stopped)
    assert not [line for line in log if "broadcasting interruption" in line]
