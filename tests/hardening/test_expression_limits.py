"""Rule conditions and assertions cannot eat memory: every operation that builds a value is bounded.

Issue 32 item 1: `len('%02000000000d' % 1) > 0` and `'x'.ljust(2000000000)` passed validation and a
run allocated gigabytes; only `*` and `+` were bounded. Each hostile expression here reads its size
from the call's arguments or the conversation, so validation cannot see it: the evaluator must
refuse it before it builds anything. tracemalloc's peak proves nothing big was allocated (the
refusal, not a stopwatch, is what keeps it quick).
"""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from typing import Any

import pytest
from simpleeval import FeatureNotAvailable

from polygon_core.assertions import check_expression, evaluate_assertion
from polygon_core.models import tool_def
from polygon_core.stubs import SafeEvaluator, StubError, ToolEnvironment, check_rule_expression

from ..core._assertions_helpers import TOOLS, good_conversation

PEAK_BYTES = 4_000_000  # a few MB: the bombs would take gigabytes

WIDTH = "the padded text (2,000,000,000 characters) exceeds the expression limit of 100,000"
BUILT = "exceeds the expression limit of 1,000,000"

# expression over `args.n` (2,000,000,000) and `args.s` ("ab") → the end of the refusal
RULE_BOMBS: dict[str, tuple[str, str]] = {
    "percent_width": ("len(('%0' + str(args.n) + 'd') % 1) > 0",
                      "the format field width 2,000,000,000 exceeds the expression limit of 100,000"),
    "percent_precision": ("len(('%.' + str(args.n) + 'f') % 1.5) > 0",
                          "the format field width 2,000,000,000 exceeds the expression limit of 100,000"),
    "percent_star": ("len('%*d' % (args.n, 1)) > 0",
                     "a `*` width or precision in % formatting (give the number) exceeds the expression "
                     "limit of 100,000"),
    "percent_many_fields": ("len(('%s' * 50000) % ((args.s * 50000,) * 50000)) > 0",
                            "the formatted text exceeds the expression limit of 100,000"),
    "ljust": ("len(args.s.ljust(args.n)) > 0", WIDTH),
    "rjust": ("len(args.s.rjust(args.n)) > 0", WIDTH),
    "center": ("len(args.s.center(args.n)) > 0", WIDTH),
    "zfill": ("len(args.s.zfill(args.n)) > 0", WIDTH),
    "ljust_as_key": ("sorted([args.n], key=args.s.ljust) == []", WIDTH),
    "expandtabs": ("len(('\\t' * 1000).expandtabs(args.n // 1000)) > 0",
                   "the expanded text (2,000,000,000 characters) exceeds the expression limit of 100,000"),
    "join": ("len('-'.join([args.s * 50000] * 50000)) > 0",
             "the joined text (5,000,049,999 characters) exceeds the expression limit of 100,000"),
    "replace_empty": ("len((args.s * 50000).replace('', args.s * 50000)) > 0",
                      "the replaced text (10,000,200,000 characters) exceeds the expression limit of 100,000"),
    "translate": ("len((args.s * 50000).translate({97: args.s * 50000})) > 0",
                  "the translated text (10,000,000,000 characters) exceeds the expression limit of 100,000"),
    "str_of_shared_list": ("len(str([args.s * 50000] * 50000)) > 0",
                           "the text of this value exceeds the expression limit of 100,000"),
    "fstring_of_shared_list": ("len(f'{[args.s * 50000] * 50000}') > 0",
                               "the f-string exceeds the expression limit of 100,000"),
    "fstring_parts": ("len(f'{args.s * 50000}{args.s * 50000}{args.s * 50000}') > 0",
                      "the f-string exceeds the expression limit of 100,000"),
    "sum_of_lists": ("len(sum([[args.s] * 50000] * 50000, [])) > 0",
                     "the summed sequence (2,500,000,000 items) exceeds the expression limit of 100,000"),
    "to_bytes": ("len((1).to_bytes(args.n, 'big')) > 0",
                 "the byte string (2,000,000,000 bytes) exceeds the expression limit of 100,000"),
    "power": ("args.n ** args.n > 0", "2000000000 ** 2000000000 exceeds 4,096 bits"),
    "round_digits": ("round(5, -args.n) == 0",
                     "round() to -2,000,000,000 digits exceeds the expression limit of 1,000"),
    "comprehension_of_builds": ("len([args.s.ljust(100000) for c in args.s * 5000]) > 0", BUILT),
}


def _peak(action: Callable[[], Any]) -> tuple[Any, int]:
    tracemalloc.start()
    try:
        outcome = action()
    finally:
        _current, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    return outcome, peak


def _rule_call(when: str, arguments: dict[str, Any]) -> Any:
    tool = tool_def(name="quote", kind="rules", rules=[{"when": when, "response": {"ok": True}}])
    env = ToolEnvironment({"quote": tool}, {}, conversation_id="c", seed=0)
    return env.call("quote", arguments, turn=0).result


@pytest.mark.parametrize("case", sorted(RULE_BOMBS))
def test_a_rule_condition_bomb_is_refused_before_it_allocates(case: str) -> None:
    when, reason = RULE_BOMBS[case]
    assert check_rule_expression(when) is None  # reads args: only the run can see the size

    def call() -> str:
        with pytest.raises(StubError) as caught:
            _rule_call(when, {"n": 2_000_000_000, "s": "ab"})
        return str(caught.value)

    message, peak = _peak(call)
    assert message.startswith(f"tool 'quote': rule condition {when!r}: "), message
    assert message.endswith(reason), message
    assert peak < PEAK_BYTES


def test_ordinary_rule_conditions_still_hold() -> None:
    when = ("args.s.ljust(4, '.') == 'ab..' and '%05d' % args.n == '00042' and '-'.join(['a', args.s]) == 'a-ab'"
            " and f'{args.s}!' == 'ab!' and sum([[1], [2]], []) == [1, 2] and round(1234, -2) == 1200"
            " and 2 ** 10 == 1024 and str([args.s]) == \"['ab']\" and args.s.replace('a', 'xy') == 'xyb'"
            # one inner list shared 100,000 times: simpleeval's own check of results walked it 10^10 times
            " and len([[1] * 100000] * 100000) == 100000")
    assert _rule_call(when, {"n": 42, "s": "ab"}) == {"ok": True}


@pytest.mark.parametrize(("expression", "reason"), [
    # The size comes from the refund's amount (49): 49 × 40,000,000 = 1,960,000,000.
    ("refund_issued(len('x'.ljust(int(amount) * 40000000)) > 0)",
     "the padded text (1,960,000,000 characters) exceeds the expression limit of 100,000"),
    ("len(('%0' + str(int(count(refund_issued)) * 1960000000) + 'd') % 1) > 0",
     "the format field width 1,960,000,000 exceeds the expression limit of 100,000"),
    ("len(transcript.ljust(count(refund_issued) * 2000000000)) > 0", WIDTH),
])
def test_an_assertion_bomb_is_an_error_before_it_allocates(expression: str, reason: str) -> None:
    conversation = good_conversation()
    assert check_expression(expression, known_names=["refund_issued"]) is None
    result, peak = _peak(lambda: evaluate_assertion("bomb", expression, conversation, tools=TOOLS))
    assert (result.status, result.message) == ("error", reason)
    assert peak < PEAK_BYTES


@pytest.mark.parametrize(("expression", "reason"), [
    ("len('%02000000000d' % 1) > 0",
     "the format field width 2,000,000,000 exceeds the expression limit of 100,000"),
    ("'x'.ljust(2000000000) == transcript", WIDTH),
    ("refund_issued(reason == 'x'.zfill(2000000000))", WIDTH),
    ("len(str(['y' * 100000] * 100000)) > 0", "the text of this value exceeds the expression limit of 100,000"),
])
def test_a_constant_bomb_is_refused_by_the_static_check(expression: str, reason: str) -> None:
    problem, peak = _peak(lambda: check_expression(expression, known_names=["refund_issued"]))
    assert problem == reason
    assert peak < PEAK_BYTES


def test_a_constant_bomb_in_a_rule_is_refused_by_the_static_check() -> None:
    when = "args.s == 'x'.ljust(2000000000)"
    assert check_rule_expression(when) == f"{when!r}: {WIDTH}"


@pytest.mark.parametrize(("expression", "error"), [
    # The other ways to ask for a field width stay closed: str.format can also read attributes.
    ("'{:>2000000000}'.format(1)", "method 'format' is not allowed"),
    ("'{0:>2000000000}'.format_map({})", "method 'format_map' is not allowed"),
    ("f'{1:>2000000000}'", "format specs in f-strings are not allowed"),
])
def test_format_with_a_width_is_not_reachable(expression: str, error: str) -> None:
    with pytest.raises(FeatureNotAvailable, match=error):
        SafeEvaluator().evaluate(expression)
