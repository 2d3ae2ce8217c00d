"""The tool environment of one conversation: stubs, shared state, events and the simulated clock."""

from __future__ import annotations

import asyncio
import copy
import functools
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError, best_match

from .._hashing import canonical_json
from ..models import DomainEvent, Rule, StateOp, ToolCall, ToolDef
from ._errors import StubError
from ._faults import draw_fault, draw_latency, fault_seed, latency_seed
from ._patterns import pattern_problems, tool_validator
from ._rules import NO_RULE_MATCHED, RuleEngine, check_rule_expression
from ._state import StateEngine
from ._templates import TemplateRenderer, has_template, omitted


@dataclass(frozen=True)
class _Outcome:
    call: ToolCall
    sleep_s: float


def _schema_error(tool: ToolDef) -> str | None:
    problem = _check_schema_text(canonical_json(tool.parameters))
    return f"tool {tool.name!r}: parameters are not a valid JSON Schema: {problem}" if problem else None


@functools.lru_cache(maxsize=1024)
def _check_schema_text(schema_json: str) -> str | None:
    # Checking a schema against the meta-schema costs milliseconds; every conversation builds an
    # environment over the same few tools, so the verdict is cached per schema text.
    schema = json.loads(schema_json)
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        return exc.message
    patterns = pattern_problems(schema)
    return patterns[0][1] if patterns else None


def check_tool(tool: ToolDef) -> list[str]:
    """Static problems of one stub definition (for `polygon validate`); empty when it is sound.

    Checks the JSON Schema of the parameters, that every template compiles, and that every rule
    condition parses and uses only `args`, `state` and the built-in functions.
    """
    problems: list[str] = []
    schema_problem = _schema_error(tool)
    if schema_problem:
        problems.append(schema_problem)
    renderer = TemplateRenderer()
    for _where, condition in tool.conditions():
        problem = check_rule_expression(condition)
        if problem:
            problems.append(f"tool {tool.name!r}: {problem}")
    for body in tool.rendered():
        for text in template_strings(body.value):
            problem = renderer.check(text)
            if problem:
                problems.append(f"tool {tool.name!r}: {problem}")
    return problems


def template_strings(value: Any) -> Iterable[str]:
    """Every string inside `value` (mappings and lists included) that holds a template."""
    if isinstance(value, str):
        if has_template(value):
            yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from template_strings(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from template_strings(item)


class _Call:
    """One valid call as a stub kind sees it (`StubContext`): its arguments over the shared state."""

    def __init__(self, env: ToolEnvironment, args: dict[str, Any], declared: Iterable[str] = ()) -> None:
        self._env, self._args = env, args
        # Templates see a declared argument the agent left out (its schema allows that) as omitted:
        # None when stored, '' in text, replaced by `| default(...)`, as before templates were
        # strict; strictness is for names the tool does not have (`validate` refuses them at load).
        self._template_args = {**{name: omitted(name) for name in declared if name not in args}, **args}
        self._context = {"args": self._template_args, "state": env._state}

    def render(self, value: Any) -> Any:
        return self._env._renderer.render_deep(value, self._context)

    def render_json(self, text: str) -> Any:
        return self._env._renderer.render_json(text, self._context)

    def first_rule(self, rules: list[Rule]) -> Rule | None:
        return self._env._rules.first_match(rules, self._args, self._env._state)

    def apply_state(self, op: StateOp) -> Any:
        return self._env._state_engine.apply(op, self._env._state, self._template_args)

    def no_rule_matched(self) -> Any:
        return dict(NO_RULE_MATCHED)


def _validation_message(validator: Draft202012Validator, arguments: Any) -> str | None:
    error = best_match(validator.iter_errors(arguments))
    if error is None:
        return None
    return f"{error.json_path}: {error.message}"


def _unique(names: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(names))


class ToolEnvironment:
    """The stubs one conversation's agent may call, over one shared, mutable state.

    Every call is deterministic given the environment's `conversation_id` and `seed` and the
    sequence of calls: faults and latencies are drawn from `stable_seed(conversation_id, seed,
    tool, n)` where `n` counts the valid calls of that tool so far. Latency advances the simulated
    conversation clock (`clock_ms`); `call` never sleeps, `acall` sleeps for real only when the
    tool's `LatencySpec.real_sleep` is set.

    Raises `StubError` at construction when a tool's parameters are not a valid JSON Schema, and
    during a call when the stub itself is broken (a template that does not compile, a rule
    condition with a syntax error or an unknown name, a state path that is not a list).
    """

    def __init__(
        self,
        tools: Mapping[str, ToolDef],
        state: Mapping[str, Any],
        *,
        conversation_id: str,
        seed: int,
    ) -> None:
        self._tools: dict[str, ToolDef] = dict(tools)
        self._state: dict[str, Any] = copy.deepcopy(dict(state))
        self._conversation_id = conversation_id
        self._seed = seed
        self._validators: dict[str, Draft202012Validator] = {}
        for name, tool in self._tools.items():
            problem = _schema_error(tool)
            if problem:
                raise StubError(problem)
            self._validators[name] = tool_validator(tool.parameters)
        self._renderer = TemplateRenderer()
        self._rules = RuleEngine()
        self._state_engine = StateEngine(self._renderer)
        self._events: list[DomainEvent] = []
        self._calls: list[ToolCall] = []
        self._clock_ms = 0.0
        self._valid_calls: dict[str, int] = {}
        self._calls_per_turn: dict[int, int] = {}

    # -- read-only views -------------------------------------------------------------------------

    @property
    def state(self) -> dict[str, Any]:
        """A copy of the current environment state (the initial mapping is never mutated)."""
        return copy.deepcopy(self._state)

    @property
    def events(self) -> list[DomainEvent]:
        """Domain events emitted so far, in order."""
        return list(self._events)

    @property
    def calls(self) -> list[ToolCall]:
        """Every call made so far (valid or not), in order."""
        return list(self._calls)

    @property
    def clock_ms(self) -> float:
        """The simulated conversation clock: the sum of tool latencies (and `advance` calls)."""
        return self._clock_ms

    @property
    def tool_names(self) -> list[str]:
        """The names of the tools in this environment, in definition order."""
        return list(self._tools)

    def advance(self, ms: float) -> None:
        """Move the simulated clock forward by `ms` (e.g. the time the agent spent speaking)."""
        if ms < 0:
            raise ValueError("the clock cannot go backwards")
        self._clock_ms += ms

    def ends_call(self, name: str) -> str | None:
        """`"transfer"` or `"callback"` when calling `name` ends the call, else None."""
        tool = self._tools.get(name)
        return tool.ends_call if tool is not None else None

    def schemas(self, names: Iterable[str] | None = None) -> list[dict[str, Any]]:
        """Tool schemas for an agent or an LLM: `[{"name", "description", "parameters"}]`.

        `names` picks and orders the tools (default: all, in definition order); an unknown name
        is a `KeyError`.
        """
        chosen = list(self._tools) if names is None else list(names)
        unknown = [name for name in chosen if name not in self._tools]
        if unknown:
            raise KeyError(f"unknown tools: {', '.join(unknown)}")
        return [
            {
                "name": name,
                "description": self._tools[name].description,
                "parameters": copy.deepcopy(self._tools[name].parameters),
            }
            for name in chosen
        ]

    # -- calls -----------------------------------------------------------------------------------

    def call(self, name: str, arguments: Mapping[str, Any], *, turn: int) -> ToolCall:
        """Run one tool call on turn `turn` and record it; never sleeps (latency is simulated)."""
        return self._execute(name, arguments, turn).call

    async def acall(self, name: str, arguments: Mapping[str, Any], *, turn: int) -> ToolCall:
        """Like `call`, but awaits the latency for real when the tool's `real_sleep` is set."""
        outcome = self._execute(name, arguments, turn)
        if outcome.sleep_s > 0:
            await asyncio.sleep(outcome.sleep_s)
        return outcome.call

    def _next_id(self, turn: int) -> str:
        n = self._calls_per_turn.get(turn, 0)
        self._calls_per_turn[turn] = n + 1
        return f"call_{turn}_{n}"

    def _record(self, call: ToolCall, sleep_s: float = 0.0) -> _Outcome:
        self._calls.append(call)
        return _Outcome(call=call, sleep_s=sleep_s)

    def _rejected(self, call_id: str, name: str, arguments: dict[str, Any], error: str,
                  message: str) -> _Outcome:
        """A call that never reaches the stub: recorded invalid, with the reason as its result."""
        return self._record(ToolCall(id=call_id, name=name, arguments=arguments,
                                     result={"error": error, "detail": message}, valid=False,
                                     validation_error=message))

    def _execute(self, name: str, arguments: Any, turn: int) -> _Outcome:
        call_id = self._next_id(turn)
        tool = self._tools.get(name)
        if tool is None:
            raw = copy.deepcopy(dict(arguments)) if isinstance(arguments, Mapping) else {}
            return self._rejected(call_id, name, raw, "unknown_tool", f"unknown tool {name!r}")
        if not isinstance(arguments, Mapping):
            return self._rejected(call_id, name, {}, "invalid_arguments",
                                  f"$: arguments must be a JSON object, got {type(arguments).__name__}")
        args = copy.deepcopy(dict(arguments))
        problem = _validation_message(self._validators[name], args)
        if problem is not None:
            return self._rejected(call_id, name, args, "invalid_arguments", problem)

        counter = self._valid_calls.get(name, 0)
        self._valid_calls[name] = counter + 1
        latency = draw_latency(
            tool.latency, latency_seed(self._conversation_id, self._seed, name, counter)
        )
        self._clock_ms += latency
        sleep_s = latency / 1000.0 if tool.latency is not None and tool.latency.real_sleep else 0.0

        fault = draw_fault(
            tool.errors, fault_seed(self._conversation_id, self._seed, name, counter)
        )
        if fault is not None:
            result, kind = fault
            return self._record(
                ToolCall(
                    id=call_id,
                    name=name,
                    arguments=args,
                    result=result,
                    error=kind,
                    latency_ms=latency,
                ),
                sleep_s,
            )

        try:
            result, event_names = self._respond(tool, args)
        except StubError as exc:
            raise StubError(f"tool {name!r}: {exc}") from exc
        for event_name in event_names:
            self._events.append(
                DomainEvent(name=event_name, turn=turn, tool=name, args=copy.deepcopy(args))
            )
        return self._record(
            ToolCall(
                id=call_id,
                name=name,
                arguments=args,
                result=result,
                latency_ms=latency,
                events=event_names,
            ),
            sleep_s,
        )

    def _respond(self, tool: ToolDef, args: dict[str, Any]) -> tuple[Any, list[str]]:
        """The stub's answer and the events the call emits (each kind answers for itself)."""
        declared = tool.parameters.get("properties") if isinstance(tool.parameters, dict) else None
        result, events = tool.respond(_Call(self, args, declared if isinstance(declared, dict) else ()))
        return result, _unique(events)
