"""What a run of a deployed voice bot records as its agent and its cascade (issue 30): the bot's URL
without what may carry a secret, and no cascade settings the bot never used."""

from __future__ import annotations

from pathlib import Path

import pytest

from polygon import usecases
from polygon_core.demo import demo_dir
from polygon_core.models import CascadeSettings, cascade_label
from polygon_core.net import public_url

SUITE = str(demo_dir() / "suite")


@pytest.mark.parametrize(("url", "shown"), [
    ("ws://127.0.0.1:8765/ws", "ws://127.0.0.1:8765/ws"),
    ("wss://user:s3cret@bot.example.com/twilio?token=abc#x", "wss://bot.example.com/twilio"),
    ("wss://bot.example.com:443/a/b?key=1", "wss://bot.example.com:443/a/b"),
    ("ws://[::1]:9000/ws?t=2", "ws://[::1]:9000/ws"),
])
def test_a_url_is_shown_without_credentials_query_or_fragment(url: str, shown: str) -> None:
    assert public_url(url) == shown


def test_a_bots_cascade_is_its_own() -> None:
    assert cascade_label(CascadeSettings(url="ws://127.0.0.1:9/ws")) == "the bot's own"
    assert cascade_label(CascadeSettings()) == "yields, barge-in 600 ms, endpoint 600 ms"


def test_a_bot_runs_agent_is_the_bot_not_the_offline_model(polygon_home: Path, tmp_path: Path) -> None:
    agent = tmp_path / "bot.yaml"
    agent.write_text("name: a-bot\nvoice: {url: 'wss://bot.example.com/ws?token=s3cret'}\n", encoding="utf-8")
    run = usecases.new_run(str(agent), SUITE, run_id="bot-run")
    assert run.models["agent"] == "bot:wss://bot.example.com/ws"
    assert "s3cret" not in run.model_dump_json()
