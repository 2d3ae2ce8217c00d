"""Tool definitions: the stubs a suite's tool library declares."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from ._base import FileModel


class LatencySpec(FileModel):
    """Simulated latency of one tool call, on the conversation clock unless `real_sleep`."""

    fixed_ms: float | None = Field(None, ge=0)
    distribution: Literal["uniform", "normal", "lognormal"] | None = None
    mean_ms: float | None = Field(None, ge=0)
    spread_ms: float | None = Field(None, ge=0)
    real_sleep: bool = False


class ErrorSpec(FileModel):
    """Seeded fault injection for a stub."""

    rate: float = Field(0.0, ge=0.0, le=1.0)
    kind: Literal["timeout", "server_error", "custom"] = "server_error"
    payload: Any = None


class Rule(FileModel):
    """One ordered rule: the first whose `when` holds answers the call."""

    when: str = Field("True", description="expression over `args` and `state`")
    response: Any = None
    events: list[str] = Field(default_factory=list)


class StateOp(FileModel):
    """A stateful stub's effect on the environment state."""

    op: Literal["read", "append", "update"]
    path: str = Field(..., description="dotted key into the environment state, e.g. `refunds`")
    record: dict[str, Any] | None = Field(
        None, description="for append/update: values; strings may be Jinja2 templates over args"
    )
    match: dict[str, str] | None = Field(None, description="for update/read: field → template")


class ToolDef(FileModel):
    """A tool the agent may call, and how its stub answers."""

    name: str
    description: str = ""
    parameters: dict[str, Any] = Field(
        default_factory=lambda: {"type": "object", "properties": {}},
        description="JSON Schema of the arguments",
    )
    kind: Literal["fixed", "template", "rules", "state"] = "fixed"
    response: Any = Field(None, description="fixed answer, or a Jinja2 template (kind=template)")
    rules: list[Rule] = Field(default_factory=list)
    state: StateOp | None = None
    events: list[str] = Field(
        default_factory=list, description="domain events emitted on every valid, successful call"
    )
    latency: LatencySpec | None = None
    errors: ErrorSpec | None = None
    ends_call: Literal["transfer", "callback"] | None = Field(
        None, description="calling this tool transfers the call or books a callback"
    )

    @model_validator(mode="after")
    def _kind_has_body(self) -> ToolDef:
        if self.kind == "rules" and not self.rules:
            raise ValueError("kind 'rules' needs at least one entry in `rules`")
        if self.kind == "state" and self.state is None:
            raise ValueError("kind 'state' needs a `state` block")
        if self.kind == "template" and not isinstance(self.response, str):
            raise ValueError("kind 'template' needs `response` as a template string")
        return self


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
