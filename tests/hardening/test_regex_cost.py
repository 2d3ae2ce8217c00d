"""Tool-schema patterns run in linear time: a backtracking pattern cannot stall a run or an import.

`^(a+)+$` against 64 a's and a '!' takes Python's `re` about 2**64 steps; RE2 answers at once. Before
the fix each of these calls hung the test (and a run, or an import of a hostile export).
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from polygon_core.imports import check_imported_tool_calls
from polygon_core.models import Conversation, EndReason, ToolCall, ToolDef, Turn, tool_def
from polygon_core.stubs import StubError, ToolEnvironment, UnsupportedPatternError, pattern_problems, tool_validator

EVIL = "^(a+)+$"
HOSTILE = "a" * 64 + "!"


def _tool(pattern: str = EVIL, where: str = "pattern") -> ToolDef:
    if where == "pattern":
        schema: dict[str, Any] = {"type": "object", "properties": {"code": {"type": "string", "pattern": pattern}}}
    else:
        schema = {"type": "object", "patternProperties": {pattern: {"type": "integer"}}}
    return tool_def(name="lookup", parameters=schema, response={"ok": True})


def test_a_simulated_call_against_a_backtracking_pattern_is_invalid_at_once() -> None:
    printed = _in_child(
        "from tests.hardening.test_regex_cost import HOSTILE, _tool\n"
        "from polygon_core.stubs import ToolEnvironment\n"
        "environment = ToolEnvironment({'lookup': _tool()}, {}, conversation_id='c', seed=1)\n"
        "call = environment.call('lookup', {'code': HOSTILE}, turn=1)\n"
        "print((call.valid, call.validation_error, environment.call('lookup', {'code': 'aaaa'}, turn=2).valid))")
    assert printed == str((False, f"$.code: '{HOSTILE}' does not match '{EVIL}'", True))


def _in_child(code: str) -> str:
    """Run `code` in a child Python and return what it prints: a regression to a backtracking
    matcher fails on the timeout instead of hanging the suite (a thread cannot interrupt `re`)."""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    return out.stdout.strip()


def test_additional_properties_beside_pattern_properties_match_keys_with_re2() -> None:
    # jsonschema's own additionalProperties runs the patternProperties keys through Python's `re`.
    printed = _in_child(
        "from polygon_core.stubs import tool_validator\n"
        f"schema = {{'type': 'object', 'patternProperties': {{{EVIL!r}: {{}}}}, 'additionalProperties': False}}\n"
        f"print([e.message for e in tool_validator(schema).iter_errors({{{HOSTILE!r}: 1, 'aaa': 2}})])")
    assert printed == str([f"'{HOSTILE}' does not match any of the regexes: '{EVIL}'"])


def test_unevaluated_properties_beside_pattern_properties_are_refused() -> None:
    schema = {"type": "object", "patternProperties": {"^x": {}}, "unevaluatedProperties": False}
    assert pattern_problems(schema) == [(("unevaluatedProperties",), (
        "unevaluatedProperties beside patternProperties is not supported in tool schemas (its key "
        "matching cannot run in linear time); use additionalProperties"))]


def test_pattern_properties_match_keys_with_re2() -> None:
    validator = tool_validator(_tool("^(a+)+$", where="properties").parameters)
    assert [e.message for e in validator.iter_errors({HOSTILE: "x", "aaa": "y"})] == ["'y' is not of type 'integer'"]


def test_an_imported_call_against_a_backtracking_pattern_is_checked_at_once() -> None:
    call = ToolCall(id="t1", name="lookup", arguments={"code": HOSTILE})
    conversation = Conversation(id="prod-1", scenario_id="imported", seed=0, agent_name="a", agent_version="v",
                                persona_hash="p", caller_type="cooperative", difficulty=2,
                                end_reason=EndReason.CALLER_HANGUP,
                                turns=[Turn(index=0, speaker="agent", text="One moment.", tool_calls=[call])])
    checked = check_imported_tool_calls(conversation, {"lookup": _tool()})
    checked_call = checked.turns[0].tool_calls[0]
    assert (checked_call.valid, checked_call.validation_error) == (False, f"$.code: '{HOSTILE}' does not match '{EVIL}'")


@pytest.mark.parametrize(("pattern", "reason"), [
    (r"(a)\1", r"invalid escape sequence: \1"),
    ("(?=a)b", "invalid perl operator: (?="),
    ("(?<!a)b", "invalid perl operator: (?<!"),
])
def test_patterns_re2_cannot_run_are_named(pattern: str, reason: str) -> None:
    message = (f"pattern {pattern!r} cannot be matched in linear time ({reason}); Polygon matches "
               "tool-schema patterns with RE2, which has no backreferences or lookarounds")
    assert pattern_problems(_tool(pattern).parameters) == [(("properties", "code", "pattern"), message)]
    assert pattern_problems(_tool(pattern, where="properties").parameters) == [(("patternProperties",), message)]
    with pytest.raises(StubError, match="cannot be matched in linear time"):
        ToolEnvironment({"lookup": _tool(pattern)}, {}, conversation_id="c", seed=1)
    with pytest.raises(UnsupportedPatternError):
        list(tool_validator(_tool(pattern).parameters).iter_errors({"code": "b"}))
