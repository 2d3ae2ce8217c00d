"""Probe libraries and agent configs as bad input: every problem on its own `file:line: field:` line,
exit 2, the same from `polygon validate` and from `polygon run` (before any run is stored)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml

from polygon_core.demo import demo_dir

# Five probes, four of them broken in a different way (the session's p1.yaml).
BROKEN_PROBES = """\
probes:
  - id: ok_probe
    question: Did the agent greet?
    polarity: wanted
    signal: asked_again_after_strange_reply
  - id: bad_polarity
    question: Did it?
    polarity: sometimes
  - id: ok_probe
    question: Duplicate id?
    polarity: guardrail
  - question: no id here
    polarity: wanted
  - id: typo_key
    questoin: Did it?
    polarity: wanted
"""

BROKEN_PROBE_LINES = [
    "probes.yaml:8: probes[1].polarity: expected 'wanted' or 'guardrail', got 'sometimes'",
    "probes.yaml:9: probes[2].id: duplicate probe id 'ok_probe' (first used at line 2)",
    "probes.yaml:12: probes[3].id: missing required field 'id'",
    "probes.yaml:14: probes[4].question: missing required field 'question'",
    "probes.yaml:15: probes[4].questoin: unknown field 'questoin'; did you mean 'question'? "
    "(expected one of: id, question, polarity, applies_when, signal)",
]

UNKNOWN_SIGNAL = """\
probes:
  - id: unknown_signal
    question: Did the agent do something?
    polarity: wanted
    signal: repeated_same_questoin
"""

UNKNOWN_SIGNAL_LINE = (
    "probes.yaml:5: probes[0].signal: unknown signal 'repeated_same_questoin'; did you mean "
    "'repeated_same_question'? (the offline answerer knows: asked_again_after_strange_reply, "
    "confirmed_details_before_acting, ended_before_goal, gave_reason_for_refusal, invented_policy, "
    "made_unkeepable_promise, offered_transfer_when_stuck, recovered_after_tool_error, "
    "repeated_same_question, verified_identity_before_action; leave `signal` out for a probe only a "
    "model answers)"
)

ENDPOINT_EXPECTED = "expected an http:// or https:// URL with a host (e.g. 'http://127.0.0.1:8000/act')"


def polygon(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The installed console script, as a user runs it, with its own empty POLYGON_HOME."""
    exe = Path(sys.executable).with_name("polygon")
    env = {**os.environ, "POLYGON_HOME": str(cwd / "home")}
    return subprocess.run([str(exe), *args], cwd=cwd, capture_output=True, text=True, check=False,
                          timeout=120, env=env)


def error_lines(out: subprocess.CompletedProcess[str]) -> list[str]:
    assert "Traceback" not in out.stderr, out.stderr
    return [line.removeprefix("error: ") for line in out.stderr.splitlines() if line.strip()]


def run_refused(tmp_path: Path, *args: str) -> list[str]:
    """`polygon run` of the demo suite with `args`: exit 2, nothing stored, the error lines."""
    out = polygon("run", str(demo_dir() / "suite"), "--seeds", "1", *args, cwd=tmp_path)
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert not (tmp_path / "home" / "artifacts" / "runs").exists()
    return error_lines(out)


# --- probe libraries ----------------------------------------------------------------------------


def test_a_broken_probe_library_lists_every_problem_on_one_line_each(tmp_path: Path) -> None:
    (tmp_path / "probes.yaml").write_text(BROKEN_PROBES, encoding="utf-8")
    out = polygon("validate", "probes.yaml", cwd=tmp_path)
    assert out.returncode == 2
    assert error_lines(out) == BROKEN_PROBE_LINES
    agent = str(demo_dir() / "agents" / "agent_v1.yaml")
    assert run_refused(tmp_path, "--agent", agent, "--probes", "probes.yaml") == BROKEN_PROBE_LINES


def test_an_unknown_signal_is_an_error_naming_the_known_ones(tmp_path: Path) -> None:
    (tmp_path / "probes.yaml").write_text(UNKNOWN_SIGNAL, encoding="utf-8")
    out = polygon("validate", "probes.yaml", cwd=tmp_path)
    assert (out.returncode, error_lines(out)) == (2, [UNKNOWN_SIGNAL_LINE])


def test_validate_recognises_a_probe_library_in_either_form(tmp_path: Path) -> None:
    (tmp_path / "mapping.yaml").write_text(
        "probes:\n  - {id: greeted, question: 'Did the agent greet?', polarity: wanted}\n", encoding="utf-8")
    (tmp_path / "list.yaml").write_text(
        "- {id: greeted, question: 'Did the agent greet?', polarity: wanted, signal: invented_policy}\n",
        encoding="utf-8")
    (tmp_path / "empty.yaml").write_text("probes: []\n", encoding="utf-8")
    out = polygon("validate", "mapping.yaml", "list.yaml", "empty.yaml", cwd=tmp_path)
    assert (out.returncode, out.stdout.strip(), out.stderr) == (0, "ok: 3 path(s) valid", "")


def test_a_suites_probe_library_is_checked_with_the_suite(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    (suite / "scenarios").mkdir(parents=True)
    for name in ("tools.yaml", "scenarios/01_billing_dispute.yaml"):
        (suite / name).write_text((demo_dir() / "suite" / name).read_text(encoding="utf-8"), encoding="utf-8")
    (suite / "suite.yaml").write_text("probes: probes.yaml\n", encoding="utf-8")
    (suite / "probes.yaml").write_text(UNKNOWN_SIGNAL, encoding="utf-8")
    out = polygon("validate", "suite", cwd=tmp_path)
    assert (out.returncode, error_lines(out)) == (2, [f"suite/{UNKNOWN_SIGNAL_LINE}"])


def test_schema_lists_the_probe_kind_and_it_matches_the_loader(tmp_path: Path) -> None:
    out = polygon("schema", "probes", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    schema = json.loads(out.stdout)
    assert schema["$id"] == "https://polygon.dev/schema/probes.json"
    bundled = yaml.safe_load((Path(__file__).parents[2] / "polygon_core/probes/library.yaml").read_text("utf-8"))
    jsonschema.validate(bundled, schema)
    jsonschema.validate(bundled["probes"], schema)  # the bare-list form
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(yaml.safe_load(UNKNOWN_SIGNAL), schema)
    assert "probes" in polygon("schema", "--help", cwd=tmp_path).stdout


# --- agent configs ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ('endpoint: "not a url"', f"agent.yaml:2: endpoint: {ENDPOINT_EXPECTED}, got 'not a url'"),
        ('endpoint: "http://"', f"agent.yaml:2: endpoint: {ENDPOINT_EXPECTED}, got 'http://'"),
        ('endpoint: "localhost:8000/act"', f"agent.yaml:2: endpoint: {ENDPOINT_EXPECTED}, got 'localhost:8000/act'"),
        ('model: "frobnicate:gpt-4"',
         "agent.yaml:2: model: model 'frobnicate:gpt-4': expected 'offline', 'openai:<model>', "
         "'anthropic:<model>', or either followed by '@<base URL>' (e.g. 'openai:my-model@http://127.0.0.1:8000/v1')"),
        ('model: "openai:gpt-4o@http://"',
         "agent.yaml:2: model: model 'openai:gpt-4o@http://': the base URL after '@' names no host, or a bad port "
         "(e.g. '@http://127.0.0.1:8000/v1')"),
    ],
    ids=["endpoint-not-a-url", "endpoint-no-host", "endpoint-no-scheme", "model-unknown-provider", "model-url-no-host"],
)
def test_a_malformed_endpoint_or_model_is_bad_input_before_any_run(tmp_path: Path, line: str, expected: str) -> None:
    # Before: validate said ok; run stored a failing run blaming the agent (endpoint), or refused
    # the model naming no file or line.
    (tmp_path / "agent.yaml").write_text(f"name: typo\n{line}\nprompt: You are a phone agent.\n", encoding="utf-8")
    out = polygon("validate", "agent.yaml", cwd=tmp_path)
    assert (out.returncode, error_lines(out)) == (2, [expected])
    assert run_refused(tmp_path, "--agent", "agent.yaml") == [expected]


def test_a_well_formed_endpoint_and_model_still_validate(tmp_path: Path) -> None:
    (tmp_path / "http.yaml").write_text("name: h\nendpoint: http://127.0.0.1:8000/act\n", encoding="utf-8")
    (tmp_path / "model.yaml").write_text("name: m\nprompt: Hi.\nmodel: openai:gpt-4o@https://llm.example/v1\n",
                                         encoding="utf-8")
    out = polygon("validate", "http.yaml", "model.yaml", cwd=tmp_path)  # no key needed to validate
    assert (out.returncode, out.stdout.strip(), out.stderr) == (0, "ok: 2 path(s) valid", "")
