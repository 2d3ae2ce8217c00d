"""Stub templates cannot hang a run or eat memory: every amplifier is bounded, errors name the tool."""

from __future__ import annotations

import pytest

from polygon_core.models import tool_def
from polygon_core.stubs import StubError, ToolEnvironment, check_tool

HOSTILE: dict[str, tuple[str, str]] = {
    "string_repeat": ("{{ 'a' * 3000000000 }}", "the repeated value exceeds the template limit of 100,000"),
    "repeat_in_text": ("x{{ 'a' * 3000000000 }}", "the repeated value exceeds the template limit of 100,000"),
    "list_repeat": ("{{ [1] * 10 ** 9 }}", "the repeated value exceeds the template limit of 100,000"),
    "center_method": ("{{ 'a'.center(3000000000) }}", "the number 3000000000 exceeds the template limit of 100,000"),
    "center_filter": ("{{ 'a'|center(3000000000) }}", "the number 3000000000 exceeds the template limit of 100,000"),
    "percent_width": ("{{ '%999999999s' % 'a' }}", "the format field width 999999999 exceeds the template limit of 100,000"),
    "power": ("{{ 2 ** 100000 }}", "2 ** 100000 exceeds 4,096 bits"),
    "big_range": ("{% for i in range(1000000) %}x{% endfor %}", "the number 1000000 exceeds the template limit of 100,000"),
    "long_output": ("{% for i in range(10000) %}{{ 'y' * 50 }}{% endfor %}", "the rendered text exceeds the template limit of 100,000"),
    "replace_empty": ("{{ ('a' * 1000).replace('', 'b' * 1000) }}", "the replaced text exceeds the template limit of 100,000"),
    "namespace_doubling": (
        "{% set ns = namespace(s='ab') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}",
        "a value of this size exceeds the template limit of 100,000",
    ),
    "nested_empty_loops": (
        "{% for a in range(1000) %}{% for b in range(1000) %}{% endfor %}{% endfor %}",
        "more than 100,000 loop iterations and calls in one rendering",
    ),
    "exponential_macro": (
        "{% macro f(n) %}{% if n %}{{ f(n-1) }}{{ f(n-1) }}{% endif %}{% endmacro %}{{ f(30) }}",
        "more than 100,000 loop iterations and calls in one rendering",
    ),
    "endless_macro": ("{% macro f(n) %}{{ f(n) }}{% endmacro %}{{ f(1) }}", "recursion too deep"),
}


def _call(template: str, arguments: dict[str, object] | None = None) -> object:
    tool = tool_def(name="quote", kind="template", response=template)
    env = ToolEnvironment({"quote": tool}, {"n": 2}, conversation_id="c", seed=0)
    return env.call("quote", arguments or {}, turn=0).result


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_template_is_a_stub_error_naming_the_tool(case: str) -> None:
    template, reason = HOSTILE[case]
    # The refusal names the limit that stopped it: that bound, not a stopwatch, is what keeps it quick
    # (timings live in benchmarks/hostile_inputs.py).
    with pytest.raises(StubError) as caught:
        _call(template)
    assert str(caught.value).startswith("tool 'quote': template ")
    assert str(caught.value).endswith(reason)


def test_constant_amplifiers_are_refused_by_validation() -> None:
    tool = tool_def(name="quote", kind="template", response="{{ 'a' * 3000000000 }}")
    assert check_tool(tool) == [
        "tool 'quote': template \"{{ 'a' * 3000000000 }}\": the repeated value exceeds the template "
        "limit of 100,000"
    ]


@pytest.mark.parametrize(("template", "arguments", "expected"), [
    ('{"ref": "CB-{{ args.slot | length }}0{{ args.slot | wordcount }}"}', {"slot": "Tue 10am"}, {"ref": "CB-802"}),
    ("{{ args.amount * 2 }}", {"amount": 24.5}, 49.0),
    ("{{ 'ab' * 3 }}-{{ state.n ** 3 }}", {}, "ababab-8"),
    ("{% for i in range(3) %}{{ i }}{% endfor %}", {}, "012"),
    ("{{ '%05d' % 42 }}", {}, "00042"),
    ("{{ args.names | join(', ') }}", {"names": ["a", "b"]}, "a, b"),
])
def test_ordinary_templates_still_render(template: str, arguments: dict[str, object], expected: object) -> None:
    assert _call(template, arguments) == expected
