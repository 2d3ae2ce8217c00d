"""`polygon replay` replays the run it names: the run's caller (a model caller's stored lines, the model
not called again) and the agent version the run was made by (a changed agent file is refused)."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polygon import usecases
from polygon.cli import app
from polygon_core.conversation import CallerView, SimulatorFailure
from polygon_core.demo import demo_dir
from polygon_core.models import Conversation, EndReason, Persona, Run, Turn
from tests.fakes.llm_server import FakeLLMServer

SUITE = str(demo_dir() / "suite")
SCENARIO = "roaming-charge-explained"
FAKE_KEY = "sk-polygon-test-SECRET-0123456789abcdef"
runner = CliRunner()


@pytest.fixture
def agent_copy(tmp_path: Path) -> Path:
    """The demo agent v1 in a folder of its own, so the test may change its prompt file."""
    folder = tmp_path / "agents"
    folder.mkdir()
    for name in ("agent_v1.yaml", "prompt_v1.txt"):
        shutil.copy(demo_dir() / "agents" / name, folder / name)
    return folder / "agent_v1.yaml"


def _simulated(run_id: str, agent: Path, caller: str) -> tuple[usecases.Stores, str]:
    stores = usecases.open_stores()
    _c, _p, version = usecases.agent_identity(str(agent), SUITE)
    run = Run(id=run_id, suite="northwind-demo", agent_name="northwind-billing", agent_version=version,
              rubric_version="v1", seeds=[0], models={"agent": "offline", "caller": caller})
    usecases.create_run(stores, run, suite_path=SUITE, agent_path=str(agent))
    return stores, usecases.simulate(stores, run_id, SUITE, str(agent), SCENARIO, 0)


def test_a_model_caller_run_replays_its_stored_caller_lines(
        polygon_home: Path, agent_copy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    with FakeLLMServer() as srv:
        caller = f"openai:gpt-4o-mini@{srv.openai_url}"
        stores, cid = _simulated("mcaller", agent_copy, caller)
        caller_requests = len(srv.behaviour.seen)
    stored = usecases.load_conversation(stores, "mcaller", cid)
    said = [t.text for t in stored.turns if t.speaker == "caller"]
    assert caller_requests == 3 and said == ["Hi, I have a question about my bill.", "Yes, that's right.",
                                             "Okay, thanks, goodbye."]
    # The server is gone: the replay must not call the caller's model again.
    result = usecases.replay_conversation(stores, "mcaller", cid)
    assert result.differences == [] and result.end_reason == ("caller_hangup", "caller_hangup")
    assert result.caller == caller and result.agent_version == stored.agent_version
    out = runner.invoke(app, ["replay", cid, "--run", "mcaller"])
    assert out.exit_code == 0, out.output
    assert " ".join(out.stdout.split()) == (
        f"replayed {cid} from run mcaller: no differences (end reason caller_hangup; agent version "
        f"{stored.agent_version[:12]}, caller {caller}: its stored lines said again)")


def test_an_offline_run_names_its_version_and_caller(polygon_home: Path, agent_copy: Path) -> None:
    stores, cid = _simulated("off", agent_copy, "offline")
    version = usecases.load_conversation(stores, "off", cid).agent_version
    out = runner.invoke(app, ["replay", cid])
    assert out.exit_code == 0, out.output
    assert " ".join(out.stdout.split()).endswith(
        f"(end reason agent_end; agent version {version[:12]}, offline caller run again from its seed)")


def test_a_changed_agent_file_is_refused_naming_both_versions(polygon_home: Path, agent_copy: Path) -> None:
    stores, cid = _simulated("chg", agent_copy, "offline")
    before = usecases.load_conversation(stores, "chg", cid).agent_version
    prompt = agent_copy.parent / "prompt_v1.txt"
    prompt.write_text(prompt.read_text(encoding="utf-8") + "\nAlways be cheerful.\n", encoding="utf-8")
    _c, _p, after = usecases.agent_identity(str(agent_copy), SUITE)
    assert after != before
    parts = {p.kind: p.sha for p in usecases.run_version_parts(stores, "chg") or []}
    out = runner.invoke(app, ["replay", cid, "--run", "chg"])
    assert out.exit_code == 2
    assert " ".join(out.stderr.split()) == (
        f"error: run 'chg' was made by agent version {before[:12]}, but {agent_copy} is now version "
        f"{after[:12]} (changed: prompt sha {parts['prompt']} → {usecases.agent_parts(str(agent_copy), SUITE)[1][0].sha}); "
        "a replay would run a different agent (restore the agent's files as they were, or `polygon run` the "
        "new version)")


def _conversation(turns: list[Turn], end: EndReason) -> Conversation:
    return Conversation(id="c", scenario_id="s", seed=0, agent_name="a", agent_version="v", persona_hash="p",
                        caller_type="cooperative", difficulty=1, language="en", turns=turns, end_reason=end)


def test_stored_caller_says_its_lines_then_the_silent_hangup_then_fails() -> None:
    from polygon.usecases._replay import StoredCaller

    persona = Persona(type="cooperative", goal="g")
    view = CallerView(conversation_id="c", turn=1, persona=persona)
    lines = [Turn(index=0, speaker="agent", text="Hello"), Turn(index=1, speaker="caller", text="Hi"),
             Turn(index=2, speaker="agent", text="Bye")]
    caller = StoredCaller(_conversation(lines, EndReason.CALLER_HANGUP), "openai:m")
    said = [asyncio.run(caller.speak(view)) for _ in range(2)]
    assert [(u.text, u.end) for u in said] == [("Hi", None), ("", "hangup")]
    with pytest.raises(SimulatorFailure, match="turn 1: the stored conversation has no caller line left "
                                               r"to replay \(caller openai:m\)"):
        asyncio.run(caller.speak(view))
