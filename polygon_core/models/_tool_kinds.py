"""The built-in stub kinds: fixed, template, rules and state (one `ToolBase` subclass each, in
this order: the first is the default, and the order is the one messages list them in)."""

from __future__ import annotations

import copy
from typing import Any, Literal

from pydantic import Field, model_validator

from ._tool_base import Rendered, Rule, StateOp, StubContext, ToolBase, stub_kind


def _rendered_strings(path: tuple[str | int, ...], value: Any) -> list[Rendered]:
    return [Rendered(path, value, template=False)] if value is not None else []


@stub_kind
class FixedTool(ToolBase):
    """Answers every call with a copy of `response` (the default kind)."""

    kind: Literal["fixed"] = "fixed"
    response: Any = Field(None, description="the fixed answer, returned as written")

    def respond(self, stub: StubContext) -> tuple[Any, list[str]]:
        """A copy of the response, and the tool's events."""
        return copy.deepcopy(self.response), list(self.events)


@stub_kind
class TemplateTool(ToolBase):
    """Answers with a Jinja2 template over `args` and `state`, parsed as JSON when it is JSON."""

    kind: Literal["template"]
    response: Any = Field(None, description="a Jinja2 template string")

    @model_validator(mode="after")
    def _has_template(self) -> TemplateTool:
        if not isinstance(self.response, str):
            raise ValueError("kind 'template' needs `response` as a template string")
        return self

    def respond(self, stub: StubContext) -> tuple[Any, list[str]]:
        """The rendered template, and the tool's events."""
        return stub.render_json(str(self.response)), list(self.events)

    def rendered(self) -> list[Rendered]:
        """The response, a template as a whole."""
        return [Rendered(("response",), self.response, template=True)]


@stub_kind
class RulesTool(ToolBase):
    """Answers with the first rule whose `when` holds; `no_rule_matched` when none does."""

    kind: Literal["rules"]
    rules: list[Rule] = Field(default_factory=list)

    @model_validator(mode="after")
    def _has_rules(self) -> RulesTool:
        if not self.rules:
            raise ValueError("kind 'rules' needs at least one entry in `rules`")
        return self

    def respond(self, stub: StubContext) -> tuple[Any, list[str]]:
        """The matched rule's rendered response, with the tool's and the rule's events."""
        rule = stub.first_rule(self.rules)
        if rule is None:
            return stub.no_rule_matched(), []
        return stub.render(rule.response), [*self.events, *rule.events]

    def rendered(self) -> list[Rendered]:
        """Every rule's response."""
        return [r for i, rule in enumerate(self.rules) for r in _rendered_strings(("rules", i, "response"),
                                                                                  rule.response)]

    def conditions(self) -> list[tuple[tuple[str | int, ...], str]]:
        """Every rule's `when`."""
        return [(("rules", i, "when"), rule.when) for i, rule in enumerate(self.rules)]

    def event_names(self) -> list[str]:
        """The tool's events and every rule's."""
        return [*self.events, *(e for rule in self.rules for e in rule.events)]


@stub_kind
class StateTool(ToolBase):
    """Reads, appends to or updates the conversation's shared state."""

    kind: Literal["state"]
    state: StateOp | None = None

    @model_validator(mode="after")
    def _has_state(self) -> StateTool:
        if self.state is None:
            raise ValueError("kind 'state' needs a `state` block")
        return self

    def respond(self, stub: StubContext) -> tuple[Any, list[str]]:
        """The state operation's result, and the tool's events."""
        assert self.state is not None  # guaranteed by the validator
        return stub.apply_state(self.state), list(self.events)

    def writes_state(self) -> bool:
        """An append or an update changes the state; a read does not."""
        return self.state is not None and self.state.op in ("append", "update")

    def rendered(self) -> list[Rendered]:
        """The operation's record and match templates."""
        assert self.state is not None
        return [*_rendered_strings(("state", "record"), self.state.record),
                *_rendered_strings(("state", "match"), self.state.match)]
