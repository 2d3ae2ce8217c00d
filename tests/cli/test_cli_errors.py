"""Bad input: one line naming file:line (or the field) and exit 2, never a traceback."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from polygon_core.demo import demo_dir

# spec/003's billing-dispute scenario, verbatim.
ARENA = (Path(__file__).parents[1] / "fixtures" / "arena_billing_dispute.yaml").read_text(encoding="utf-8")


def polygon(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The installed console script, as a user runs it."""
    exe = Path(sys.executable).with_name("polygon")
    return subprocess.run([str(exe), *args], cwd=cwd, capture_output=True, text=True, check=False, timeout=120)


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    """A copy of the demo suite's tool library with the arena scenario exactly as published."""
    root = tmp_path / "arena"
    (root / "scenarios").mkdir(parents=True)
    shutil.copy(demo_dir() / "suite" / "tools.yaml", root / "tools.yaml")
    (root / "scenarios" / "billing.yaml").write_text(ARENA, encoding="utf-8")
    return root


def test_arena_scenario_as_written_validates(suite: Path) -> None:
    out = polygon("validate", str(suite), cwd=suite)
    assert out.returncode == 0, out.stderr
    assert "ok" in out.stdout


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (lambda t: t.replace("max_turns: 18", "max_turns: [18"), "billing.yaml:4"),
        (lambda t: t.replace("  temperament:", "  temprament:"), "billing.yaml:7: persona.temprament"),
        (lambda t: t.replace("max_turns: 18", "max_turns: many"), "billing.yaml:4: max_turns"),
        (lambda t: t.replace("id: billing-dispute-v3\n", ""), "missing required field 'id'"),
        (lambda t: t.replace("  - issue_refund ", "  - issue_refnd "), "billing.yaml:16: tools[1]: unknown tool 'issue_refnd'"),
    ],
    ids=["invalid-yaml", "unknown-field", "wrong-type", "missing-id", "unknown-tool"],
)
def test_bad_scenario_gives_one_line_and_exit_2(suite: Path, edit, expected: str) -> None:
    path = suite / "scenarios" / "billing.yaml"
    path.write_text(edit(ARENA), encoding="utf-8")
    for command in (["validate", str(suite)],
                    ["run", str(suite), "--agent", str(demo_dir() / "agents" / "agent_v1.yaml")]):
        out = polygon(*command, cwd=suite)
        assert out.returncode == 2, (command, out.stdout, out.stderr)
        assert "Traceback" not in out.stderr
        lines = [ln for ln in out.stderr.splitlines() if ln.strip()]
        assert len(lines) == 1 and expected in lines[0], out.stderr


def test_schema_command_prints_json_schema(tmp_path: Path) -> None:
    for kind in ("scenario", "agent", "suite", "tools"):
        out = polygon("schema", kind, cwd=tmp_path)
        assert out.returncode == 0
        assert json.loads(out.stdout)["$schema"].startswith("https://json-schema.org/draft/2020-12")
    bad = polygon("schema", "nope", cwd=tmp_path)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


def test_unknown_run_is_a_clear_error(tmp_path: Path) -> None:
    out = polygon("show", "run-does-not-exist", cwd=tmp_path)
    assert out.returncode == 2
    assert "no run 'run-does-not-exist'" in out.stderr and "Traceback" not in out.stderr


def test_model_without_its_key_is_refused_before_anything_runs(suite: Path) -> None:
    import os

    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "POLYGON_OPENAI_API_KEY")}
    exe = Path(sys.executable).with_name("polygon")
    out = subprocess.run([str(exe), "run", str(suite), "--agent", str(demo_dir() / "agents" / "agent_v1.yaml")],
                         cwd=suite, capture_output=True, text=True, check=False, timeout=120,
                         env={**env, "POLYGON_JUDGE_MODEL": "openai:gpt-4o", "POLYGON_HOME": str(suite / ".p")})
    assert out.returncode == 2 and "POLYGON_JUDGE_MODEL='openai:gpt-4o'" in out.stderr
    assert "set OPENAI_API_KEY" in out.stderr


def test_agent_model_for_a_callable_agent_is_refused(suite: Path) -> None:
    out = polygon("run", str(suite), "--agent", str(demo_dir() / "agents" / "agent_v1.yaml"),
                  "--agent-model", "openai:gpt-4o@http://127.0.0.1:9/v1", cwd=suite)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "--agent-model applies to model-backed agents; agent 'northwind-billing' is a callable agent" in \
        " ".join(out.stderr.split())


@pytest.mark.parametrize("run_id", ["Ünï2", "x/y", "../../escape", "-leading-dash", "a" * 201])
def test_a_run_id_that_cannot_name_a_folder_is_exit_2_before_anything_is_stored(tmp_path: Path, run_id: str) -> None:
    # "Ünï2" was run and stored, then refused by Prefect's artifact key with two tracebacks; "x/y"
    # made nested folders; "../../escape" was refused through a Prefect error.
    home = tmp_path / "home"
    out = subprocess.run(
        [str(Path(sys.executable).with_name("polygon")), "run", str(demo_dir() / "suite"),
         "--agent", str(demo_dir() / "agents" / "agent_v1.yaml"), "--seeds", "1", "--run-id", run_id],
        cwd=tmp_path, capture_output=True, text=True, check=False, timeout=120,
        env={**os.environ, "POLYGON_HOME": str(home)})
    assert out.returncode == 2, out.stderr
    assert out.stderr.strip().splitlines() == [
        f"error: run id {run_id!r}: expected ASCII letters, digits, '.', '_' and '-' (starting with a letter or "
        "digit, at most 200 characters)"]
    assert not (home / "artifacts" / "runs").exists()


@pytest.mark.parametrize("seeds", ["0", "-1", "100001"])
def test_seeds_out_of_range_name_the_option(tmp_path: Path, seeds: str) -> None:
    # `--seeds 0` used to run the suite's own seeds; a million seeds reached the Prefect API as a 16 MB body.
    out = polygon("run", str(demo_dir() / "suite"), "--agent", str(demo_dir() / "agents" / "agent_v1.yaml"),
                  "--seeds", seeds, cwd=tmp_path)
    assert out.returncode == 2
    assert "Invalid value for '--seeds'" in out.stderr and "Traceback" not in out.stderr
