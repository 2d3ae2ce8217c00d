"""Stub templates: a name that is not there is an error (StrictUndefined), and a misspelled
argument is refused when the suite loads, at its line, with the closest declared name."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polygon.cli import app
from polygon_core.demo import demo_dir
from polygon_core.files import validate_paths
from polygon_core.models import StateOp, tool_def
from polygon_core.stubs import StubError, declared_arguments, template_argument_names, unknown_argument

from ._stubs_helpers import REFUND_PARAMS, env_of


def _refund(record: dict[str, str]) -> object:
    return tool_def(name="issue_refund", parameters=REFUND_PARAMS, kind="state",
                    state=StateOp(op="append", path="refunds", record=record))


def test_a_misspelled_argument_fails_the_stub_instead_of_storing_none() -> None:
    env = env_of(_refund({"amount": "{{ args.amout }}"}), state={})  # type: ignore[arg-type]
    with pytest.raises(StubError, match="'dict object' has no attribute 'amout'"):
        env.call("issue_refund", {"amount": 49.0}, turn=1)
    assert env.state == {}


def test_a_misspelled_argument_inside_text_fails_too() -> None:
    env = env_of(_refund({"note": "refund of {{ args.amout }}"}), state={})  # type: ignore[arg-type]
    with pytest.raises(StubError, match="has no attribute 'amout'"):
        env.call("issue_refund", {"amount": 49.0}, turn=1)


def test_default_still_covers_an_optional_argument_left_out() -> None:
    env = env_of(_refund({"amount": "{{ args.amount }}", "reason": "{{ args.reason | default('') }}"}),  # type: ignore[arg-type]
                 state={})
    env.call("issue_refund", {"amount": 49.0}, turn=1)
    assert env.state == {"refunds": [{"amount": 49.0, "reason": ""}]}


def test_template_argument_names_and_the_schema_they_are_checked_against() -> None:
    assert template_argument_names("{{ args.amout + 1 }} {{ args['reason'] }} {{ state.x }}") == ["amout", "reason"]
    known = declared_arguments(REFUND_PARAMS)
    assert known == frozenset({"amount", "reason"})
    assert unknown_argument("{{ args.amout }}", known) == (
        "template reads args.amout, which is not an argument of this tool (its parameters: amount, reason); "
        "did you mean 'amount'?")
    assert unknown_argument("{{ args.amount }}", known) is None
    assert declared_arguments({**REFUND_PARAMS, "additionalProperties": True}) is None
    assert declared_arguments({"type": "object"}) is None


@pytest.mark.parametrize("template", ["{{ args.amout }}", "{{ args.amout + 1 }}"])
def test_validate_refuses_a_misspelled_argument_at_its_line(
    template: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(demo_dir() / "suite", tmp_path / "suite")
    tools = tmp_path / "suite" / "tools.yaml"
    text = tools.read_text(encoding="utf-8")
    assert '{amount: "{{ args.amount }}"' in text
    tools.write_text(text.replace('{amount: "{{ args.amount }}"', f'{{amount: "{template}"'), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    expected = ("suite/tools.yaml:37: tools.issue_refund.state.record.amount: template reads args.amout, "
                "which is not an argument of this tool (its parameters: amount, reason); did you mean 'amount'?")
    assert [str(e) for e in validate_paths([Path("suite")])] == [expected]
    result = CliRunner().invoke(app, ["validate", "suite"])
    assert result.exit_code == 2, result.output
    assert result.stderr.strip() == f"error: {expected}"


def test_an_optional_argument_left_out_reads_as_none_in_a_value_and_empty_in_text() -> None:
    # `reason` is declared and optional: an agent may leave it out. Strict templates made that a
    # simulator_error, for a suite `validate` had accepted.
    env = env_of(_refund({"amount": "{{ args.amount }}", "reason": "{{ args.reason }}",  # type: ignore[arg-type]
                          "note": "refund{% if args.reason %} for {{ args.reason }}{% endif %}",
                          "label": "r-{{ args.reason }}"}), state={})
    env.call("issue_refund", {"amount": 49.0}, turn=1)
    assert env.state == {"refunds": [{"amount": 49.0, "reason": None, "note": "refund", "label": "r-"}]}


def test_a_missing_name_inside_a_list_is_refused_not_stored() -> None:
    # `[args.amount, args.reasn]` used to store an Undefined in the state, which failed only when the
    # conversation was written (json.dumps: TypeError).
    env = env_of(_refund({"pair": "{{ [args.amount, args.reasn] }}"}), state={})  # type: ignore[arg-type]
    with pytest.raises(StubError, match="has no attribute 'reasn'"):
        env.call("issue_refund", {"amount": 49.0}, turn=1)
    assert env.state == {}


def test_a_chain_through_a_missing_state_key_still_takes_its_default_and_tests_false() -> None:
    env = env_of(_refund({"who": "{{ state.customer.name | default('unknown') }}",  # type: ignore[arg-type]
                          "verified": "{{ 'yes' if state.verified else 'no' }}"}), state={})
    env.call("issue_refund", {"amount": 49.0}, turn=1)
    assert env.state == {"refunds": [{"who": "unknown", "verified": "no"}]}
