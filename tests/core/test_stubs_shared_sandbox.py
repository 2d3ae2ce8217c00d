"""Every conversation's templates render in one shared sandbox: nothing of one rendering (its step
count, its variables, its namespaces) reaches another, and a broken template is refused every time."""

from __future__ import annotations

import pytest

from polygon_core.models import tool_def
from polygon_core.stubs import StubError, ToolEnvironment

# About 60,600 of the 100,000 steps one rendering may take: twice in one count would be refused.
BUSY = "{% for a in range(300) %}{% for b in range(200) %}{% endfor %}{% endfor %}done"


def _env(template: str, conversation_id: str = "c") -> ToolEnvironment:
    tool = tool_def(name="quote", kind="template", response=template)
    return ToolEnvironment({"quote": tool}, {"n": 2}, conversation_id=conversation_id, seed=0)


def test_step_count_is_per_rendering_within_and_across_conversations() -> None:
    first, second = _env(BUSY, "c1"), _env(BUSY, "c2")
    results = [env.call("quote", {}, turn=turn).result for env in (first, second, first) for turn in (0, 1)]
    assert results == ["done"] * 6


def test_set_and_namespace_do_not_leak_between_renderings() -> None:
    template = (
        "{% set ns = namespace(seen=ns_seen | default('')) %}{% set ns.seen = ns.seen ~ args.x %}"
        "{% set ns_seen = ns.seen %}{{ ns.seen }}|{{ ns_seen }}"
    )
    first, second = _env(template, "c1"), _env(template, "c2")
    assert first.call("quote", {"x": "a"}, turn=0).result == "a|a"
    assert second.call("quote", {"x": "b"}, turn=0).result == "b|b"
    assert first.call("quote", {"x": "c"}, turn=1).result == "c|c"


def test_native_expression_renders_per_call() -> None:
    first, second = _env("{{ args.amount * state.n }}", "c1"), _env("{{ args.amount * state.n }}", "c2")
    assert first.call("quote", {"amount": 24.5}, turn=0).result == 49.0
    assert second.call("quote", {"amount": 3}, turn=0).result == 6


@pytest.mark.parametrize("attempt", range(2))
def test_broken_template_is_refused_every_time(attempt: int) -> None:
    with pytest.raises(StubError) as caught:
        _env("{{ args.x ").call("quote", {"x": 1}, turn=attempt)
    assert str(caught.value) == (
        "tool 'quote': template '{{ args.x ' does not compile: unexpected end of template, "
        "expected 'end of print statement'."
    )
