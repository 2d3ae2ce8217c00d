"""What every tool stub shares: its call-facing fields, faults and latency, and what a kind handles.

Each stub kind is a `ToolBase` subclass registered with `@stub_kind` in a `_tool_kind*` module of
this package (`_tool_kinds.py` holds the built-in four; every such module is imported when
`_tools.py` builds `ToolDef`, the discriminated union of the registered kinds). A kind answers a
call in `respond` through a `StubContext` (the tool environment: templates, rules, state), so the
environment has no per-kind branches. A kind module imports from `._tool_base`, not from the
package (which is still importing when the kinds are collected).
"""

from __future__ import annotations

import typing
from typing import Any, ClassVar, Literal, NamedTuple, Protocol, TypeVar

from pydantic import Field, SerializationInfo, field_validator, model_serializer, model_validator
from pydantic_core import PydanticCustomError

from .._registry import Registry
from ._base import FileModel

# The fields of the one model every stub was before the kinds were split. Dumps keep them (empty),
# so agent versions and sweep points hashed from existing tool libraries keep their values, and a
# dump read back (or a file that wrote `rules: []` on a fixed tool) is still accepted.
_LEGACY_EMPTY: dict[str, Any] = {"response": None, "rules": [], "state": None}


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


class StubContext(Protocol):
    """What a stub kind may use to answer one valid call (implemented by the tool environment)."""

    def render(self, value: Any) -> Any:
        """`value` with every template string in it rendered over `args` and `state`."""

    def render_json(self, text: str) -> Any:
        """One template rendered over `args` and `state`, parsed as JSON when the text is JSON."""

    def first_rule(self, rules: list[Rule]) -> Rule | None:
        """The first rule whose condition holds for this call, or None."""

    def apply_state(self, op: StateOp) -> Any:
        """Read, append or update the shared state as `op` says; the result of the operation."""

    def no_rule_matched(self) -> Any:
        """The answer of a rules stub when no rule holds."""


class Rendered(NamedTuple):
    """A value a stub renders, for the static checks: where it is and whether it is a template whole."""

    path: tuple[str | int, ...]  # below the tool, e.g. ("rules", 0, "response")
    value: Any
    template: bool  # the whole string is a template (else only strings with `{{`/`{%` are)


class ToolBase(FileModel):
    """A tool the agent may call; a subclass per stub kind says how its stub answers."""

    kinds: ClassVar[tuple[str, ...]] = ()  # every registered kind, set by `_tools.py`

    name: str
    description: str = ""
    parameters: dict[str, Any] = Field(
        default_factory=lambda: {"type": "object", "properties": {}},
        description="JSON Schema of the arguments",
    )
    kind: str
    events: list[str] = Field(
        default_factory=list, description="domain events emitted on every valid, successful call"
    )
    latency: LatencySpec | None = None
    errors: ErrorSpec | None = None
    ends_call: Literal["transfer", "callback"] | None = Field(
        None, description="calling this tool transfers the call or books a callback"
    )
    consequential: bool | None = Field(
        None, description="calling this tool acts: it changes something for the caller (a refund, a "
        "booking, a cancellation, an update). Unset: read from the stub kind (a `state` stub that appends "
        "or updates acts; the others do not). The offline judge and probes read it (`acts`)."
    )

    @model_validator(mode="before")
    @classmethod
    def _drop_legacy_empties(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        return {k: v for k, v in data.items()
                if k in cls.model_fields or k not in _LEGACY_EMPTY or v != _LEGACY_EMPTY[k]}

    @field_validator("kind", mode="before")
    @classmethod
    def _registered_kind(cls, value: Any) -> Any:
        if value not in ToolBase.kinds:
            expected = ", ".join(repr(k) for k in ToolBase.kinds[:-1]) + f" or {ToolBase.kinds[-1]!r}"
            raise PydanticCustomError("literal_error", "Input should be {expected}", {"expected": expected})
        return value

    @model_serializer(mode="wrap")
    def _legacy_shape(self, handler: Any, info: SerializationInfo) -> Any:
        data = handler(self)
        if isinstance(data, dict):
            for key, empty in _LEGACY_EMPTY.items():
                if key not in data and (empty is not None or not info.exclude_none):
                    data[key] = list(empty) if isinstance(empty, list) else empty
        return data

    def respond(self, stub: StubContext) -> tuple[Any, list[str]]:
        """The answer to one valid, unfaulted call and the events it emits (before de-duplication)."""
        raise NotImplementedError

    def acts(self) -> bool:
        """Calling this tool changes something for the caller: `consequential` when the library
        sets it, else what the stub kind does (`writes_state`)."""
        return self.writes_state() if self.consequential is None else self.consequential

    def writes_state(self) -> bool:
        """This stub changes the environment state (the fallback for `acts`); False unless a kind says so."""
        return False

    def rendered(self) -> list[Rendered]:
        """The values this stub renders (checked statically by `polygon validate`)."""
        return []

    def conditions(self) -> list[tuple[tuple[str | int, ...], str]]:
        """The rule conditions this stub evaluates, with where each is below the tool."""
        return []

    def event_names(self) -> list[str]:
        """Every domain event a call of this stub may emit (assertions may name them)."""
        return list(self.events)


K = TypeVar("K", bound=type[ToolBase])

STUB_KIND_PLUGINS = "polygon.stub_kinds"

# The built-in kinds first (they lead the "expected ..." of an unknown kind), then other modules by
# name, then the `polygon.stub_kinds` entry points (a plugin's module imports from this module, not
# from the package: the union is built while `polygon_core.models` is being imported).
STUB_KINDS: Registry[type[ToolBase]] = Registry("stub kind", __package__ or "polygon_core.models",
                                                submodules="_tool_kind", first=("_tool_kinds",),
                                                plugins=STUB_KIND_PLUGINS)


def stub_kind(cls: K) -> K:
    """Register a `ToolBase` subclass as the stub kind its `kind: Literal[...]` field names."""
    kind: type[ToolBase] = cls
    (name,) = typing.get_args(kind.model_fields["kind"].annotation)
    STUB_KINDS.register(name)(kind)
    return cls
