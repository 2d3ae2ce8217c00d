"""Scenario assertions: deterministic checks of a finished conversation.

An assertion is one expression in a safe language built on simpleeval (never Python's `eval`):
operators, comparisons, literals, comprehensions, subscripts and read-only attribute access
(`state.ledger`, `args['amount']`); attributes starting with `_` are refused.

Names
    `state` (final state), `initial` (initial state), `events` (list of
    `{name, turn, tool, args}`), `calls` (list of `{name, arguments, valid, error, result, turn}`),
    `transcript` (caller and agent text), `agent_text`, `turns` (count), `end_reason` (e.g.
    `"transfer"`), `knowledge_base` (list of statements), and every tool and event name as a bare
    identifier standing for itself.

Call metrics
    On a call (`channel: voice`), its interaction metrics by name (`polygon_core.voice.ALL_CALL_METRICS`:
    `response_latency`, `response_latency_p95`, `yield_rate`, `word_error_rate`, ...):
    `response_latency_p95 < 1.5`. On a text conversation, or a call where the metric has no value
    (nobody interrupted the agent: no `yield_rate`), the assertion is `not_applicable` with the
    reason ("yield_rate: no value on this call (the caller never talked over the agent)"), never a
    fail. A failed assertion on a call ends with the caller turns the agent heard otherwise:
    `turn 2: said "…at fifteen past…" / heard "…at fifty past…"`.

Tools and events as calls
    `refund_issued(amount == 49.00)`: some `refund_issued` event has arguments satisfying the
    condition, evaluated per event with its arguments bound as names (also `args` and `turn`);
    `refund_issued()` means it happened at least once; `refund_issued(amount=49)` tests equality.
    For a tool name, the same over its valid, successful calls (invalid or faulted calls do not
    count). An occurrence lacking an argument the condition reads does not satisfy it; when none
    satisfies it and some lacked it, the assertion is an error naming the argument.

Order
    `identity_verified_before(issue_refund)` (any `<name>_before(<name>)`) and `before(a, b)`:
    every occurrence of `b` comes after at least one occurrence of `a`, on an earlier turn or
    earlier within the same turn (an event sits with the call that emitted it, after that call).
    When `b` never happened the assertion holds vacuously. A failure reports the turn of the
    first offending occurrence ("issue_refund at turn 3 before any identity_verified").

Helpers
    `count(name, condition?)`, `happened(name, condition?)`, `ever(name, condition?)` (same as
    `happened`), `called(tool, condition?)` (any attempt, valid or not), `said(phrase)` (the agent
    said it: whole words, as forbidden phrases match, so "80" is not in "180"; case- and
    Unicode-insensitive), `same_set(a, b)` (lists equal ignoring order; dicts
    compared by canonical JSON, 49 == 49.0), `cites_only(knowledge_base)` (an offline heuristic,
    see `policy_findings`: results carry `answered_by="offline-heuristic"`), and the built-ins
    `len min max sum abs round any all sorted str int float bool list tuple dict set`.

Status is `pass`/`fail` from the truthiness of the value (`not_applicable`: see call metrics); anything that prevents evaluation
(syntax error, unknown name, type error, a forbidden construct) is `error`, never `fail`.
"""

from ._call import CALL_METRIC_NAMES, misheard_lines, said_heard
from ._evaluate import evaluate_assertion, evaluate_assertions
from ._evaluator import UnknownArgument
from ._helpers import same_set
from ._language import argument_problem, check_expression
from ._policy import (
    CITATION_THRESHOLD,
    POLICY_MARKERS,
    PolicyFinding,
    is_policy_sentence,
    policy_findings,
)
from ._timeline import RESERVED_NAMES, assertion_names

__all__ = [
    "CALL_METRIC_NAMES",
    "CITATION_THRESHOLD",
    "POLICY_MARKERS",
    "RESERVED_NAMES",
    "PolicyFinding",
    "UnknownArgument",
    "argument_problem",
    "assertion_names",
    "check_expression",
    "evaluate_assertion",
    "evaluate_assertions",
    "is_policy_sentence",
    "misheard_lines",
    "policy_findings",
    "said_heard",
    "same_set",
]
