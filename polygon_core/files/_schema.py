"""JSON Schemas of Polygon's files, generated from the pydantic models, for editors and CI.

A kind is one entry in `_SCHEMAS`: adding a file kind (a sweep spec, say) is one more entry.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from ..models import TOOL_KINDS, AgentConfig, Scenario, ToolLibrary
from ..probes import PROBE_SIGNALS, ProbeLibrary
from ..sweeps import SweepSpec
from ._models import SuiteConfig

DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
# Schema ids are names, never fetched: tools match them, no network is involved.
SCHEMA_BASE_URL = "https://polygon.dev/schema/"


@dataclass(frozen=True)
class _SchemaSpec:
    model: type[BaseModel]
    title: str
    description: str
    # Where the model accepts more than pydantic can express (before-validators), widen the schema
    # so that every file the loader accepts also passes the published schema.
    adjust: Callable[[dict[str, Any]], None] | None = None


def _scenario_tool_entries(schema: dict[str, Any]) -> None:
    # Scenario's before-validator accepts `- {name: x}` as well as `- x`.
    schema["properties"]["tools"]["items"] = {
        "anyOf": [
            {"type": "string"},
            {
                "type": "object",
                "properties": {"name": {"type": "string"}},
                "required": ["name"],
                "additionalProperties": False,
            },
        ]
    }


def _tool_names_from_keys(schema: dict[str, Any]) -> None:
    # In tools.yaml a tool's name is its key: ToolLibrary fills `name` in before validation.
    for kind in TOOL_KINDS.values():
        tool = schema["$defs"][kind.__name__]
        tool["required"] = [r for r in tool.get("required", []) if r != "name"]
        if not tool["required"]:
            del tool["required"]
        tool["properties"]["name"]["description"] = "defaults to the tool's key under `tools`"


def _sweep_shorthand(schema: dict[str, Any]) -> None:
    # SweepSpec's before-validator accepts `temperature: [0, 0.5]` as well as `{values: [...]}`.
    params = schema["properties"]["parameters"]
    params["additionalProperties"] = {"anyOf": [params["additionalProperties"], {"type": "array", "minItems": 1}]}


def _probe_library_forms(schema: dict[str, Any]) -> None:
    # The loader takes a bare list of probes too, and a `signal` must be one the offline answerer has.
    probe = schema["$defs"]["Probe"]
    probe["properties"]["signal"] = {"anyOf": [{"enum": sorted(PROBE_SIGNALS)}, {"type": "null"}],
                                     "default": None, "description": probe["properties"]["signal"].get(
                                         "description", "")}
    body = {k: schema.pop(k) for k in ("type", "properties", "required", "additionalProperties")
            if k in schema}
    schema["anyOf"] = [body, {"type": "array", "items": {"$ref": "#/$defs/Probe"}}]


_SCHEMAS: dict[str, _SchemaSpec] = {
    "scenario": _SchemaSpec(
        Scenario,
        "Polygon scenario",
        "A declarative test case: the simulated caller (persona), the initial state (context), "
        "the tools the agent may use, assertions, forbidden phrases and probes.",
        _scenario_tool_entries,
    ),
    "sweep": _SchemaSpec(
        SweepSpec,
        "Polygon sweep spec",
        "A parameter sweep: the base agent, the parameters to vary (values or a range), the "
        "strategy (one_at_a_time, grid, random), scenarios and seeds, a floor, a token cap.",
        _sweep_shorthand,
    ),
    "agent": _SchemaSpec(
        AgentConfig,
        "Polygon agent config",
        "What is under test: a prompt (inline or `prompt_file`) with a model, sampling parameters "
        "and tools, or an external agent (`callable` or HTTP `endpoint`).",
    ),
    "suite": _SchemaSpec(
        SuiteConfig,
        "Polygon suite settings (suite.yaml)",
        "Defaults for running a suite folder: rubric version, caller seeds, models per role, "
        "probe library and concurrency.",
    ),
    "tools": _SchemaSpec(
        ToolLibrary,
        "Polygon tool library (tools.yaml)",
        "Every tool of a suite, defined once: its JSON Schema parameters and how its stub answers.",
        _tool_names_from_keys,
    ),
    "probes": _SchemaSpec(
        ProbeLibrary,
        "Polygon probe library",
        "Behaviour probes (`--probes`, suite.yaml `probes`): yes/no questions about one behaviour "
        "each, with a polarity, when they apply and the offline answerer's signal.",
        _probe_library_forms,
    ),
}

SCHEMA_KINDS: tuple[str, ...] = tuple(_SCHEMAS)


def json_schema(kind: str) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of one kind of Polygon file.

    `kind` is one of SCHEMA_KINDS: scenario, sweep, agent, suite (the suite.yaml settings), tools
    (the tool library) or probes (a probe library). Returns a fresh dict each call. Raises ValueError for an unknown kind.
    """
    spec = _SCHEMAS.get(kind)
    if spec is None:
        raise ValueError(f"unknown schema kind {kind!r}; known kinds: {', '.join(SCHEMA_KINDS)}")
    body = copy.deepcopy(spec.model.model_json_schema())
    body.pop("title", None)
    body.pop("description", None)
    schema: dict[str, Any] = {
        "$schema": DRAFT_2020_12,
        "$id": f"{SCHEMA_BASE_URL}{kind}.json",
        "title": spec.title,
        "description": spec.description,
        **body,
    }
    if spec.adjust is not None:
        spec.adjust(schema)
    return schema
