"""A suite's own sound-alike groups (suite.yaml `homophones`) reach recognition noise, in simulation
and in replay; a bad file is an error naming it."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from polygon_core.callers import OfflineCaller
from polygon_core.conversation import conversation_key, run_conversation
from polygon_core.demo import DemoAgent, demo_dir
from polygon_core.files import FileErrors, load_suite


def _suite(tmp_path: Path, groups: str) -> Path:
    root = tmp_path / "suite"
    shutil.copytree(demo_dir() / "suite", root)
    (root / "sounds.yaml").write_text(groups, encoding="utf-8")
    with (root / "suite.yaml").open("a", encoding="utf-8") as handle:
        handle.write("homophones: sounds.yaml\n")
    roaming = root / "scenarios" / "04_confused_roaming.yaml"
    roaming.write_text(roaming.read_text(encoding="utf-8").replace("noise: 0.5", "noise: 1.0"), encoding="utf-8")
    return root


def _heard(suite_path: Path, homophones: tuple[tuple[str, ...], ...]) -> list[str]:
    suite = load_suite(suite_path)
    scenario = suite.scenario("roaming-charge-explained")
    cid = conversation_key(scenario, 0)
    conv = asyncio.run(run_conversation(
        scenario, DemoAgent(careful=True), OfflineCaller(scenario.persona, conversation_id=cid, seed=0),
        suite.tools, seed=0, agent_name="n", agent_version="v", homophones=homophones))
    return [t.heard or "" for t in conv.turns if t.speaker == "caller"]


def test_the_suites_groups_are_loaded_and_heard(tmp_path: Path) -> None:
    root = _suite(tmp_path, "groups:\n  - [bill, pill]\n  - [charge, large]\n")
    suite = load_suite(root)
    assert suite.homophones == (("bill", "pill"), ("charge", "large"))
    assert all(s.id != "sounds" for s in suite.scenarios)  # the groups file is not a scenario
    plain = _heard(root, ())
    extended = _heard(root, suite.homophones)
    assert plain != extended
    changed = [(a, b) for a, b in zip(plain, extended, strict=True) if a != b]
    assert any("pill" in b or "large" in b for _a, b in changed), changed


@pytest.mark.parametrize(("text", "message"), [
    ("groups: [[only-one]]\n", "bad group ['only-one']"),
    ("words: []\n", "expected a mapping with a list `groups`"),
])
def test_a_bad_groups_file_names_itself(tmp_path: Path, text: str, message: str) -> None:
    root = _suite(tmp_path, text)
    with pytest.raises(FileErrors) as caught:
        load_suite(root)
    (error,) = caught.value.errors
    assert str(error).startswith(str(root / "sounds.yaml")) and message in str(error)


def test_simulate_and_replay_use_the_suites_groups(polygon_home: Path, tmp_path: Path) -> None:
    from polygon import usecases
    from polygon_core.models import Run

    root = _suite(tmp_path, "groups:\n  - [bill, pill]\n  - [charge, large]\n")
    agent = str(demo_dir() / "agents" / "agent_v1.yaml")
    stores = usecases.open_stores()
    _c, _p, version = usecases.agent_identity(agent, str(root))
    run = Run(id="sounds", suite="s", agent_name="n", agent_version=version, rubric_version="v1", seeds=[0])
    usecases.create_run(stores, run, suite_path=str(root), agent_path=agent)
    cid = usecases.simulate(stores, run.id, str(root), agent, "roaming-charge-explained", 0)
    heard = [t.heard or "" for t in usecases.load_conversation(stores, run.id, cid).turns if t.speaker == "caller"]
    assert any("pill" in h or "large" in h for h in heard), heard
    assert usecases.replay_conversation(stores, run.id, cid).differences == []
