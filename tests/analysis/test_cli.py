"""`polygon analyze-prompt`: the --json shape, the terminal view, and one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polygon.cli import app
from polygon_core.demo import demo_dir
from polygon_core.files import prompt_hash

from ._corpus import CASES, CORPUS

runner = CliRunner()
AXES = ["overload", "attention_dilution", "conflict", "ambiguity", "redundancy"]


def _json(*args: str) -> dict:
    result = runner.invoke(app, ["analyze-prompt", *args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.parametrize("name", ["en/overload.txt", "ru/redundancy.txt"])
def test_json_shape_is_exact_and_spans_slice_the_file(name: str, polygon_home: Path) -> None:
    path = CORPUS / name
    text = path.read_text(encoding="utf-8")
    out = _json(str(path))
    assert list(out["axes"]) == AXES
    for axis in AXES:
        entry = out["axes"][axis]
        assert set(entry) == {"score", "tiers", "set_by", "highlights"}
        assert entry["set_by"] is None or entry["set_by"] in entry["tiers"]
        assert isinstance(entry["score"], float) and 0.0 <= entry["score"] <= 1.0
        assert set(entry["tiers"]) <= {"rules", "surprisal", "embeddings", "judge"}
        for h in entry["highlights"]:
            assert set(h) == {"start", "end", "reason", "tier"}
            assert isinstance(h["start"], int) and isinstance(h["end"], int) and isinstance(h["reason"], str)
            assert text[h["start"]:h["end"]].strip() == text[h["start"]:h["end"]] != ""
    assert out["prompt_hash"] == prompt_hash(text)
    assert out["tiers_run"] == ["rules", "surprisal", "embeddings"]
    assert out["tiers_skipped"] == {"judge": "no judge model configured (POLYGON_JUDGE_MODEL is offline)"}
    # Stored with the prompt version.
    assert (polygon_home / "artifacts" / "analyses" / f"{prompt_hash(text)}.json").is_file()


def test_json_is_deterministic_and_max_tier_applies(polygon_home: Path) -> None:
    path = str(CORPUS / "en" / "vague.txt")
    first, second = _json(path, "--no-store"), _json(path, "--no-store")
    assert first == second
    assert not (polygon_home / "artifacts").exists()
    one = _json(path, "--max-tier", "1", "--no-store")
    assert one["tiers_run"] == ["rules"]
    assert {e["tiers"] == ["rules"] for e in one["axes"].values()} == {True}


def test_agent_and_previous(polygon_home: Path) -> None:
    agent = demo_dir() / "agents" / "agent_v2.yaml"
    out = _json("--agent", str(agent), "--previous", str(demo_dir() / "agents" / "prompt_v1.txt"))
    v1 = (demo_dir() / "agents" / "prompt_v1.txt").read_text(encoding="utf-8")
    v2 = (demo_dir() / "agents" / "prompt_v2.txt").read_text(encoding="utf-8")
    assert out["prompt_hash"] == prompt_hash(v2)
    assert out["previous"]["prompt_hash"] == prompt_hash(v1)
    changes = out["previous"]["changes"]
    assert list(changes) == AXES
    for axis in AXES:
        c = changes[axis]
        assert c["after"] == out["axes"][axis]["score"]
        assert c["delta"] == round(c["after"] - c["before"], 4)
    stored = sorted(p.name for p in (polygon_home / "artifacts" / "analyses").iterdir())
    assert stored == sorted([f"{prompt_hash(v1)}.json", f"{prompt_hash(v2)}.json"])


def test_terminal_view_shows_prompt_axes_and_highlights(polygon_home: Path) -> None:
    case = next(c for c in CASES if c.id == "en-conflict")
    result = runner.invoke(app, ["analyze-prompt", str(CORPUS / "en" / "conflict.txt"), "--no-store"],
                           env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "You are Mia, the booking assistant for Harbor Dental." in result.stdout
    assert "excludes the rule “Never tell the caller the price of a treatment…”" in result.stdout
    start, end = case.planted[0]
    assert f"[{start}:{end}]" in result.stdout
    assert "tiers run: rules, surprisal, embeddings" in result.stdout


@pytest.mark.parametrize(("args", "message"), [
    ([], "give a prompt FILE or --agent A.yaml (exactly one)"),
    (["x.txt", "--agent", "a.yaml"], "give a prompt FILE or --agent A.yaml (exactly one)"),
    (["missing.txt"], "no prompt file missing.txt"),
    (["PROMPT", "--language", "de"], "--language must be en or ru; got 'de'"),
])
def test_user_errors_are_one_line_and_exit_2(args: list[str], message: str, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "PROMPT").write_text("Always confirm the amount.", encoding="utf-8")
    result = runner.invoke(app, ["analyze-prompt", *args, "--no-store"])
    assert result.exit_code == 2
    assert result.stderr.strip() == f"error: {message}"


def test_a_configured_judge_model_runs_as_tier_four(polygon_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The fake server answers the schema with its maxima: every axis scores 1.0 from the judge.
    from tests.fakes.llm_server import FakeLLMServer

    path = str(CORPUS / "en" / "vague.txt")
    offline = _json(path, "--max-tier", "3", "--no-store")
    with FakeLLMServer() as server:
        monkeypatch.setenv("POLYGON_JUDGE_MODEL", f"openai:judge-1@{server.openai_url}")
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        out = _json(path, "--no-store")
        requests = server.requests
        assert _json(path, "--max-tier", "3", "--no-store") == offline  # the offline tiers never need it
        assert server.requests == requests
    assert requests == 1
    assert out["tiers_run"] == ["rules", "surprisal", "embeddings", "judge"]
    assert out["tiers_skipped"] == {}
    weights = {"rules": 1.0, "surprisal": 0.5, "embeddings": 1.0}
    set_by = {axis: offline["axes"][axis]["set_by"] for axis in AXES}
    assert set_by == {"overload": None, "attention_dilution": None, "conflict": None,
                      "ambiguity": "rules", "redundancy": None}
    for axis in AXES:
        assert out["axes"][axis]["tiers"] == offline["axes"][axis]["tiers"] + ["judge"]
        # The fake judge quotes nothing it can be located by, so it is never confident: an axis a
        # confident offline tier sets keeps that score, the others are the mean with the judge's 1.0.
        assert out["axes"][axis]["set_by"] == set_by[axis]
        total = sum(weights[t] for t in offline["axes"][axis]["tiers"])
        expected = (offline["axes"][axis]["score"] if set_by[axis] else
                    (offline["axes"][axis]["score"] * total + 1.0) / (total + 1.0))
        assert out["axes"][axis]["score"] == pytest.approx(expected, abs=1e-4)


def test_a_judge_provider_error_is_one_line_and_the_offline_analysis_stands(
        polygon_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.fakes.llm_server import Behaviour, FakeLLMServer

    path = str(CORPUS / "en" / "vague.txt")
    offline = _json(path, "--max-tier", "3", "--no-store")
    with FakeLLMServer(Behaviour(fault_for=lambda n: "401")) as server:
        monkeypatch.setenv("POLYGON_JUDGE_MODEL", f"openai:judge-1@{server.openai_url}")
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        result = runner.invoke(app, ["analyze-prompt", path, "--no-store", "--json"])
        url = server.openai_url
    assert result.exit_code == 0, result.output
    reason = f"401 Unauthorized from openai:judge-1 at {url}: check OPENAI_API_KEY"
    assert result.stderr == f"warning: judge tier skipped, offline tiers only: {reason}\n"
    out = json.loads(result.stdout)
    assert out["tiers_run"] == ["rules", "surprisal", "embeddings"]
    assert out["tiers_skipped"] == {"judge": f"failed: {reason}"}
    assert out["axes"] == offline["axes"]


def test_a_bad_judge_model_name_is_one_line(polygon_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POLYGON_JUDGE_MODEL", "mystery:model")
    result = runner.invoke(app, ["analyze-prompt", str(CORPUS / "en" / "vague.txt"), "--no-store"])
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ") and len(result.stderr.strip().splitlines()) == 1
