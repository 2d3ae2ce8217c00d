"""Loaded agents and suites are cached per `Stores`, and re-read when their files change."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from polygon import usecases
from polygon_core.adapters.file_cache import FileCaches
from polygon_core.demo import demo_dir


def test_an_edited_agent_and_its_prompt_file_are_read_again(tmp_path: Path) -> None:
    agent = tmp_path / "agent.yaml"
    prompt = tmp_path / "prompt.txt"
    prompt.write_text("Be brief.", encoding="utf-8")
    agent.write_text("name: a\nprompt_file: prompt.txt\nmodel: offline\n", encoding="utf-8")
    caches = FileCaches()
    first = caches.agent(str(agent))
    assert first[1] == "Be brief." and caches.agent(str(agent)) is first  # cached
    prompt.write_text("Be brief and kind.", encoding="utf-8")
    assert caches.agent(str(agent))[1] == "Be brief and kind."
    agent.write_text("name: b\nprompt_file: prompt.txt\nmodel: offline\n", encoding="utf-8")
    assert caches.agent(str(agent))[0].name == "b"


def test_a_scenario_added_to_a_suite_is_seen(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    shutil.copytree(demo_dir() / "suite", suite)
    caches = FileCaches()
    before = {s.id for s in caches.suite(str(suite)).scenarios}
    source = sorted((suite / "scenarios").glob("*.yaml"))[0]
    text = source.read_text(encoding="utf-8")
    scenario_id = caches.suite(str(suite)).scenarios[0].id
    (suite / "scenarios" / "zz-copy.yaml").write_text(
        text.replace(f"id: {scenario_id}", "id: zz-copy", 1), encoding="utf-8")
    after = {s.id for s in caches.suite(str(suite)).scenarios}
    assert after - before == {"zz-copy"}


def test_two_stores_never_share_a_cache_and_shared_stores_keep_theirs(polygon_home: Path) -> None:
    agent = str(demo_dir() / "agents" / "agent_v1.yaml")
    one, two = usecases.open_stores(), usecases.open_stores()
    assert one.caches is not two.caches
    assert one.caches.agent(agent) is one.caches.agent(agent)
    assert two.caches.agent(agent) is not one.caches.agent(agent)  # read again: its own cache
    # Every task's `shared_stores` of one database and artifact store share one cache.
    assert usecases.shared_stores().caches is usecases.shared_stores().caches
    before = one.caches.agent(agent)
    one.caches.clear()
    assert one.caches.memo == {} and one.caches.agent(agent) is not before  # cleared: read again


def test_a_run_s_settings_are_remembered_by_its_stores_only(polygon_home: Path) -> None:
    suite, agent = str(demo_dir() / "suite"), str(demo_dir() / "agents" / "agent_v1.yaml")
    stores = usecases.open_stores()
    run = usecases.new_run(agent, suite, seeds=[0], run_id="cached", roles={}, caches=stores.caches)
    usecases.create_run(stores, run, suite_path=suite, agent_path=agent, repeats=3)
    assert usecases.run_settings(stores, "cached") is usecases.run_settings(stores, "cached")
    other = usecases.open_stores()
    assert other.caches.memo == {}
    assert usecases.run_settings(other, "cached").repeats == 3
    with pytest.raises(ValueError, match="no run 'missing' is stored"):
        usecases.run_settings(stores, "missing")
