"""Stored personas: YAML in the artifact store, staleness, regeneration, export/import/pin, runs."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polygon.cli import app
from polygon_core.adapters.artifacts import LocalArtifactStore
from polygon_core.adapters.persona_store import (
    PersonaStore,
    StalePersonasError,
    check_personas_fresh,
    persona_key,
)
from polygon_core.demo import demo_dir
from polygon_core.files import FileErrors, load_suite, prompt_hash

runner = CliRunner()


@pytest.fixture
def agent(tmp_path: Path) -> Path:
    """A copy of demo agent v1 whose prompt file a test may edit."""
    folder = tmp_path / "agent"
    folder.mkdir()
    for name in ("agent_v1.yaml", "prompt_v1.txt"):
        shutil.copy(demo_dir() / "agents" / name, folder / name)
    return folder / "agent_v1.yaml"


def _store(home: Path) -> PersonaStore:
    return PersonaStore(LocalArtifactStore(home / "artifacts"))


def _edit_one_word(agent: Path) -> None:
    prompt = agent.parent / "prompt_v1.txt"
    prompt.write_text(prompt.read_text().replace("Keep answers short", "Keep answers brief"))


def _generate(agent: Path, count: int = 6) -> str:
    result = runner.invoke(app, ["personas", "generate", "--agent", str(agent), "--count", str(count)])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_generate_stores_yaml_under_agent_and_prompt_hash(polygon_home: Path, agent: Path) -> None:
    out = _generate(agent)
    current = prompt_hash((agent.parent / "prompt_v1.txt").read_text())
    assert f"agent northwind-billing: prompt {current}: stored 6 persona(s) (offline)" in out
    records = _store(polygon_home).list("northwind-billing")
    assert len(records) == 6 and {r.status for r in records} == {"active"}
    assert {r.persona.type for r in records if r.persona} == {
        "cooperative", "busy", "distrustful", "confused", "aggressive", "talkative"}
    first = records[0]
    key = persona_key("northwind-billing", current, first.id)
    assert key == f"personas/northwind-billing/{current}/{first.id}.yaml"
    assert (polygon_home / "artifacts" / key).read_text().startswith(f"id: {first.id}\nagent: northwind-billing\n")


def test_one_word_prompt_change_marks_stale_and_a_run_refuses_naming_them(
        polygon_home: Path, agent: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from polygon.cli import _app

    monkeypatch.setattr(_app.console, "_width", 250)
    _generate(agent)
    store = _store(polygon_home)
    old_ids = sorted(r.id for r in store.list("northwind-billing"))
    _edit_one_word(agent)
    new_hash = prompt_hash((agent.parent / "prompt_v1.txt").read_text())
    with pytest.raises(StalePersonasError) as caught:
        check_personas_fresh(store, "northwind-billing", new_hash)
    assert sorted(r.id for r in caught.value.stale) == old_ids
    assert {r.status for r in store.list("northwind-billing")} == {"stale"}  # kept, never deleted
    listed = runner.invoke(app, ["personas", "list", "--stale"], terminal_width=400)
    assert listed.exit_code == 0 and all(i in listed.stdout for i in old_ids)
    # The run stops before anything runs, with one line naming every stale persona.
    result = runner.invoke(app, ["run", str(demo_dir() / "suite"), "--agent", str(agent), "--personas"])
    assert result.exit_code == 2
    assert "error: agent 'northwind-billing': 6 persona(s) were generated from an older prompt" in result.stderr
    assert all(i in result.stderr for i in old_ids) and "--allow-stale" in result.stderr
    # Allowed: used, and the run says which.
    selection = check_personas_fresh(store, "northwind-billing", new_hash, allow_stale=True)
    assert sorted(r.id for r in selection.used) == old_ids
    assert selection.describe().startswith("using 6 persona(s): ")
    assert "(including 6 stale: " in selection.describe()


def test_regenerate_personas_replaces_stale_ones(polygon_home: Path, agent: Path) -> None:
    from polygon.tasks._personas import (
        generate_personas_task,
        mark_stale_personas_task,
        store_personas_task,
    )

    _generate(agent)
    store = _store(polygon_home)
    old_ids = sorted(r.id for r in store.list("northwind-billing"))
    _edit_one_word(agent)
    new_hash = prompt_hash((agent.parent / "prompt_v1.txt").read_text())
    assert sorted(mark_stale_personas_task.fn(str(agent))) == old_ids
    result = generate_personas_task.fn(str(agent), count=6)
    report = store_personas_task.fn(str(agent), result)
    assert report.prompt_hash == new_hash and len(report.stored) == 6 and report.failed == []
    active = store.list("northwind-billing", statuses=["active"])
    assert {r.prompt_hash for r in active} == {new_hash} and len(active) == 6
    assert {p.prompt_version for p in (r.persona for r in active) if p} == {new_hash}
    assert sorted(r.id for r in store.list("northwind-billing", statuses=["stale"])) == old_ids
    selection = check_personas_fresh(store, "northwind-billing", new_hash)
    assert sorted(r.id for r in selection.used) == sorted(r.id for r in active)
    assert "6 stale persona(s) left out" in selection.describe()


@pytest.mark.prefect
@pytest.mark.usefixtures("prefect_harness")
def test_regenerate_personas_flow(polygon_home: Path, agent: Path) -> None:
    from polygon.flows._personas import regenerate_personas

    _generate(agent, count=3)
    _edit_one_word(agent)
    out = regenerate_personas(str(agent), count=3)
    assert len(out["stored"]) == 3 and len(out["marked_stale"]) == 3 and out["failed"] == []
    assert len(_store(polygon_home).list("northwind-billing", statuses=["active"])) == 3


def test_export_edit_import_and_pin(polygon_home: Path, agent: Path, tmp_path: Path) -> None:
    _generate(agent, count=2)
    out = tmp_path / "review"
    assert runner.invoke(app, ["personas", "export", str(out)]).exit_code == 0
    files = sorted(out.glob("*.yaml"))
    assert len(files) == 2
    edited = files[0].read_text().replace("status: active", "status: pinned")
    files[0].write_text(edited.replace("  goal: ", "  goal: politely ", 1))
    result = runner.invoke(app, ["personas", "import", str(files[0])])
    assert result.exit_code == 0, result.output
    store = _store(polygon_home)
    pinned = store.list("northwind-billing", statuses=["pinned"])
    assert len(pinned) == 1 and pinned[0].persona and pinned[0].persona.goal.startswith("politely ")
    # A pinned persona is never marked stale.
    _edit_one_word(agent)
    assert [r.status for r in store.list("northwind-billing") if r.id == pinned[0].id] == ["pinned"]
    store.mark_stale("northwind-billing", "another-hash")
    assert [r.status for r in store.list("northwind-billing") if r.id == pinned[0].id] == ["pinned"]
    # A bad edit names the file, line and field, and nothing is stored.
    files[1].write_text(files[1].read_text().replace("  type: ", "  typo: "))
    with pytest.raises(FileErrors) as caught:
        store.import_files([files[1]])
    assert "typo" in str(caught.value.errors[0]) and str(files[1]) in str(caught.value.errors[0])
    pin = runner.invoke(app, ["personas", "pin", store.list("northwind-billing", statuses=["stale"])[0].id])
    assert pin.exit_code == 0 and len(store.list("northwind-billing", statuses=["pinned"])) == 2


def test_generated_personas_bind_into_the_suite(polygon_home: Path, agent: Path, tmp_path: Path) -> None:
    from polygon_core.adapters.persona_store import use_personas

    _generate(agent, count=6)
    folder, selection = use_personas(_store(polygon_home), demo_dir() / "suite", agent, tmp_path / "home")
    suite = load_suite(folder)
    assert sorted(s.id for s in suite.scenarios) == sorted(r.id for r in selection.used)
    for scenario in suite.scenarios:
        truth = scenario.persona.ground_truth
        assert scenario.context["customer"]["account_id"] == truth["account_id"]
        assert scenario.context["customer"]["postcode"] == truth["postcode"]
        assert "generated-persona" in scenario.tags
    worlds = {s.id: s.description.split(" in ")[1] for s in suite.scenarios}
    refusals = [sid for sid, s in zip(worlds, suite.scenarios, strict=False) if s.persona.intended_outcome == "refusal"]
    assert refusals and {worlds[sid] for sid in refusals} == {"late-fee-demand's world"}
