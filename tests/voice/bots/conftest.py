"""The Pipecat test bot (examples/pipecat_bot.py) in a subprocess on a free loopback port, pointed at
the fake OpenAI-compatible server of tests/fakes; `start_bot(*flags)` starts one (a variant by its
flags) and the fixture stops every bot it started."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.fakes.llm_server import FakeLLMServer

pytest.importorskip("pipecat", reason="pipecat-ai (the dev extra) is not installed")
pytest.importorskip("faster_whisper", reason="the voice extra is not installed")

BOT = REPO / "examples" / "pipecat_bot.py"
# Only a guard against a bot that never listens (a hang): starting takes a few seconds of imports.
START_DEADLINE_S = 120.0


@dataclass(frozen=True)
class Bot:
    """A running bot: its socket URL, its process and its log file."""

    url: str
    process: subprocess.Popen[bytes]
    log: Path

    def log_tail(self, lines: int = 30) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
        return True
    except OSError:
        return False


def _wait_listening(bot: Bot, port: int) -> None:
    deadline = time.monotonic() + START_DEADLINE_S
    while not _listening(port):
        if bot.process.poll() is not None:
            pytest.fail(f"the bot exited with {bot.process.returncode} before listening:\n{bot.log_tail()}")
        if time.monotonic() > deadline:
            pytest.fail(f"the bot did not listen on port {port} within {START_DEADLINE_S} s:\n{bot.log_tail()}")
        time.sleep(0.05)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip `integration` tests (test_bot_integration.py: a few minutes of real-time calls through
    the command line) unless the mark expression asks for them: `pytest -m integration
    tests/voice/bots`, which `.ci/run` runs after the default suite. The other bot tests run as usual."""
    if "integration" in (config.option.markexpr or ""):
        return
    skip = pytest.mark.skip(reason="own invocation: `pytest -m integration tests/voice/bots` (.ci/run runs it)")
    for item in items:
        if item.get_closest_marker("integration") is not None:
            item.add_marker(skip)


@pytest.fixture
def llm() -> Iterator[FakeLLMServer]:
    """The model server the bots talk to (one per test: its request log is the test's)."""
    with FakeLLMServer() as server:
        yield server


@pytest.fixture
def start_bot(llm: FakeLLMServer, tmp_path: Path) -> Iterator[Callable[..., Bot]]:
    """`start_bot(*flags)`: the bot with these extra command-line flags, listening."""
    bots: list[Bot] = []

    def start(*flags: str) -> Bot:
        port = _free_port()
        log = tmp_path / f"bot-{len(bots)}.log"
        command = [sys.executable, str(BOT), "--port", str(port), "--llm-base-url", llm.openai_url,
                   "--llm-api-key", "test", "--model", "fake-model", "--log-level", "DEBUG", *flags]
        env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
        # Nothing may reach a model hub: the models ship in wheels.
        env.update(POLYGON_HOME=str(tmp_path / ".polygon"), HF_HUB_OFFLINE="1")
        with log.open("wb") as out:
            process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=tmp_path)
        bot = Bot(f"ws://127.0.0.1:{port}/ws", process, log)
        bots.append(bot)
        _wait_listening(bot, port)
        return bot

    yield start
    for bot in bots:
        bot.process.terminate()
    for bot in bots:
        try:
            bot.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            bot.process.kill()
            bot.process.wait()
