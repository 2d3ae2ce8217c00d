"""Storage with the prompt version, the change from the previous version, and the Prefect task."""

from __future__ import annotations

import json
from pathlib import Path

from polygon.tasks._analysis import analyze_prompt_task

from polygon.usecases import analyze_and_store
from polygon_core.adapters.analysis_store import analysis_key, load_analysis
from polygon_core.adapters.artifacts import LocalArtifactStore
from polygon_core.analysis import analyze_prompt, compare_analyses
from polygon_core.demo import demo_dir
from polygon_core.files import prompt_hash

from ._corpus import CASES

BY_ID = {c.id: c for c in CASES}


def test_analysis_is_stored_under_the_prompt_hash(tmp_path: Path) -> None:
    store = LocalArtifactStore(tmp_path)
    text = BY_ID["ru-conflict"].defect
    analysis = analyze_and_store(store, text, max_tier=3)
    key = f"analyses/{prompt_hash(text)}.json"
    assert analysis_key(analysis.prompt_hash) == key
    assert store.list("analyses/") == [key]
    stored = load_analysis(store, analysis.prompt_hash)
    assert stored is not None
    assert stored.prompt == text
    assert stored.model_dump(exclude={"prompt"}) == analysis.model_dump()
    assert json.loads(store.get_text(key))["axes"]["conflict"]["score"] == analysis.axes["conflict"].score
    assert load_analysis(store, "0123abcd") is None


def test_no_store_writes_nothing(tmp_path: Path) -> None:
    analysis = analyze_and_store(None, "Always confirm the amount.", max_tier=1)
    assert analysis.tiers_run == ["rules"]
    assert list(tmp_path.iterdir()) == []


def test_change_from_the_previous_version() -> None:
    case = BY_ID["en-conflict"]
    before, after = analyze_prompt(case.clean, max_tier=3), analyze_prompt(case.defect, max_tier=3)
    changes = compare_analyses(before, case.clean, after, case.defect)
    assert list(changes) == ["overload", "attention_dilution", "conflict", "ambiguity", "redundancy"]
    conflict = changes["conflict"]
    assert (conflict.before, conflict.after) == (0.0, after.axes["conflict"].score)
    assert conflict.delta == after.axes["conflict"].score
    assert conflict.new == ["Always tell the caller the price of a treatment before you book it.",
                            "Never tell the caller the price of a treatment on the phone; prices are sent by email."]
    assert conflict.resolved == []
    back = compare_analyses(after, case.defect, before, case.clean)["conflict"]
    assert back.delta == -after.axes["conflict"].score and back.resolved == conflict.new and back.new == []


def test_task_body_analyses_the_agent_prompt_and_stores_it(polygon_home: Path) -> None:
    agent = demo_dir() / "agents" / "agent_v2.yaml"
    out = analyze_prompt_task.fn(str(agent))  # no judge model configured: the offline tiers
    text = (demo_dir() / "agents" / "prompt_v2.txt").read_text(encoding="utf-8")
    assert out["prompt_hash"] == prompt_hash(text)
    assert out["tiers_run"] == ["rules", "surprisal", "embeddings"]
    assert out["tiers_skipped"] == {"judge": "no judge model configured (POLYGON_JUDGE_MODEL is offline)"}
    assert out["axes"] == analyze_prompt(text, language="en", max_tier=3).to_json()["axes"]
    stored = LocalArtifactStore(polygon_home / "artifacts")
    assert stored.list("analyses/") == [f"analyses/{prompt_hash(text)}.json"]
    assert analyze_prompt_task.retries == 2
