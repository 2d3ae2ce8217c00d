"""One validation path: whatever `polygon validate` rejects, loading and `polygon run` refuse too.

Each case breaks a copy of the demo suite the way issue 16 found `run` accepting (and scoring, or
crashing on) what `validate` let through or rejected. For each: validate names the file and line,
`load_suite` / `load_agent` raise the same errors, and `polygon run` exits 2 with that line before
any run row (or database) exists.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polygon.cli import app
from polygon_core.demo import demo_dir
from polygon_core.files import FileErrors, load_agent, load_suite, validate_paths

runner = CliRunner()
SCENARIO = "suite/scenarios/01_billing_dispute.yaml"


def _replace(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


CASES: dict[str, tuple[str, str, str, str]] = {
    # name: (file to edit, old text, new text, expected error after "error: ")
    "assertion_validate_rejects": (
        SCENARIO,
        "goal_met: refund_issued(amount == 49.00)",
        "goal_met: refund_issud(amount == 49.00)",
        f"{SCENARIO}:29: assertions.goal_met: unknown function 'refund_issud'",
    ),
    "recursive_alias_in_context": (
        SCENARIO,
        "context:\n",
        "context:\n  loop: &loop [1, *loop]\n",
        f"{SCENARIO}:19: recursive alias *loop: it refers to a mapping or list that contains it "
        "(Polygon's data cannot hold a cycle)",
    ),
    "unimportable_callable": (
        "agent.yaml",
        "polygon_core.demo:DemoAgentV1",
        "no_such_module_xyz:Agent",
        # Looked for beside the agent file, in the suite folder, then on the Python path (issue 31).
        "agent.yaml:6: callable: callable 'no_such_module_xyz:Agent': no module 'no_such_module_xyz' in "
        "{root}, {root}/suite and the Python path; put no_such_module_xyz.py in {root} or {root}/suite, or "
        "install its package or add its folder to PYTHONPATH",
    ),
    "missing_callable_attribute": (
        "agent.yaml",
        "polygon_core.demo:DemoAgentV1",
        "polygon_core.demo:DemoAgentV9",
        "agent.yaml:6: callable: callable 'polygon_core.demo:DemoAgentV9': module "
        "'polygon_core.demo' defines no 'DemoAgentV9'",
    ),
    # Issue 32 item 8: an attribute that is a value, not a class or function, passed validate and
    # failed once the run imported it. Read with `ast` (`this` is not imported: its poem is not
    # printed), or asked of a module already imported (`os`).
    "callable_is_a_string": (
        "agent.yaml",
        "polygon_core.demo:DemoAgentV1",
        "this:s",
        "agent.yaml:6: callable: callable 'this:s' is neither a class nor a function: module 'this' "
        "defines 's' as a str",
    ),
    "callable_is_a_string_of_an_imported_module": (
        "agent.yaml",
        "polygon_core.demo:DemoAgentV1",
        "os:sep",
        "agent.yaml:6: callable: callable 'os:sep' is neither a class nor a function: module 'os' "
        "defines 'sep' as a str",
    ),
    "invalid_regex_pattern": (
        "suite/tools.yaml",
        'pattern: "^[0-9]{4,8}$"',
        'pattern: "^[0-9]{4,8$("',
        "suite/tools.yaml:8: tools.lookup_account.parameters.properties.account_id.pattern: "
        "invalid JSON Schema: '^[0-9]{4,8$(' is not a 'regex'",
    ),
    "backtracking_regex_pattern": (
        "suite/tools.yaml",
        'pattern: "^[0-9]{4,8}$"',
        'pattern: "^([0-9])\\\\1{3,7}$"',
        "suite/tools.yaml:8: tools.lookup_account.parameters.properties.account_id.pattern: "
        "pattern '^([0-9])\\\\1{3,7}$' cannot be matched in linear time (invalid escape sequence: \\1); "
        "Polygon matches tool-schema patterns with RE2, which has no backreferences or lookarounds",
    ),
    # Issue 32 item 3: the error quotes the pattern, whose `[/a-z]` Rich read as a closing tag
    # (MarkupError, a traceback and exit 1); it is printed as written.
    "markup_in_regex_pattern": (
        "suite/tools.yaml",
        'pattern: "^[0-9]{4,8}$"',
        'pattern: "(?<=x)[/a-z]+"',
        "suite/tools.yaml:8: tools.lookup_account.parameters.properties.account_id.pattern: "
        "pattern '(?<=x)[/a-z]+' cannot be matched in linear time (invalid perl operator: (?<=); "
        "Polygon matches tool-schema patterns with RE2, which has no backreferences or lookarounds",
    ),
    "broken_rule_when": (
        "suite/tools.yaml",
        '- when: "True"',
        '- when: "args.amount >"',
        "suite/tools.yaml:20: tools.lookup_account.rules[1].when: rule condition: syntax error in "
        "'args.amount >': invalid syntax",
    ),
    "huge_constant_template": (
        "suite/tools.yaml",
        "verified: true\n",
        "verified: \"{{ 'a' * 3000000000 }}\"\n",
        "suite/tools.yaml:16: tools.lookup_account.rules[0].response.verified: template "
        "\"{{ 'a' * 3000000000 }}\": the repeated value exceeds the template limit of 100,000",
    ),
    # Issue 32 item 1: constant memory bombs in expressions are refused before anything runs
    # (validation evaluates the constant part under the evaluator's limits: nothing is allocated).
    "percent_width_bomb_assertion": (
        SCENARIO,
        "goal_met: refund_issued(amount == 49.00)",
        "goal_met: len('%02000000000d' % 1) > 0",
        f"{SCENARIO}:29: assertions.goal_met: the format field width 2,000,000,000 exceeds the "
        "expression limit of 100,000",
    ),
    "ljust_bomb_rule": (
        "suite/tools.yaml",
        '- when: "True"',
        "- when: \"'x'.ljust(2000000000) != args.get('postcode')\"",
        "suite/tools.yaml:20: tools.lookup_account.rules[1].when: rule condition: "
        "\"'x'.ljust(2000000000) != args.get('postcode')\": the padded text (2,000,000,000 characters) "
        "exceeds the expression limit of 100,000",
    ),
    "prompt_file_outside": (
        "agent.yaml",
        "prompt_file: prompt_v1.txt",
        "prompt_file: ../../../../../../etc/passwd",
        "agent.yaml:4: prompt_file: prompt file '../../../../../../etc/passwd' is outside the agent "
        "file's folder (.); use a path relative to the agent file, inside its folder",
    ),
}


def _broken_copy(root: Path, case: str) -> None:
    shutil.copytree(demo_dir() / "suite", root / "suite")
    for extra in sorted((root / "suite" / "scenarios").glob("*.yaml"))[1:]:
        extra.unlink()  # one scenario keeps the run short
    shutil.copy(demo_dir() / "agents" / "agent_v1.yaml", root / "agent.yaml")
    shutil.copy(demo_dir() / "agents" / "prompt_v1.txt", root / "prompt_v1.txt")
    target, old, new, _expected = CASES[case]
    _replace(root / target, old, new)


def _expected(case: str) -> str:
    """The case's error, in the copy the test runs in (the current folder)."""
    return CASES[case][3].replace("{root}", str(Path.cwd().resolve()))


@pytest.fixture
def in_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[str], Path]:
    def make(case: str) -> Path:
        root = tmp_path / case
        _broken_copy(root, case)
        monkeypatch.chdir(root)  # errors name paths as the user typed them
        return root

    return make


@pytest.mark.parametrize("case", sorted(CASES))
def test_validate_and_loading_reject_the_same(case: str, in_copy: Callable[[str], Path]) -> None:
    in_copy(case)
    expected = _expected(case)
    assert [str(e) for e in validate_paths([Path("suite"), Path("agent.yaml")])] == [expected]
    with pytest.raises(FileErrors) as caught:
        if CASES[case][0] == "agent.yaml":
            load_agent("agent.yaml", suite="suite")
        else:
            load_suite("suite")
    assert [str(e) for e in caught.value.errors] == [expected]


@pytest.mark.parametrize("case", sorted(CASES))
def test_run_refuses_before_creating_a_run_row(
    case: str, in_copy: Callable[[str], Path], polygon_home: Path
) -> None:
    in_copy(case)
    result = runner.invoke(app, ["run", "suite", "--agent", "agent.yaml", "--seeds", "1"])
    assert result.exit_code == 2, result.output
    assert result.stderr.strip().splitlines() == [f"error: {_expected(case)}"]
    assert "Traceback" not in result.output
    assert not (polygon_home / "polygon.db").exists()  # no run row, not even a database


def test_a_callable_whose_import_fails_is_refused_before_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, polygon_home: Path
) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "broken_agent_h16.py").write_text(
        "raise RuntimeError('boom')\n\n\nclass Agent:\n    def act(self, request):\n        return {}\n",
        encoding="utf-8")
    monkeypatch.syspath_prepend(str(package))
    _broken_copy(tmp_path / "run", "unimportable_callable")
    monkeypatch.chdir(tmp_path / "run")
    _replace(Path("agent.yaml"), "no_such_module_xyz:Agent", "broken_agent_h16:Agent")
    assert validate_paths([Path("agent.yaml")]) == []  # located, not executed
    result = runner.invoke(app, ["run", "suite", "--agent", "agent.yaml", "--seeds", "1"])
    assert result.exit_code == 2, result.output
    assert result.stderr.strip().splitlines() == [
        "error: agent.yaml: callable 'broken_agent_h16:Agent': importing it failed: RuntimeError: boom"
    ]
    assert not (polygon_home / "polygon.db").exists()
