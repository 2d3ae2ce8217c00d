"""Issue #30's acceptance test: Polygon calls the real Pipecat bot (examples/pipecat_bot.py) through
its command line, as a user would, and every part of a call to a deployed bot holds end to end.

One module-wide bench: the fake model server (each scenario's one tool called with valid arguments),
four bots (normal, slow `--delay-ms 2500`, dropping `--drop-after-s 1`, silent `--silent`) and three
`polygon run` commands at once, each in its own POLYGON_HOME: the normal and slow bots over the same
three scenarios in one command (two runs, six calls in flight), the dropping and the silent bot on
one scenario each. The tests then read what the commands printed and stored, compare the two runs
with `polygon compare`, and fetch a call's WAV from the web app (and play it in Chromium when it is
installed).

Integration: its own invocation (`pytest -m integration tests/voice/bots`, which `.ci/run` runs),
a few minutes of real-time calls that the default suite's budget cannot carry. The bot that never
yields is left out until Polygon's caller can barge in.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
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
from tests.voice.bots.conftest import BOT, Bot, _free_port, _wait_listening

pytestmark = [pytest.mark.integration, pytest.mark.bot]

POLYGON = Path(sys.executable).with_name("polygon")
COMMAND_DEADLINE_S = 600  # a hang guard for one `polygon` command, not a measure
SLOW_MS = 2500

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
    "verify-account": ("check a charge on the account", "lookup_account",
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


def _scenario(sid: str) -> str:
    goal, tool, assertions = SCENARIOS[sid]
    return (f"id: {sid}\nmax_turns: 3\n" + PERSONA.format(name=sid.replace("-", "_"), goal=goal)
            + f"tools: [{tool}]\nassertions:\n  {assertions}\n")


def write_suite(root: Path) -> Path:
    """Three short scenarios on the demo suite's tool library, one seed each."""
    suite = root / "suite"
    (suite / "scenarios").mkdir(parents=True)
    shutil.copy(demo_dir() / "suite" / "tools.yaml", suite / "tools.yaml")
    (suite / "suite.yaml").write_text("name: bot-integration\nrubric: v1\nseeds: [0]\n", encoding="utf-8")
    for sid in SCENARIOS:
        (suite / "scenarios" / f"{sid}.yaml").write_text(_scenario(sid), encoding="utf-8")
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
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("OPENAI_") and k not in ("POLYGON_DATABASE_URL", "POLYGON_ARTIFACTS_URL",
                                                        "POLYGON_API_TOKENS", "POLYGON_CONCURRENCY")}
    # One Prefect API for every command (the session's test server), no model hub.
    env.update(PREFECT_API_URL=str(get_current_settings().api.url), HF_HUB_OFFLINE="1")
    with FakeLLMServer() as llm:
        llm.behaviour.tool_call = True
        llm.behaviour.tool_arguments = ARGUMENTS
        bots = _start_bots(root, llm, {"normal": (), "slow": ("--delay-ms", str(SLOW_MS)),
                                       "dropping": ("--drop-after-s", "1"), "silent": ("--silent",)})
        try:
            agents = {name: _agent(root, name, bot) for name, bot in bots.items()}
            jobs = {
                "calls": ["--agent", str(agents["normal"]), "--agent", str(agents["slow"]), "--concurrency", "6",
                          "--run-id", "bots"],
                "dropped": ["--agent", str(agents["dropping"]), "--scenario", "verify-account", "--run-id", "dropped"],
                "silent": ["--agent", str(agents["silent"]), "--scenario", "verify-account", "--run-id", "silent"],
            }
            started = {name: (root / name, subprocess.Popen(
                [str(POLYGON), "run", str(suite), "--channel", "voice", "--json", *args],
                env={**env, "POLYGON_HOME": str(root / name)}, cwd=root, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, text=True)) for name, args in jobs.items()}
            done = {}
            for name, (home, process) in started.items():
                out, err = process.communicate(timeout=COMMAND_DEADLINE_S)
                done[name] = Done(home, process.returncode, out, err)
            yield Bench(root, suite, bots, done["calls"], done["dropped"], done["silent"], env)
        finally:
            _stop(bots)


def _show(bench: Bench, home: Path, *args: str) -> dict[str, Any]:
    shown = bench.polygon(home, "show", *args, "--json")
    assert shown.returncode == 0, shown.stderr
    return dict(json.loads(shown.stdout))


def test_explore(bench: Bench) -> None:
    for name in ("calls", "dropped", "silent"):
        d = getattr(bench, name)
        print(name, d.code, d.out[:3000], d.err[-3000:])
    print(json.dumps(_show(bench, bench.calls.home, "bots-1"), indent=1)[:6000])
    print(bench.logs())
    assert False
