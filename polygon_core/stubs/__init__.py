"""Tool stubs: what the agent's tools answer in a simulated conversation.

`ToolEnvironment` holds the stubs of one conversation (`ToolDef`s from the suite's tool library),
a private copy of the scenario's initial state, the domain events emitted so far and the simulated
clock. One call goes through, in order:

1. lookup: an unknown tool is answered `{"error": "unknown_tool", ...}` with `valid=False`;
2. validation of the arguments against the tool's JSON Schema (Draft 2020-12): invalid arguments
   are answered `{"error": "invalid_arguments", "detail": "<$.path>: <message>"}` with
   `valid=False`; invalid calls take no simulated time and draw no fault;
3. fault injection (`ErrorSpec`), seeded by `stable_seed(conversation_id, seed, tool, n)` with `n`
   the number of earlier valid calls of that tool, so the same calls in the same order meet the
   same faults in every run;
4. latency (`LatencySpec`), added to the simulated clock; `call` never sleeps, `acall` awaits
   `asyncio.sleep` only when `real_sleep` is set;
5. the answer by kind: `fixed` (a copy of `response`), `template` (Jinja2 in a sandbox, parsed as
   JSON when the text is JSON), `rules` (the first rule whose simpleeval `when` over `args` and
   `state` holds; `{"error": "no_rule_matched"}` otherwise) or `state` (read/append/update at a
   dotted path of the shared state). Each kind answers in its own `respond`
   (`polygon_core/models/_tool_kinds.py`) through the environment's `StubContext`; a new kind is
   one `_tool_kind*` module holding a `@stub_kind` `ToolBase` subclass (docs/design.md, "Extending
   Polygon").

A valid call that was not faulted and was answered (for rules: some rule matched) emits the
tool's `events` plus the matched rule's `events` as `DomainEvent`s carrying the call's arguments.

Templates render in a size-bounded sandbox (`_sandbox`): an operation, call or text beyond
`MAX_TEMPLATE_OUTPUT` characters, or more than `MAX_TEMPLATE_STEPS` loop iterations and calls in
one rendering, is a `StubError` naming the tool.

An undefined name in a template is an error (Jinja's StrictUndefined), never an empty value; the
`args.<name>` a template reads are checked against the tool's schema when the suite loads
(`unknown_argument`).

Templates that are exactly one `{{ expression }}` keep the expression's native type (a float stays
a float); any other template renders to text.
"""

from ._arguments import declared_arguments, did_you_mean, template_argument_names, unknown_argument
from ._environment import ToolEnvironment, check_tool
from ._errors import StubError
from ._expression_limits import MAX_EXPRESSION_BUILT, MAX_EXPRESSION_VALUE, ExpressionLimitError
from ._expressions import (
    READ_ONLY_ATTRS,
    SAFE_FUNCTIONS,
    SafeEvaluator,
    constant_problem,
    parse_expression,
)
from ._patterns import UnsupportedPatternError, pattern_problems, tool_validator
from ._rules import NO_RULE_MATCHED, check_rule_expression
from ._sandbox import MAX_TEMPLATE_OUTPUT, MAX_TEMPLATE_STEPS
from ._templates import TemplateRenderer, has_template

__all__ = [
    "MAX_EXPRESSION_BUILT",
    "MAX_EXPRESSION_VALUE",
    "MAX_TEMPLATE_OUTPUT",
    "MAX_TEMPLATE_STEPS",
    "NO_RULE_MATCHED",
    "READ_ONLY_ATTRS",
    "SAFE_FUNCTIONS",
    "ExpressionLimitError",
    "SafeEvaluator",
    "StubError",
    "TemplateRenderer",
    "ToolEnvironment",
    "UnsupportedPatternError",
    "check_rule_expression",
    "check_tool",
    "constant_problem",
    "declared_arguments",
    "did_you_mean",
    "has_template",
    "parse_expression",
    "pattern_problems",
    "template_argument_names",
    "tool_validator",
    "unknown_argument",
]
