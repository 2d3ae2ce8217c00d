"""Seeded stub faults: same errors on the same turns every run, and the agent's recovery shows."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import yaml

from polygon_core.callers import OfflineCaller
from polygon_core.conversation import conversation_key, run_conversation
from polygon_core.demo import DemoAgentV1, demo_dir
from polygon_core.files import load_suite
from polygon_core.models import Conversation


def _faulty_suite(tmp_path: Path) -> Path:
    root = tmp_path / "suite"
    shutil.copytree(demo_dir() / "suite", root)
    lib = yaml.safe_load((root / "tools.yaml").read_text(encoding="utf-8"))
    lib["tools"]["issue_refund"]["errors"] = {"rate": 0.3, "kind": "server_error"}
    lib["tools"]["issue_refund"]["latency"] = {"fixed_ms": 2000}
    (root / "tools.yaml").write_text(yaml.safe_dump(lib, sort_keys=False), encoding="utf-8")
    return root


def _run_all(root: Path) -> list[Conversation]:
    suite = load_suite(root)
    scenario = suite.scenario("billing-dispute-v3")
    out = []
    for seed in range(20):
        cid = conversation_key(scenario, seed)
        out.append(asyncio.run(run_conversation(
            scenario, DemoAgentV1(), OfflineCaller(scenario.persona, conversation_id=cid, seed=seed),
            suite.tools, seed=seed, agent_name="v1", agent_version="v1")))
    return out


def _faults(convs: list[Conversation]) -> list[tuple[int, int, str]]:
    return [(c.seed, t.index, call.error) for c in convs for t in c.turns for call in t.tool_calls if call.error]


def test_faults_repeat_on_the_same_turns_and_recovery_is_visible(tmp_path: Path) -> None:
    root = _faulty_suite(tmp_path)
    first, second = _run_all(root), _run_all(root)
    assert [c.model_dump_json() for c in first] == [c.model_dump_json() for c in second]
    faults = _faults(first)
    assert faults, "a 30% error rate over twenty conversations should fail at least one refund"
    seed, turn, kind = faults[0]
    assert kind == "server_error"
    conv = next(c for c in first if c.seed == seed)
    agent_turn = next(t for t in conv.turns if t.index == turn)
    # The careful agent says it retries and the retried refund goes through in the same turn.
    assert "let me try that again" in agent_turn.text
    assert [c.error for c in agent_turn.tool_calls if c.name == "issue_refund"][-1] is None
    assert any(e.name == "refund_issued" for e in conv.events)
    # Latency is simulated on the conversation clock, not slept: 2 s per refund attempt at least.
    attempts = sum(1 for t in conv.turns for c in t.tool_calls if c.name == "issue_refund")
    assert conv.clock_ms >= 2000 * attempts
