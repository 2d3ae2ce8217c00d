"""Loaded agents and suites are cached per process, and re-read when their files change."""

from __future__ import annotations

import shutil
from pathlib import Path

from polygon import usecases
from polygon_core.demo import demo_dir


def test_an_edited_agent_and_its_prompt_file_are_read_again(tmp_path: Path) -> None:
    agent = tmp_path / "agent.yaml"
    prompt = tmp_path / "prompt.txt"
    prompt.write_text("Be brief.", encoding="utf-8")
    agent.write_text("name: a\nprompt_file: prompt.txt\nmodel: offline\n", encoding="utf-8")
    first = usecases._agent(str(agent))
    assert first[1] == "Be brief." and usecases._agent(str(agent)) is first  # cached
    prompt.write_text("Be brief and kind.", encoding="utf-8")
    assert usecases._agent(str(agent))[1] == "Be brief and kind."
    agent.write_text("name: b\nprompt_file: prompt.txt\nmodel: offline\n", encoding="utf-8")
    assert usecases._agent(str(agent))[0].name == "b"


def test_a_scenario_added_to_a_suite_is_seen(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    shutil.copytree(demo_dir() / "suite", suite)
    before = {s.id for s in usecases._suite(str(suite)).scenarios}
    source = sorted((suite / "scenarios").glob("*.yaml"))[0]
    text = source.read_text(encoding="utf-8")
    scenario_id = usecases._suite(str(suite)).scenarios[0].id
    (suite / "scenarios" / "zz-copy.yaml").write_text(
        text.replace(f"id: {scenario_id}", "id: zz-copy", 1), encoding="utf-8")
    after = {s.id for s in usecases._suite(str(suite)).scenarios}
    assert after - before == {"zz-copy"}
