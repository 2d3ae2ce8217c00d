"""Tool definitions: the stubs a suite's tool library declares.

`ToolDef` is a discriminated union on `kind` (absent = `fixed`) of the registered stub kinds: a
new kind is one `ToolBase` subclass (its fields, checks and `respond`) registered with `@stub_kind`
in a `_tool_kind*` module of this package, found when the union is built (`_tool_base.STUB_KINDS`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Union

from pydantic import Discriminator, Tag, TypeAdapter, model_validator

from ._base import FileModel
from ._tool_base import STUB_KINDS, ErrorSpec, LatencySpec, Rendered, Rule, StateOp, StubContext, ToolBase
from ._tool_kinds import FixedTool, RulesTool, StateTool, TemplateTool

__all__ = [
    "TOOL_KINDS",
    "ErrorSpec",
    "FixedTool",
    "LatencySpec",
    "Rendered",
    "Rule",
    "RulesTool",
    "StateOp",
    "StateTool",
    "StubContext",
    "TemplateTool",
    "ToolBase",
    "ToolDef",
    "ToolLibrary",
    "tool_def",
]

# A union member's tag appears in a validation error's location; the `kind=` prefix keeps it from
# being read as a key of the file (documents/_validation.py skips it).
TAG_PREFIX = "kind="


def _kind_tag(value: Any) -> str:
    # An unknown kind (or a value that is not a mapping) goes to the default kind, whose checks
    # then say what is wrong: the kinds expected, or that a tool is a mapping.
    kind = value.get("kind", "fixed") if isinstance(value, dict) else getattr(value, "kind", "fixed")
    return TAG_PREFIX + (kind if kind in ToolBase.kinds else "fixed")


# Each kind's class, by the name files use: every `_tool_kind*` module is imported here.
TOOL_KINDS: dict[str, type[ToolBase]] = dict(STUB_KINDS.loaded())
ToolBase.kinds = tuple(TOOL_KINDS)

if TYPE_CHECKING:  # the static type: the built-in kinds (a new kind's own code knows its class)
    ToolDef = FixedTool | TemplateTool | RulesTool | StateTool
else:
    ToolDef = Annotated[
        Union[tuple(Annotated[cls, Tag(TAG_PREFIX + name)] for name, cls in TOOL_KINDS.items())],  # noqa: UP007
        Discriminator(_kind_tag),
    ]

_ADAPTER: TypeAdapter[ToolDef] = TypeAdapter(ToolDef)


def tool_def(**fields: Any) -> ToolDef:
    """The stub of the kind `fields` name (`kind`, default `fixed`), validated like a file's."""
    return _ADAPTER.validate_python(fields)


class ToolLibrary(FileModel):
    """A suite's tool library file (`tools.yaml`): every tool defined once."""

    tools: dict[str, ToolDef]

    @model_validator(mode="before")
    @classmethod
    def _fill_names(cls, data: object) -> object:
        if isinstance(data, dict) and isinstance(data.get("tools"), dict):
            tools = {}
            for name, body in data["tools"].items():
                named = body
                if isinstance(body, dict) and "name" not in body:
                    named = {**body, "name": name}
                tools[name] = named
            data = {**data, "tools": tools}
        return data
