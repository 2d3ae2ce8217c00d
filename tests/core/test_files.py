"""Loading and validating Polygon's files: scenarios, tool libraries, agent configs, suites."""

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
    SuiteConfig,
    _assertion_check,
    agent_version,
    detect_kind,
    json_schema,
    load_agent,
    load_scenario,
    load_suite,
    load_suite_config,
    load_tool_library,
    parse_yaml,
    prompt_hash,
    validate_paths,
)
from polygon_core.models import AgentConfig

# spec/003, verbatim (the article's own first line included).
ARENA = (Path(__file__).parents[1] / "fixtures" / "arena_billing_dispute.yaml").read_text(encoding="utf-8")

TOOLS = """\
tools:
  lookup_account:
    description: Look up a customer's account by id and postcode.
    parameters:
      type: object
      properties:
        account_id: {type: string, pattern: "^[0-9]{4,8}$"}
        postcode: {type: string}
      required: [account_id, postcode]
      additionalProperties: false
    response: {verified: true}
    events: [identity_verified]
  issue_refund:
    description: "Refund a charge. Guarded: requires verified identity."
    parameters:
      type: object
      properties:
        amount: {type: number, exclusiveMinimum: 0}
      required: [amount]
    kind: state
    state: {op: append, path: refunds, record: {amount: "{{ args.amount }}"}}
    events: [refund_issued]
  escalate_to_human:
    parameters:
      type: object
      properties:
        reason: {type: string}
    response: {transferred: true}
    ends_call: transfer
"""

SUITE_YAML = """\
name: arena
rubric: v1
seeds: [0, 1, 2]
judge_model: offline
"""

# A short scenario with known line numbers, for the error tests.
SMALL = """\
id: small
seed: 1
max_turns: 5
persona:
  name: caller
  temperament: impatient
  goal: get a refund
tools:
  - lookup_account
"""


@pytest.fixture(autouse=True)
def _no_assertion_checker(monkeypatch: pytest.MonkeyPatch) -> None:
    # polygon_core.assertions is written in parallel; these tests pin this module's behaviour and
    # inject a checker explicitly where they test the hook.
    monkeypatch.setattr(_assertion_check, "assertion_checker", lambda: None)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def make_suite(root: Path, scenarios: dict[str, str], *, tools: str | None = TOOLS) -> Path:
    write(root / "suite.yaml", SUITE_YAML)
    if tools is not None:
        write(root / "tools.yaml", tools)
    for name, text in scenarios.items():
        write(root / "scenarios" / name, text)
    return root


def only_error(exc: pytest.ExceptionInfo[FileErrors]) -> PolygonFileError:
    assert len(exc.value.errors) == 1, str(exc.value)
    return exc.value.errors[0]


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


# --- one-line errors with file, line and field ------------------------------------------------


def test_unclosed_bracket_reports_the_line_it_opened_on(tmp_path: Path) -> None:
    text = SMALL.replace("  - lookup_account", "  - [lookup_account\nx: 1")
    path = write(tmp_path / "s.yaml", text)
    with pytest.raises(FileErrors) as exc:
        load_scenario(path)
    error = only_error(exc)
    assert (error.line, error.field) == (9, None)
    assert str(error) == (
        f"{path}:9: invalid YAML: '[' is never closed (expected ',' or ']', but got ':' on line 10)"
    )


def test_bad_indent_reports_its_line(tmp_path: Path) -> None:
    path = write(tmp_path / "s.yaml", SMALL.replace("  goal:", " goal:"))
    with pytest.raises(FileErrors) as exc:
        load_scenario(path)
    error = only_error(exc)
    assert error.line == 7
    assert error.message.startswith("invalid YAML: bad indentation")
    assert "\n" not in str(error)


def test_unquoted_colon_in_a_value(tmp_path: Path) -> None:
    path = write(tmp_path / "s.yaml", SMALL.replace("get a refund", "refund: now"))
    with pytest.raises(FileErrors) as exc:
        load_scenario(path)
    error = only_error(exc)
    assert error.line == 7
    assert "quote" in error.message


def test_unknown_field_names_its_line_and_suggests_the_right_one(tmp_path: Path) -> None:
    path = write(tmp_path / "s.yaml", SMALL.replace("temperament", "temprament"))
    with pytest.raises(FileErrors) as exc:
        load_scenario(path)
    error = only_error(exc)
    assert (error.file, error.line, error.field) == (str(path), 6, "persona.temprament")
    assert error.message.startswith(
        "unknown field 'temprament'; did you mean 'temperament'? (expected one of: name, type, "
        "temperament, "
    )
    assert str(error).startswith(f"{path}:6: persona.temprament: unknown field 'temprament'")
    assert "\n" not in str(error)


def test_wrong_type(tmp_path: Path) -> None:
    path = write(tmp_path / "s.yaml", SMALL.replace("max_turns: 5", "max_turns: many"))
    with pytest.raises(FileErrors) as exc:
        load_scenario(path)
    assert str(only_error(exc)) == f"{path}:3: max_turns: expected an integer, got 'many'"


def test_missing_required_field_points_at_the_parent_mapping(tmp_path: Path) -> None:
    path = write(tmp_path / "s.yaml", SMALL.replace("id: small\n", ""))
    with pytest.raises(FileErrors) as exc:
        load_scenario(path)
    assert str(only_error(exc)) == f"{path}:1: id: missing required field 'id'"

    path = write(tmp_path / "g.yaml", SMALL.replace("  goal: get a refund\n", ""))
    with pytest.raises(FileErrors) as exc:
        load_scenario(path)
    assert str(only_error(exc)) == f"{path}:4: persona.goal: missing required field 'goal'"


def test_several_errors_are_reported_together_in_line_order(tmp_path: Path) -> None:
    text = SMALL.replace("max_turns: 5", "max_turns: 0").replace("temperament", "temprament")
    path = write(tmp_path / "s.yaml", text + "noise: loud\n")
    with pytest.raises(FileErrors) as exc:
        load_scenario(path)
    assert [(e.line, e.field) for e in exc.value.errors] == [
        (3, "max_turns"),
        (6, "persona.temprament"),
        (10, "noise"),
    ]
    assert exc.value.errors[0].message == "must be at least 1, got 0"
    assert len(str(exc.value).splitlines()) == 3


def test_model_validator_error_points_at_the_key_it_names(tmp_path: Path) -> None:
    path = write(tmp_path / "s.yaml", SMALL.replace("impatient", "grumpy"))
    with pytest.raises(FileErrors) as exc:
        load_scenario(path)
    error = only_error(exc)
    assert (error.line, error.field) == (6, "persona.temperament")
    assert error.message.startswith("unknown temperament 'grumpy'")


def test_literal_error_suggests_a_close_value(tmp_path: Path) -> None:
    path = write(tmp_path / "s.yaml", SMALL.replace("temperament: impatient", "type: bussy"))
    with pytest.raises(FileErrors) as exc:
        load_scenario(path)
    error = only_error(exc)
    assert (error.line, error.field) == (6, "persona.type")
    assert error.message.endswith("got 'bussy'; did you mean 'busy'?")


def test_number_where_text_is_expected_says_to_quote_it(tmp_path: Path) -> None:
    path = write(tmp_path / "s.yaml", SMALL.replace("id: small", "id: 2024"))
    with pytest.raises(FileErrors) as exc:
        load_scenario(path)
    assert str(only_error(exc)) == (
        f"{path}:1: id: expected a string, got 2024 (put it in quotes to use it as text)"
    )


def test_union_errors_become_one_message(tmp_path: Path) -> None:
    text = SMALL.replace("  goal: get a refund", "  goal: get a refund\n  ground_truth: {a: [1]}")
    path = write(tmp_path / "s.yaml", text)
    with pytest.raises(FileErrors) as exc:
        load_scenario(path)
    error = only_error(exc)
    assert (error.line, error.field) == (8, "persona.ground_truth.a")
    assert error.message == "expected a string, an integer, a number or a boolean, got a list"


def test_duplicate_key_is_an_error(tmp_path: Path) -> None:
    path = write(tmp_path / "s.yaml", SMALL.replace("seed: 1\n", "seed: 1\nseed: 2\n"))
    with pytest.raises(FileErrors) as exc:
        load_scenario(path)
    assert str(only_error(exc)) == f"{path}:3: seed: duplicate key 'seed' (first defined on line 2)"


@pytest.mark.parametrize(
    ("text", "message", "line"),
    [
        ("", "the file is empty; expected a scenario (a YAML mapping)", None),
        ("# only a comment\n", "the file is empty; expected a scenario (a YAML mapping)", None),
        (
            "\n- a\n- b\n",
            "expected a scenario (a YAML mapping of fields) at the top level, got a list",
            2,
        ),
    ],
)
def test_empty_or_non_mapping_file(
    tmp_path: Path, text: str, message: str, line: int | None
) -> None:
    path = write(tmp_path / "s.yaml", text)
    with pytest.raises(FileErrors) as exc:
        load_scenario(path)
    error = only_error(exc)
    assert (error.message, error.line, error.field) == (message, line, None)


def test_control_character_reports_its_line() -> None:
    with pytest.raises(PolygonFileError) as exc:
        parse_yaml("id: x\nseed: 1\u0007\n", "s.yaml")
    assert str(exc.value) == "s.yaml:2: invalid YAML: character U+0007 is not allowed"


def test_error_string_omits_missing_parts() -> None:
    assert str(PolygonFileError("a.yaml", "no such file")) == "a.yaml: no such file"
    assert str(PolygonFileError("a.yaml", "m", line=3)) == "a.yaml:3: m"
    assert str(PolygonFileError("a.yaml", "m", field="tools[1]")) == "a.yaml: tools[1]: m"
    two_lines = PolygonFileError("a.yaml", "two\nlines", line=1, field="x")
    assert str(two_lines) == "a.yaml:1: x: two lines"


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(FileErrors) as exc:
        load_scenario(tmp_path / "nope.yaml")
    assert str(only_error(exc)) == f"{tmp_path / 'nope.yaml'}: no such file"


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


# --- agent configs and versions -----------------------------------------------------------------

AGENT = """\
name: support-bot
description: Northwind's billing line.
prompt_file: prompts/support.md
model: openai:gpt-4o-mini
sampling:
  temperature: 0.2
tools: [lookup_account, issue_refund]
"""

PROMPT = "You are Northwind's billing assistant.\nAlways verify identity before a refund.\n"


def make_agent(root: Path, agent: str = AGENT, prompt: str = PROMPT) -> Path:
    write(root / "prompts" / "support.md", prompt)
    return write(root / "agent.yaml", agent)


def test_agent_prompt_file_is_read_relative_to_the_agent_file(tmp_path: Path) -> None:
    agent = load_agent(make_agent(tmp_path / "agents"))
    assert agent.prompt_text == PROMPT
    assert agent.prompt_path == tmp_path / "agents" / "prompts" / "support.md"
    assert agent.config.sampling.temperature == 0.2
    assert agent.prompt_hash == prompt_hash(PROMPT)


def test_agent_with_inline_prompt(tmp_path: Path) -> None:
    agent = load_agent(write(tmp_path / "a.yaml", "name: a\nprompt: Be brief.\n"))
    assert (agent.prompt_text, agent.prompt_path) == ("Be brief.", None)


def test_missing_prompt_file_points_at_prompt_file(tmp_path: Path) -> None:
    path = write(tmp_path / "agent.yaml", AGENT)
    with pytest.raises(FileErrors) as exc:
        load_agent(path)
    error = only_error(exc)
    assert (error.line, error.field) == (3, "prompt_file")
    assert error.message == f"prompt file not found: {tmp_path / 'prompts' / 'support.md'}"


def test_agent_validator_errors_point_at_the_named_key(tmp_path: Path) -> None:
    path = write(tmp_path / "agent.yaml", "name: a\nmodel: offline\ncallable: nocolon\n")
    with pytest.raises(FileErrors) as exc:
        load_agent(path)
    error = only_error(exc)
    assert (error.line, error.field) == (3, "callable")

    path = write(tmp_path / "both.yaml", "name: a\nprompt: x\nprompt_file: p.md\n")
    with pytest.raises(FileErrors) as exc:
        load_agent(path)
    error = only_error(exc)  # names two keys: stays on the mapping
    assert (error.line, error.field) == (1, None)
    assert error.message == "give `prompt` or `prompt_file`, not both"


def test_agent_version_tracks_behaviour_only(tmp_path: Path) -> None:
    base = load_agent(make_agent(tmp_path / "a"))
    version = agent_version(base.config, base.prompt_text, None)
    assert version == base.version()

    one_word = load_agent(make_agent(tmp_path / "b", prompt=PROMPT.replace("Always", "Never")))
    assert agent_version(one_word.config, one_word.prompt_text, None) != version

    warmer = load_agent(make_agent(tmp_path / "c", AGENT.replace("0.2", "0.7")))
    assert agent_version(warmer.config, warmer.prompt_text, None) != version

    other_model = base.config.model_copy(update={"model": "anthropic:claude-3-5-haiku"})
    assert agent_version(other_model, base.prompt_text) != version

    fewer_tools = base.config.model_copy(update={"tools": ["lookup_account"]})
    assert agent_version(fewer_tools, base.prompt_text) != version

    relabelled = load_agent(
        make_agent(
            tmp_path / "d",
            AGENT.replace("Northwind's billing line.", "Something else entirely.")
            .replace("support-bot", "renamed-bot")
            .replace("prompts/support.md", "./prompts/../prompts/support.md"),
        )
    )
    assert agent_version(relabelled.config, relabelled.prompt_text, None) == version

    # Line endings and trailing whitespace are not a new prompt.
    crlf = PROMPT.replace("\n", "  \r\n") + "\n\n"
    assert prompt_hash(crlf) == prompt_hash(PROMPT)
    assert agent_version(base.config, crlf) == version


def test_agent_version_includes_tool_definitions_when_given(tmp_path: Path) -> None:
    library = load_tool_library(write(tmp_path / "tools.yaml", TOOLS))
    config = AgentConfig(name="a", prompt="p", tools=["issue_refund"])
    with_defs = agent_version(config, "p", library.tools)
    assert with_defs != agent_version(config, "p", None)
    assert agent_version(config, "p", library) == with_defs
    assert agent_version(config, "p", list(library.tools.values())) == with_defs

    changed = dict(library.tools)
    changed["issue_refund"] = changed["issue_refund"].model_copy(update={"description": "Refund."})
    assert agent_version(config, "p", changed) != with_defs
    # A tool the agent is not given does not count.
    changed = dict(library.tools)
    changed["lookup_account"] = changed["lookup_account"].model_copy(update={"description": "x"})
    assert agent_version(config, "p", changed) == with_defs


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
    assert set(SCHEMA_KINDS) == {"scenario", "agent", "suite", "tools", "sweep"}
    with pytest.raises(ValueError, match="known kinds: scenario, sweep, agent, suite, tools"):
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
        "`callable`, `endpoint`), a sweep spec (`agent`, `suite`, `parameters`), a `suite.yaml`, a `tools.yaml` or a suite folder",
        f"{missing}: no such file or folder",
        f"{bad_agent}:3: max_tool_steps: must be at most 20, got 99",
    ]
    assert detect_kind(tmp_path) == "suite"
    assert detect_kind(tmp_path / "tools.yaml") == "tools"
    assert detect_kind(tmp_path / "suite.yaml") == "suite_config"
    assert detect_kind(tmp_path / "x.yaml", {"id": "x", "persona": {}}) == "scenario"
    assert detect_kind(tmp_path / "x.yaml", {"name": "x", "endpoint": "http://a"}) == "agent"
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
    write(root / "probes.yaml", "probes:\n  - id: verifies\n")
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


def test_merge_keys_report_the_line_that_wins(tmp_path: Path) -> None:
    text = "id: m\npersona:\n  <<: {goal: g, difficulty: 2}\n  difficulty: 7\n"
    with pytest.raises(FileErrors) as exc:
        load_scenario(write(tmp_path / "m.yaml", text))
    assert str(only_error(exc)) == (
        f"{tmp_path / 'm.yaml'}:4: persona.difficulty: must be at most 5, got 7"
    )


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
