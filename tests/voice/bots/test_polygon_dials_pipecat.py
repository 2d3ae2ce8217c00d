"""Polygon dials the real Pipecat bot (examples/pipecat_bot.py) as an agent: `voice.url` in an agent
file, the offline caller on a real-time phone line, the scenario's stubs served to the bot. The fake
model answers the caller's first turn with a call of the first tool, whose arguments miss a required
field: the call reaches the stub and is recorded as invalid in the conversation's trace."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from polygon import usecases
from polygon_core.demo import demo_dir
from polygon_core.models import LineConditions, Run
from tests.fakes.llm_server import FakeLLMServer
from tests.voice.bots.conftest import Bot

pytestmark = pytest.mark.bot

SCENARIO = """id: short-billing-call
max_turns: 3
persona:
  name: short_caller
  temperament: calm
  goal: check a charge on the account
  intended_outcome: success
  difficulty: 1
  ground_truth: {account_id: "4821", postcode: "SW1A 2AA"}
context:
  customer: {account_id: "4821", postcode: "SW1A 2AA", name: Dana Whitfield}
tools: [lookup_account]
assertions:
  looked_up: called(lookup_account)
"""


def _suite(tmp_path: Path) -> Path:
    suite = tmp_path / "suite"
    (suite / "scenarios").mkdir(parents=True)
    shutil.copy(demo_dir() / "suite" / "tools.yaml", suite / "tools.yaml")
    (suite / "suite.yaml").write_text("name: bot-suite\nseeds: [0]\n", encoding="utf-8")
    (suite / "scenarios" / "short.yaml").write_text(SCENARIO, encoding="utf-8")
    return suite


def test_polygon_calls_the_pipecat_bot_and_its_tool_call_reaches_the_stubs(
        polygon_home: Path, tmp_path: Path, start_bot: Callable[..., Bot], llm: FakeLLMServer) -> None:
    bot = start_bot()
    llm.behaviour.tool_call = True
    suite = _suite(tmp_path)
    agent = tmp_path / "bot.yaml"
    agent.write_text(f"name: pipecat-bot\nvoice: {{url: '{bot.url}'}}\n", encoding="utf-8")
    stores = usecases.open_stores()
    _c, _p, version = usecases.agent_identity(str(agent), str(suite))
    run = Run(id="pipecat", suite="bot-suite", agent_name="pipecat-bot", agent_version=version,
              rubric_version="v1", seeds=[0])
    usecases.create_run(stores, run, suite_path=str(suite), agent_path=str(agent),
                        line=usecases.LineRequest(channel="voice", conditions=LineConditions(preset="phone")))
    cid = usecases.simulate(stores, "pipecat", str(suite), str(agent), "short-billing-call", 0)
    conv = usecases.load_conversation(stores, "pipecat", cid)
    assert conv.channel == "voice" and conv.end_reason.value == "max_turns", (conv.end_detail, bot.log_tail())
    # The bot's greeting, heard by Polygon's recogniser, then its answers.
    spoken = [t for t in conv.turns if t.speaker == "agent" and t.text]
    assert len(spoken) >= 2 and all(t.start_ms is not None and t.end_ms is not None for t in spoken)
    # The model's tool call went through the bot to Polygon's stub: recorded, and invalid (no postcode).
    calls = [c for t in conv.turns for c in t.tool_calls]
    assert [(c.name, c.arguments, c.valid) for c in calls] == [("lookup_account", {"account_id": "4417"}, False)]
    # The model got the tools from the stub server's list, as the tool library defines them.
    assert [t["function"]["name"] for t in llm.behaviour.seen[0]["tools"]] == ["lookup_account"]
    assert conv.voice is not None and conv.voice.metrics["response_rate"].count >= 1
    assert usecases.call_audio(stores, "pipecat", cid)[:4] == b"RIFF"
