"""Fuzzing the assertion language: checking or evaluating any text returns a verdict, never raises.

`check_expression` returns an error message or None; `evaluate_assertion` returns pass, fail or
error. Inputs are arbitrary text and expressions built from the language's own pieces.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from polygon_core.assertions import check_expression, evaluate_assertion
from tests.core._assertions_helpers import TOOLS, good_conversation

from ._settings import fuzz

KNOWN = frozenset({"lookup_account", "issue_refund", "identity_verified", "refund_issued"})
ATOMS = st.sampled_from([
    "refund_issued", "issue_refund", "identity_verified", "lookup_account", "state", "events",
    "calls", "transcript", "agent_text", "turns", "end_reason", "knowledge_base", "initial",
    "amount", "args", "turn", "49.00", "0", "-1", "1e308", "'x'", '"Refund"', "True", "None", "[]",
    "{}", "()", "x", "_private", "__class__", "9**9**9", "'a'*10**9", "[1]*10**8",
])
OPERATORS = st.sampled_from([
    " == ", " != ", " < ", " and ", " or ", " in ", " not in ", " + ", " * ", " ** ", " % ", " // ",
    ".", ", ", "(", ")", "[", "]", " if ", " else ", " for x in ", " lambda: ", ":", " is ", "not ",
])
CALLS = st.sampled_from([
    "count(", "happened(", "ever(", "called(", "said(", "same_set(", "cites_only(", "before(",
    "identity_verified_before(", "refund_issued(", "len(", "sorted(", "sum(", "max(", "str(",
    "getattr(", "__import__(", "open(",
])


def expressions() -> st.SearchStrategy[str]:
    """Token soup from the language's names, operators and calls: sometimes valid, often not."""
    return st.lists(st.one_of(ATOMS, OPERATORS, CALLS), min_size=1, max_size=14).map("".join)


@fuzz(400)
@given(st.one_of(st.text(max_size=80), expressions()))
def test_check_expression_never_raises(expression: str) -> None:
    result = check_expression(expression, known_names=KNOWN)
    assert result is None or (isinstance(result, str) and result)


CONVERSATION = good_conversation()


@fuzz(250)
@given(expressions())
def test_evaluate_assertion_always_gives_a_status(expression: str) -> None:
    result = evaluate_assertion("fuzz", expression, CONVERSATION, tools=TOOLS)
    assert result.status in ("pass", "fail", "error")
