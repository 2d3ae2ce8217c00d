"""Loading suites: the arena scenario, tool libraries, suite folders and their errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from polygon_core.files import (
    FileErrors,
    SuiteConfig,
    load_scenario,
    load_suite,
    load_suite_config,
    load_tool_library,
    parse_yaml,
)

from ._files_helpers import ARENA, SMALL, SUITE_YAML, TOOLS, make_suite, only_error, write

# The assertion checker is off unless a test injects one (tests/core/conftest.py).
pytestmark = pytest.mark.usefixtures("_no_assertion_checker")


# --- the arena scenario ------------------------------------------------------------------------


def test_arena_scenario_loads_exactly_as_written(tmp_path: Path) -> None:
    root = make_suite(tmp_path / "suite", {"billing.yaml": ARENA})
    suite = load_suite(root)

    assert suite.name == "arena"
    assert suite.config.seeds == [0, 1, 2]
    assert sorted(suite.tools) == ["escalate_to_human", "issue_refund", "lookup_account"]
    (scenario,) = suite.scenarios
    assert scenario.id == "billing-dispute-v3"
    assert (scenario.seed, scenario.max_turns) == (41, 18)
    assert scenario.persona.type == "busy"  # temperament "impatient"
    assert scenario.persona.temperament == "impatient"
    assert scenario.persona.name == "frustrated_returning_customer"
    assert scenario.persona.goal == "reverse a duplicate charge from last month"
    assert scenario.tools == ["lookup_account", "issue_refund", "escalate_to_human"]
    assert scenario.context == {
        "account_status": "verified",
        "ledger": [
            {"date": "2026-06-14", "amount": 49.0, "kind": "subscription"},
            {"date": "2026-06-14", "amount": 49.0, "kind": "duplicate"},
        ],
    }
    assert scenario.assertions == {
        "goal_met": "refund_issued(amount == 49.00)",
        "no_policy_breach": "identity_verified_before(issue_refund)",
        "no_hallucinated_policy": "cites_only(knowledge_base)",
    }
    assert suite.scenario_files == {"billing-dispute-v3": root / "scenarios" / "billing.yaml"}
    assert suite.tools["issue_refund"].name == "issue_refund"


def test_arena_scenario_loads_on_its_own(tmp_path: Path) -> None:
    scenario = load_scenario(write(tmp_path / "arena.yaml", ARENA))
    assert scenario.persona.type == "busy"


def test_yaml_uses_the_core_schema(tmp_path: Path) -> None:
    # YAML 1.1 would read `no` as False, `010` as 8, `1:30` as 90 and an unquoted date as a date.
    doc = parse_yaml("a: no\nb: 010\nc: 1:30\nd: 2026-06-14\ne: true\nf: 0x1f\ng: ~\nh: 1.5\n", "x")
    assert doc.data == {
        "a": "no", "b": 10, "c": "1:30", "d": "2026-06-14", "e": True, "f": 31, "g": None, "h": 1.5
    }


# --- tools and the suite ------------------------------------------------------------------------


def test_unknown_tool_names_the_list_item_and_the_library(tmp_path: Path) -> None:
    typo = ARENA.replace("issue_refund ", "issue_refnd ")
    root = make_suite(tmp_path / "suite", {"billing.yaml": typo})
    with pytest.raises(FileErrors) as exc:
        load_suite(root)
    assert str(only_error(exc)) == (
        f"{root}/scenarios/billing.yaml:16: tools[1]: unknown tool 'issue_refnd'; "
        f"the tool library ({root}/tools.yaml) defines: escalate_to_human, issue_refund, "
        "lookup_account"
    )


def test_load_scenario_checks_tools_when_given_a_library(tmp_path: Path) -> None:
    library = load_tool_library(write(tmp_path / "tools.yaml", TOOLS))
    path = write(tmp_path / "s.yaml", SMALL.replace("lookup_account", "lookup"))
    with pytest.raises(FileErrors) as exc:
        load_scenario(path, tools=library.tools, tools_file="tools.yaml")
    error = only_error(exc)
    assert (error.line, error.field) == (9, "tools[0]")
    assert "unknown tool 'lookup'; the tool library (tools.yaml) defines:" in error.message


def test_scenario_listing_tools_needs_a_tool_library(tmp_path: Path) -> None:
    root = make_suite(tmp_path / "suite", {"billing.yaml": ARENA}, tools=None)
    with pytest.raises(FileErrors) as exc:
        load_suite(root)
    error = only_error(exc)
    assert (error.line, error.field) == (14, "tools")
    assert "no tool library" in error.message


def test_duplicate_scenario_ids_name_both_files(tmp_path: Path) -> None:
    root = make_suite(tmp_path / "suite", {"a.yaml": ARENA, "b.yaml": ARENA})
    with pytest.raises(FileErrors) as exc:
        load_suite(root)
    error = only_error(exc)
    assert error.file == f"{root}/scenarios/b.yaml"
    assert (error.line, error.field) == (2, "id")
    assert error.message == (
        f"duplicate scenario id 'billing-dispute-v3': also defined in {root}/scenarios/a.yaml:2"
    )


def test_suite_finds_scenarios_in_both_places_sorted_by_path(tmp_path: Path) -> None:
    root = tmp_path / "suite"
    write(root / "tools.yaml", TOOLS)
    write(root / "zeta.yaml", SMALL.replace("id: small", "id: zeta"))
    write(root / "alpha.yaml", SMALL.replace("id: small", "id: alpha"))
    write(root / "scenarios" / "b.yaml", SMALL.replace("id: small", "id: sb"))
    write(root / "scenarios" / "group" / "a.yaml", SMALL.replace("id: small", "id: sga"))
    write(root / "scenarios" / ".swap.yaml", "not: a scenario\n")
    suite = load_suite(root)
    assert [s.id for s in suite.scenarios] == ["alpha", "sb", "sga", "zeta"]
    assert suite.name == "suite"  # no suite.yaml: the folder's name
    assert suite.config == SuiteConfig()
    assert suite.config.rubric == "v1" and suite.config.seeds == [0]


def test_suite_collects_errors_from_every_file(tmp_path: Path) -> None:
    root = make_suite(
        tmp_path / "suite",
        {
            "a.yaml": SMALL.replace("max_turns: 5", "max_turns: many"),
            "b.yaml": SMALL.replace("id: small", "id: b").replace("temperament", "temprament"),
        },
    )
    write(root / "suite.yaml", "rubric: v9\nseeds: [1, 1]\n")
    with pytest.raises(FileErrors) as exc:
        load_suite(root)
    assert [(Path(e.file).name, e.line, e.field) for e in exc.value.errors] == [
        ("suite.yaml", 1, "rubric"),
        ("suite.yaml", 2, "seeds"),
        ("a.yaml", 3, "max_turns"),
        ("b.yaml", 6, "persona.temprament"),
    ]


def test_suite_without_scenarios_is_an_error(tmp_path: Path) -> None:
    root = tmp_path / "empty"
    write(root / "suite.yaml", SUITE_YAML)
    with pytest.raises(FileErrors) as exc:
        load_suite(root)
    assert "no scenario files" in only_error(exc).message


def test_agent_file_in_a_suite_folder_is_named_as_such(tmp_path: Path) -> None:
    root = make_suite(tmp_path / "suite", {"billing.yaml": ARENA})
    write(root / "agent.yaml", "name: support\nprompt: Be helpful.\n")
    with pytest.raises(FileErrors) as exc:
        load_suite(root)
    assert "this is an agent config, not a scenario" in only_error(exc).message


def test_tool_library_errors(tmp_path: Path) -> None:
    path = write(
        tmp_path / "tools.yaml",
        """\
tools:
  lookup_account:
    name: lookup
    parameters: {type: object, properties: {id: {type: strng}}}
  issue_refund:
    kind: rules
  escalate_to_human:
    parameters: {type: string}
""",
    )
    with pytest.raises(FileErrors) as exc:
        load_tool_library(path)
    assert [(e.line, e.field) for e in exc.value.errors] == [
        (3, "tools.lookup_account.name"),
        (4, "tools.lookup_account.parameters.properties.id.type"),
        (6, "tools.issue_refund.kind"),
        (8, "tools.escalate_to_human.parameters.type"),
    ]
    assert exc.value.errors[1].message.startswith("invalid JSON Schema: ")
    assert exc.value.errors[2].message == "kind 'rules' needs at least one entry in `rules`"


def test_suite_config_probe_file_must_exist(tmp_path: Path) -> None:
    path = write(tmp_path / "suite.yaml", "probes: probes.yaml\nconcurrency: 4\n")
    with pytest.raises(FileErrors) as exc:
        load_suite_config(path)
    assert (only_error(exc).line, only_error(exc).field) == (1, "probes")
    write(tmp_path / "probes.yaml", "probes: []\n")
    assert load_suite_config(path).concurrency == 4


def test_suite_probe_file_is_not_read_as_a_scenario(tmp_path: Path) -> None:
    root = make_suite(tmp_path / "suite", {"billing.yaml": ARENA})
    write(root / "suite.yaml", SUITE_YAML + "probes: probes.yaml\n")
    write(root / "probes.yaml", "probes:\n  - {id: verifies, question: 'Did it verify?', polarity: wanted}\n")
    suite = load_suite(root)
    assert [s.id for s in suite.scenarios] == ["billing-dispute-v3"]
    assert suite.config.probes == "probes.yaml"


def test_invalid_tool_library_does_not_cascade_into_unknown_tools(tmp_path: Path) -> None:
    root = make_suite(tmp_path / "suite", {"billing.yaml": ARENA}, tools="tools: [oops]\n")
    with pytest.raises(FileErrors) as exc:
        load_suite(root)
    error = only_error(exc)
    assert (Path(error.file).name, error.line, error.field) == ("tools.yaml", 1, "tools")
    assert error.message == "expected a mapping, got a list"
