"""Published JSON Schemas, validate_paths and the files package's purity."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from polygon_core.files import (
    SCHEMA_KINDS,
    FileErrors,
    PolygonFileError,
    _assertion_check,
    detect_kind,
    json_schema,
    load_suite,
    validate_paths,
)

from ._files_helpers import AGENT, ARENA, SMALL, SUITE_YAML, TOOLS, make_agent, make_suite, write

# The assertion checker is off unless a test injects one (tests/core/conftest.py).
pytestmark = pytest.mark.usefixtures("_no_assertion_checker")


# --- JSON Schemas -------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", SCHEMA_KINDS)
def test_json_schema_is_valid_draft_2020_12(kind: str) -> None:
    schema = json_schema(kind)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"] == f"https://polygon.dev/schema/{kind}.json"
    assert schema["title"] and schema["description"]
    json.dumps(schema)  # plain JSON


def test_schema_kinds() -> None:
    assert set(SCHEMA_KINDS) == {"scenario", "agent", "suite", "tools", "sweep", "probes"}
    with pytest.raises(ValueError, match="known kinds: scenario, sweep, agent, suite, tools, probes"):
        json_schema("sweep-typo")


def test_published_schemas_accept_the_files_the_loader_accepts() -> None:
    def check(kind: str, text: str) -> None:
        schema = json_schema(kind)
        jsonschema.validate(yaml.safe_load(text), schema, jsonschema.Draft202012Validator)

    check("scenario", ARENA)  # temperament without type
    check("tools", TOOLS)  # tool names come from the keys
    check("suite", SUITE_YAML)
    check("agent", AGENT)
    check("scenario", SMALL.replace("  - lookup_account", "  - {name: lookup_account}"))


def test_published_schema_rejects_what_the_loader_rejects() -> None:
    validator = jsonschema.Draft202012Validator(json_schema("scenario"))
    assert not validator.is_valid(yaml.safe_load(ARENA.replace("temperament", "temprament")))
    assert not validator.is_valid(yaml.safe_load(ARENA.replace("max_turns: 18", "max_turns: many")))
    assert not validator.is_valid(yaml.safe_load(ARENA.replace("id: billing-dispute-v3\n", "")))
    suite = jsonschema.Draft202012Validator(json_schema("suite"))
    assert not suite.is_valid({"rubric": "v9"})


# --- validate_paths -----------------------------------------------------------------------------


def test_validate_paths_on_a_good_suite_and_files(tmp_path: Path) -> None:
    root = make_suite(tmp_path / "suite", {"billing.yaml": ARENA})
    agent = make_agent(tmp_path / "agents")
    assert validate_paths([root]) == []
    assert validate_paths(
        [root / "suite.yaml", root / "tools.yaml", root / "scenarios" / "billing.yaml", agent]
    ) == []


def test_validate_paths_on_a_bad_suite(tmp_path: Path) -> None:
    root = make_suite(
        tmp_path / "suite",
        {
            "billing.yaml": ARENA.replace("issue_refund ", "issue_refnd "),
            "other.yaml": SMALL.replace("temperament", "temprament"),
            "broken.yaml": SMALL.replace("  - lookup_account", "  - [lookup_account"),
        },
    )
    errors = validate_paths([str(root)])
    assert [(Path(e.file).name, e.line, e.field) for e in errors] == [
        ("billing.yaml", 16, "tools[1]"),
        ("broken.yaml", 9, None),
        ("other.yaml", 6, "persona.temprament"),
    ]
    assert all(isinstance(e, PolygonFileError) for e in errors)
    # A scenario validated on its own is still checked against its suite's tool library.
    single = validate_paths([root / "scenarios" / "billing.yaml"])
    assert [(e.line, e.field) for e in single] == [(16, "tools[1]")]
    # The same file reached twice is reported once.
    assert len(validate_paths([root, root / "scenarios" / "billing.yaml"])) == 3


def test_validate_paths_detects_kinds(tmp_path: Path) -> None:
    unknown = write(tmp_path / "mystery.yaml", "foo: 1\n")
    missing = tmp_path / "missing.yaml"
    bad_agent = write(tmp_path / "agent.yaml", "name: a\nmodel: offline\nmax_tool_steps: 99\n")
    errors = validate_paths([unknown, missing, bad_agent])
    assert [str(e) for e in errors] == [
        f"{unknown}: cannot tell what kind of file this is: expected a scenario (top-level `id` "
        "and `persona`), an agent config (`name` and one of `prompt`, `prompt_file`, `model`, "
        "`callable`, `endpoint`, or a voice bot's `voice: {url: ...}`), a sweep spec (`agent`, `suite`, `parameters`), a probe library (`probes:` list), a `suite.yaml`, a `tools.yaml` or a suite folder",
        f"{missing}: no such file or folder",
        f"{bad_agent}:3: max_tool_steps: must be at most 20, got 99",
    ]
    assert detect_kind(tmp_path) == "suite"
    assert detect_kind(tmp_path / "tools.yaml") == "tools"
    assert detect_kind(tmp_path / "suite.yaml") == "suite_config"
    assert detect_kind(tmp_path / "x.yaml", {"id": "x", "persona": {}}) == "scenario"
    assert detect_kind(tmp_path / "x.yaml", {"name": "x", "endpoint": "http://a"}) == "agent"
    # A voice bot's agent file (docs/voice.md) has only its socket: the command line used to refuse it.
    assert detect_kind(tmp_path / "x.yaml", {"name": "x", "voice": {"url": "ws://127.0.0.1:8765/ws"}}) == "agent"
    assert detect_kind(tmp_path / "x.yaml", {"name": "x", "voice": {"synthesis": "espeak"}}) is None
    assert detect_kind(tmp_path / "x.yaml", ["a"]) is None


def test_validate_paths_checks_assertions_when_a_checker_exists(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[tuple[str, frozenset[str]]] = []

    def check_expression(expression: str, *, known_names: frozenset[str]) -> str | None:
        seen.append((expression, known_names))
        return "unknown function 'cites_only'" if expression.startswith("cites_only") else None

    monkeypatch.setattr(_assertion_check, "assertion_checker", lambda: check_expression)
    root = make_suite(tmp_path / "suite", {"billing.yaml": ARENA})
    errors = validate_paths([root])
    assert [str(e) for e in errors] == [
        f"{root}/scenarios/billing.yaml:21: assertions.no_hallucinated_policy: "
        "unknown function 'cites_only'"
    ]
    assert seen[0][1] == frozenset(
        {"lookup_account", "issue_refund", "escalate_to_human"}
        | {"identity_verified", "refund_issued"}
    )
    # Loading runs the same check: whatever validate rejects is never run.
    seen.clear()
    with pytest.raises(FileErrors) as caught:
        load_suite(root)
    assert [str(e) for e in caught.value.errors] == [str(e) for e in errors]
    assert seen


def test_validate_paths_skips_assertions_without_a_checker(tmp_path: Path) -> None:
    root = make_suite(tmp_path / "suite", {"billing.yaml": ARENA.replace("(amount", "((amount")})
    assert validate_paths([root]) == []


def test_real_assertion_checker_accepts_the_arena(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assertions = pytest.importorskip("polygon_core.assertions")
    if not hasattr(assertions, "check_expression"):
        pytest.skip("polygon_core.assertions has no check_expression yet")
    monkeypatch.setattr(_assertion_check, "assertion_checker", lambda: assertions.check_expression)
    root = make_suite(tmp_path / "suite", {"billing.yaml": ARENA})
    assert validate_paths([root]) == []
    write(root / "scenarios" / "billing.yaml", ARENA.replace("(amount ==", "((amount =="))
    errors = validate_paths([root])
    assert [(e.line, e.field) for e in errors] == [(19, "assertions.goal_met")]


def test_files_package_stays_pure() -> None:
    import subprocess
    import sys

    code = (
        "import sys, polygon_core.files; "
        "bad = [m for m in ('prefect', 'sqlalchemy', 'sqlmodel', 'boto3', 'openai', 'anthropic', "
        "'httpx') if m in sys.modules]; print(','.join(bad))"
    )
    repo = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=repo
    )
    assert out.stdout.strip() == ""
