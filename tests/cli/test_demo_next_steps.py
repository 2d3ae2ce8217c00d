"""The demo as `make demo` runs it (issue 31): it names v1 and v2 beside their hashes and ends with the
next commands as they can be typed from where it ran (`.venv/bin/polygon …` when `polygon` is not on
PATH); the first of them, `polygon show RUN CONVERSATION`, prints the transcript: who spoke, what was
said, the tool calls with their arguments and results, and how the conversation ended."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

VENV = Path(sys.executable).parent.parent
EXE = VENV / "bin" / "polygon"
HERE = VENV.parent  # where `make demo` runs: the checkout holding .venv
SHOW_ID = "billing-dispute-v3-s0-f0898ea9"


def _polygon(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # As typed in a shell that has not activated the venv: `polygon` is not on PATH.
    env = {**os.environ, "POLYGON_HOME": str(home), "COLUMNS": "80", "PATH": "/usr/bin:/bin"}
    return subprocess.run([str(EXE), *args], cwd=HERE, capture_output=True, text=True, check=False,
                          timeout=600, env=env)


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    home = tmp_path_factory.mktemp("home")
    out = _polygon(home, "demo")
    assert out.returncode == 0, out.stderr[-3000:]
    return home, out.stdout.splitlines()


def _runs(lines: list[str]) -> tuple[str, str]:
    found = re.findall(r"run-\d{8}-\d{6}-[0-9a-f]{6}", next(line for line in lines if line.startswith("Runs: ")))
    return found[0], found[1]


def _demo_hash(version: str) -> str:
    # The demo agents' versions hash their code, which moves with polygon_core: read, not pinned.
    from polygon import usecases
    from polygon_core.demo import demo_dir

    base = demo_dir()
    agent = str(base / "agents" / f"agent_{version}.yaml")
    return usecases.agent_identity(agent, str(base / "suite"))[2][:6]


def test_the_demo_names_v1_and_v2_beside_their_hashes(demo: tuple[Path, list[str]]) -> None:
    _home, lines = demo
    v1, v2 = _demo_hash("v1"), _demo_hash("v2")
    assert lines[:3] == ["The demo compares two versions of one agent (polygon_core/demo/agents/):",
                         f"  v1 = northwind-billing@{v1} (careful: verifies identity first)",
                         f"  v2 = northwind-billing@{v2} (hasty: refunds before verifying)"]
    assert any(f"northwind-billing@{v1}" in line and f"northwind-billing@{v2[:4]}…" in line for line in lines)


def test_the_demo_ends_with_the_next_commands_as_typed_from_here(demo: tuple[Path, list[str]]) -> None:
    _home, lines = demo
    v1, v2 = _runs(lines)
    assert max(len(line) for line in lines[-8:]) <= 80
    assert lines[-8:] == [
        "Next steps:",
        "# a v2 conversation turn by turn (it refunds before verifying):",
        f".venv/bin/polygon show {v2} billing-dispute-v3-s0",
        "# every difference and pair:",
        f".venv/bin/polygon compare {v1} {v2}",
        "# your own agent: docs/agents.md, then",
        ".venv/bin/polygon run my-suite/ --agent my-agent.yaml",
        "(or `source .venv/bin/activate` first, then type `polygon …`)",
    ]


def test_show_conversation_prints_the_transcript_tool_results_and_end(demo: tuple[Path, list[str]]) -> None:
    home, lines = demo
    _v1, v2 = _runs(lines)
    out = _polygon(home, "show", v2, "billing-dispute-v3-s0")  # as the demo's next step says
    assert out.returncode == 0, out.stderr
    shown = out.stdout.splitlines()
    assert shown[0] == (f"conversation {SHOW_ID} of run {v2}: scenario billing-dispute-v3, seed 0, caller busy, "
                        "ended caller_hangup")
    turns = shown[shown.index("Turns"):]
    assert turns[:20] == [
        "Turns",
        "▸ 0",
        "  speaker: agent",
        "  text: ",
        "    Thank you for calling Northwind Telecom, this is Ava. How can I help?",
        "▸ 1",
        "  speaker: caller",
        "  text: ",
        "    Yeah, hi. I need to reverse a duplicate charge from last month. Quickly,    ",
        "    please.                                                                     ",
        "▸ 2",
        "  speaker: agent · text: How much was the charge?",
        "▸ 3",
        "  speaker: caller · text: It was 49 pounds.",
        "▸ 4",
        "  speaker: agent",
        "  text: ",
        "    → issue_refund(amount=49.0, reason='customer request') = {\"ok\": true,       ",
        "    \"record\": {\"amount\": 49.0, \"reason\": \"customer request\"}}                   ",
        "    Done, I've issued your refund of 49.00. Now, what is your account number and",
    ]
    assert turns[-4:] == ["  speaker: caller", "  text: ", "    No, that's everything. Thanks, bye. [hangup]",
                          "ended: caller_hangup (after 10 turns)"]


def test_show_conversation_json_is_the_stored_conversation(demo: tuple[Path, list[str]]) -> None:
    home, lines = demo
    _v1, v2 = _runs(lines)
    out = _polygon(home, "show", v2, SHOW_ID, "--json")
    assert out.returncode == 0, out.stderr
    conversation = json.loads(out.stdout)["conversation"]
    stored = home / "artifacts" / "runs" / v2 / "conversations" / f"{SHOW_ID}.json"
    assert conversation == json.loads(stored.read_text(encoding="utf-8"))
    refund = conversation["turns"][4]["tool_calls"][0]
    assert (refund["name"], refund["arguments"], refund["valid"]) == (
        "issue_refund", {"amount": 49.0, "reason": "customer request"}, True)


def test_a_transcript_marks_invalid_and_failed_tool_calls_and_what_was_heard_in_text() -> None:
    from polygon.cli._show_conversation import turn_text
    from polygon_core.models import ToolCall, Turn

    invalid = ToolCall(id="c1", name="lookup_account", arguments={"account_id": "48"}, valid=False,
                       validation_error="$.account_id: '48' does not match '^[0-9]{4,8}$'",
                       result={"error": "invalid_arguments"})
    failed = ToolCall(id="c2", name="issue_refund", arguments={"amount": 5}, error="timeout",
                      result={"error": "timeout"})
    agent = Turn(index=2, speaker="agent", text="One moment.", tool_calls=[invalid, failed])
    assert turn_text(agent, "text").splitlines() == [
        "→ lookup_account(account_id='48') ✗ invalid arguments: $.account_id: '48' does not match '^[0-9]{4,8}$'",
        "→ issue_refund(amount=5) ✗ timeout: {\"error\": \"timeout\"}",
        "One moment.",
    ]
    misheard = Turn(index=3, speaker="caller", text="My account is 4821.", heard="My account is 4812.")
    assert turn_text(misheard, "text").splitlines() == ["said:  My account is 4821.", "heard: My account is 4812."]
    heard_right = Turn(index=5, speaker="caller", text="Thanks, bye.", heard="thanks bye")
    assert turn_text(heard_right, "text") == "Thanks, bye."
