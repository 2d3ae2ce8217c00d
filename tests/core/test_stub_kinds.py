"""Stub kinds: a discriminated union on `kind`, one class (fields, checks, `respond`) per kind."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import pytest

from polygon_core.files import FileErrors, load_tool_library
from polygon_core.models import (
    TOOL_KINDS,
    FixedTool,
    RulesTool,
    StateTool,
    StubContext,
    TemplateTool,
    ToolBase,
    tool_def,
)
from polygon_core.stubs import ToolEnvironment


def test_the_kinds_table() -> None:
    assert {"fixed": FixedTool, "template": TemplateTool, "rules": RulesTool, "state": StateTool} == TOOL_KINDS
    assert type(tool_def(name="t")) is FixedTool  # no kind: the default kind
    assert type(tool_def(name="t", kind="rules", rules=[{"when": "True", "response": 1}])) is RulesTool


class EchoTool(ToolBase):
    """A kind as a new module would define it: its fields and how it answers."""

    kind: Literal["echo"] = "echo"
    prefix: str = ""

    def respond(self, stub: StubContext) -> tuple[Any, list[str]]:
        return stub.render({"said": self.prefix + "{{ args.text }}"}), [*self.events, "echoed", "echoed"]


def test_a_kind_answers_through_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ToolBase, "kinds", (*ToolBase.kinds, "echo"))
    tool = EchoTool(name="echo", prefix="you said: ", events=["heard"])
    env = ToolEnvironment({"echo": tool}, {}, conversation_id="c", seed=1)
    call = env.call("echo", {"text": "hello"}, turn=0)
    assert (call.result, call.events, call.valid) == ({"said": "you said: hello"}, ["heard", "echoed"], True)
    assert [e.name for e in env.events] == ["heard", "echoed"]


def _errors(tmp_path: Path, text: str) -> list[tuple[int | None, str, str]]:
    path = tmp_path / "tools.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(FileErrors) as exc:
        load_tool_library(path)
    return [(e.line, e.field, e.message) for e in exc.value.errors]


def test_file_errors_name_the_line_and_field_of_each_kind(tmp_path: Path) -> None:
    assert _errors(tmp_path, """\
tools:
  a:
    kind: rule
  b:
    kind: state
    state:
      op: read
  c:
    kind: rules
    rules: [{when: "True"}]
    respnse: 1
  d: 5
""") == [
        (3, "tools.a.kind", "expected 'fixed', 'template', 'rules' or 'state', got 'rule'; did you mean 'rules'?"),
        (6, "tools.b.state.path", "missing required field 'path'"),
        (11, "tools.c.respnse", "unknown field 'respnse' (expected one of: name, description, parameters, "
                                "kind, events, latency, errors, ends_call, consequential, rules)"),
        (12, "tools.d", "expected a mapping, got 5"),
    ]


def test_consequential_is_a_boolean_flag_of_any_kind(tmp_path: Path) -> None:
    assert _errors(tmp_path, """\
tools:
  book:
    kind: fixed
    consequential: sometimes
""") == [(4, "tools.book.consequential", "expected true or false, got 'sometimes'")]
    (tmp_path / "tools.yaml").write_text("tools:\n  book: {kind: fixed, consequential: true}\n  read: {kind: fixed}\n",
                                         encoding="utf-8")
    library = load_tool_library(tmp_path / "tools.yaml")
    assert {name: tool.acts() for name, tool in library.tools.items()} == {"book": True, "read": False}
