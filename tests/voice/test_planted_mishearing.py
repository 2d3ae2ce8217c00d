"""A planted mishearing (issue 29's acceptance): a caller says an amount, the phone line makes the
agent's recogniser hear another, the hasty demo agent (v2, which refunds the amount it hears at once)
refunds the wrong amount, and the assertion that checks the refund fails with a message that shows
what was said and what was heard. The same scenario in text passes: the mishearing is the line's.

Real offline engines (eSpeak NG, faster-whisper tiny.en, WebRTC VAD) through `polygon run`; one short
call (five turns) and one chat.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from polygon import usecases
from polygon.cli import app
from tests.conftest import REPO

pytestmark = [pytest.mark.prefect, pytest.mark.slow]

runner = CliRunner()

DEMO = REPO / "polygon_core" / "demo"
AGENT_V2 = DEMO / "agents" / "agent_v2.yaml"

# Found by running this scenario (the persona below, unchanged: the caller's voice and the line are
# drawn from the conversation id, which hashes the persona) as v2 calls on the phone preset with seeds
# 0-11 (`polygon run SUITE --agent agent_v2.yaml --channel voice --conditions phone --seeds 12`).
# The caller says "It was 15 pounds." (eSpeak reads "fifteen"); over the 8 kHz mu-law line tiny.en
# heard "It's 150 pounds." at seeds 6, 8, 9 and 10, "It's 115 pounds." at 0 and 5, and the amount
# right ("15 pounds.", "It was 15 pounds.") at 1, 2, 3, 4, 7 and 11. Seed 6: 15 -> 150, a change of
# digits that no tolerance in the demo agent's amount parser (polygon_core/demo/_parse.py) should
# undo; a parser change could still change the refund, so the message is pinned in full below.
SEED = 6
CONVERSATION = "fifteen-pounds-s6-f3e7d8fd"
SAID = "It was 15 pounds."
HEARD = "It's 150 pounds."

SUITE_YAML = f"""\
name: planted-mishearing
description: One refund call whose amount the phone line garbles.
rubric: v1
seeds: [{SEED}]
"""
SCENARIO_YAML = """\
id: fifteen-pounds
max_turns: 6
persona:
  type: cooperative
  goal: get a refund for a duplicate charge
  ground_truth:
    amount: 15.00
context:
  account_status: verified
  customer: {account_id: "4821", postcode: "SW1A 2AA", name: Dana Whitfield}
  ledger:
    - {date: "2026-06-14", amount: 15.00, kind: subscription}
    - {date: "2026-06-14", amount: 15.00, kind: duplicate}
tools: [lookup_account, issue_refund]
assertions:
  refunded_fifteen: refund_issued(amount == 15.00)
"""


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory, prefect_harness: None) -> Iterator[Path]:
    """The one-scenario suite run by v2 as a call on the phone preset (run `call`) and as a chat
    (run `chat`), in a private POLYGON_HOME kept for the module."""
    root = tmp_path_factory.mktemp("planted")
    suite = root / "suite"
    (suite / "scenarios").mkdir(parents=True)
    (suite / "tools.yaml").write_text((DEMO / "suite" / "tools.yaml").read_text())
    (suite / "suite.yaml").write_text(SUITE_YAML)
    (suite / "scenarios" / "fifteen_pounds.yaml").write_text(SCENARIO_YAML)
    with pytest.MonkeyPatch.context() as env:
        env.setenv("POLYGON_HOME", str(root / ".polygon"))
        for var in ("POLYGON_DATABASE_URL", "POLYGON_ARTIFACTS_URL"):
            env.delenv(var, raising=False)
        for run_id, channel in (("call", ["--channel", "voice", "--conditions", "phone"]),
                                ("chat", ["--channel", "text"])):
            result = runner.invoke(app, ["run", str(suite), "--agent", str(AGENT_V2), *channel,
                                         "--run-id", run_id, "--json"])
            assert result.exit_code == 0, result.output
        yield root


def _shown(run_id: str) -> dict[str, Any]:
    result = runner.invoke(app, ["show", run_id, CONVERSATION, "--json"])
    assert result.exit_code == 0, result.output
    shown: dict[str, Any] = json.loads(result.stdout)
    return shown


def _refunds(run_id: str) -> list[dict[str, Any]]:
    conv = usecases.load_conversation(usecases.open_stores(), run_id, CONVERSATION)
    return [dict(call.arguments) for turn in conv.turns for call in turn.tool_calls if call.name == "issue_refund"]


@pytest.mark.usefixtures("runs")
def test_on_the_phone_the_agent_hears_150_and_refunds_it() -> None:
    conv = usecases.load_conversation(usecases.open_stores(), "call", CONVERSATION)
    assert (conv.channel, conv.seed, conv.voice and conv.voice.conditions.preset) == ("voice", SEED, "phone")
    said = [(t.index, t.text, t.heard) for t in conv.turns if t.speaker == "caller"]
    # What tiny.en hears of the first line depends on the CPU's instruction set (CTranslate2 picks
    # its kernels at run time): "a duplicate charge" where this was written, "a new look-at-charge"
    # on an AMD EPYC with AVX2 (CT2_FORCE_CPU_ISA changes it). The planted amount is heard alike.
    assert said[0][:2] == (1, "Hi there. I'd like to get a refund for a duplicate charge, please.")
    assert said[1] == (3, SAID, HEARD)
    assert conv.turns[2].text == "How much was the charge?"
    assert _refunds("call") == [{"amount": 150.0, "reason": "customer request"}]


@pytest.mark.usefixtures("runs")
def test_the_failed_assertion_shows_what_was_said_and_what_was_heard() -> None:
    shown = _shown("call")
    assert [(a["name"], a["status"]) for a in shown["assertions"]] == [("refunded_fifteen", "fail")]
    message = shown["assertions"][0]["message"]
    # Turn 1 may be misheard too, by CPU (see above): the message lists every misheard turn.
    assert message.startswith("no refund_issued with amount == 15.0 (seen: refund_issued at turn 4 "
                              "(amount=150.0, reason='customer request')); what the agent heard differs "
                              "from what the caller said: ")
    assert message.endswith(f'turn 3: said "{SAID}" / heard "{HEARD}"')
    assert shown["misheard"][-1] == f'turn 3: said "{SAID}" / heard "{HEARD}"'
    assert [line.split(":")[0] for line in shown["misheard"]] in (["turn 3"], ["turn 1", "turn 3"])


@pytest.mark.usefixtures("runs")
def test_the_same_scenario_in_text_refunds_15_and_passes() -> None:
    conv = usecases.load_conversation(usecases.open_stores(), "chat", CONVERSATION)
    assert (conv.channel, conv.voice) == ("text", None)
    assert [(t.index, t.text, t.heard) for t in conv.turns if t.speaker == "caller"][1] == (3, SAID, SAID)
    assert _refunds("chat") == [{"amount": 15.0, "reason": "customer request"}]
    shown = _shown("chat")
    assert [(a["name"], a["status"], a["message"]) for a in shown["assertions"]] == [("refunded_fifteen", "pass", None)]
    assert shown["misheard"] == []
