"""Loaders for single files: scenario, tool library, agent config and suite settings."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match
from pydantic import ValidationError

from ..documents import (
    FileErrors,
    PolygonFileError,
    YamlDocument,
    describe,
    errors_from_validation,
    raises_file_errors,
    read_text,
    read_yaml,
    require_mapping,
    validate_document,
)
from ..models import AgentConfig, Scenario, ToolDef, ToolLibrary
from ..stubs import pattern_problems
from ._agent_checks import agent_folders, callable_problem, outside_problem, prompt_file_problem
from ._models import LoadedAgent, SuiteConfig
from ._tool_checks import stub_errors

T = TypeVar("T")

# Reads a model name, raising ValueError for one it cannot read (the providers' parse_model_name).
ModelCheck = Callable[[str], object]

# With the format checker, `pattern` and `patternProperties` must be valid regular expressions:
# the stub compiles them at the first call, which would crash the run instead.
_META_VALIDATOR = Draft202012Validator(
    Draft202012Validator.META_SCHEMA, format_checker=Draft202012Validator.FORMAT_CHECKER
)


@dataclass(frozen=True)
class ToolCatalog:
    """A tool library as a scenario check needs it: the definitions and the file they came from."""

    tools: Mapping[str, ToolDef]
    file: str


def attempt(load: Callable[[], T]) -> tuple[T | None, list[PolygonFileError]]:
    """Run a loader, returning (result, []) or (None, its errors) instead of raising."""
    try:
        return load(), []
    except PolygonFileError as exc:
        return None, [exc]
    except FileErrors as exc:
        return None, list(exc.errors)


# --- scenario ---------------------------------------------------------------------------------


@raises_file_errors
def load_scenario(
    path: Path | str,
    *,
    tools: Mapping[str, ToolDef] | None = None,
    tools_file: str = "tools.yaml",
) -> Scenario:
    """Load and validate a scenario file.

    With `tools` (a tool library's definitions, read from `tools_file`), every tool name the
    scenario lists must be defined there. Raises FileErrors.
    """
    doc = read_yaml(Path(path))
    catalog = ToolCatalog(tools, tools_file) if tools is not None else None
    return scenario_from_document(doc, catalog)


@raises_file_errors
def scenario_from_document(doc: YamlDocument, tools: ToolCatalog | None = None) -> Scenario:
    """Validate a parsed scenario document (and its tool names, given a catalog)."""
    data = require_mapping(doc, "a scenario")
    errors = _tool_item_errors(doc, data)
    scenario: Scenario | None = None
    try:
        scenario = Scenario.model_validate(data)
    except ValidationError as exc:
        errors += errors_from_validation(exc, doc, Scenario)
    if scenario is not None and tools is not None:
        errors += tool_name_errors(doc, scenario, tools)
    if errors or scenario is None:
        raise FileErrors(errors)
    return scenario


def tool_name_errors(
    doc: YamlDocument, scenario: Scenario, catalog: ToolCatalog
) -> list[PolygonFileError]:
    """Errors for tool names the scenario lists twice or that the tool library does not define."""
    errors: list[PolygonFileError] = []
    known = ", ".join(sorted(catalog.tools)) or "(no tools)"
    seen: set[str] = set()
    for index, name in enumerate(scenario.tools):
        if name in seen:
            errors.append(doc.error(("tools", index), f"tool {name!r} is listed twice"))
        elif name not in catalog.tools:
            errors.append(
                doc.error(
                    ("tools", index),
                    f"unknown tool {name!r}; the tool library ({catalog.file}) defines: {known}",
                )
            )
        seen.add(name)
    return errors


def _tool_item_errors(doc: YamlDocument, data: dict[str, Any]) -> list[PolygonFileError]:
    # Scenario accepts `- {name: x}` for future per-scenario overrides but keeps only the name; any
    # other key would be silently dropped, so say so instead.
    items = data.get("tools")
    if not isinstance(items, list):
        return []
    errors = []
    for index, item in enumerate(items):
        if isinstance(item, dict):
            for key in item:
                if key != "name":
                    errors.append(
                        doc.error(
                            ("tools", index, key),
                            f"unknown field {key!r}: a scenario's tool entry takes only `name` "
                            "(define the tool in the tool library)",
                        )
                    )
    return errors


# --- tool library -----------------------------------------------------------------------------


@raises_file_errors
def load_tool_library(path: Path | str) -> ToolLibrary:
    """Load a tool library (`tools.yaml`): `tools:` mapping each name to its definition.

    Besides the model's own rules, each tool's `parameters` must be a valid JSON Schema (draft
    2020-12) describing an object, and a `name` written in a body must equal its key. Raises
    FileErrors.
    """
    doc = read_yaml(Path(path))
    return tool_library_from_document(doc)


@raises_file_errors
def tool_library_from_document(doc: YamlDocument) -> ToolLibrary:
    """Validate a parsed tool-library document."""
    data = require_mapping(doc, "a tool library (`tools:` mapping tool names to definitions)")
    errors: list[PolygonFileError] = []
    bodies = data.get("tools")
    if isinstance(bodies, dict):
        for name, body in bodies.items():
            if isinstance(body, dict):
                errors += _tool_body_errors(doc, name, body)
    library: ToolLibrary | None = None
    try:
        library = ToolLibrary.model_validate(data)
    except ValidationError as exc:
        errors += errors_from_validation(exc, doc, ToolLibrary)
    if library is not None:
        for name, tool in library.tools.items():
            errors += stub_errors(doc, name, tool)
    if errors or library is None:
        raise FileErrors(sorted(errors, key=lambda e: e.line or 0))
    return library


def _tool_body_errors(doc: YamlDocument, name: Any, body: dict[str, Any]) -> list[PolygonFileError]:
    errors = []
    if "name" in body and body["name"] != name:
        errors.append(
            doc.error(
                ("tools", name, "name"),
                f"name {describe(body['name'])} differs from its key {describe(name)} "
                "(leave `name` out: the key is the name)",
            )
        )
    parameters = body.get("parameters")
    if isinstance(parameters, dict):
        # The parameters schema validates every tool call the agent makes (and rubric v2 gates on
        # it), so a broken schema must fail here, not in the middle of a run.
        problem = best_match(_META_VALIDATOR.iter_errors(parameters))
        if problem is not None:
            errors.append(
                doc.error(
                    ("tools", name, "parameters", *problem.absolute_path),
                    f"invalid JSON Schema: {problem.message}",
                )
            )
        elif pattern_problems(parameters):
            errors.extend(doc.error(("tools", name, "parameters", *where), message)
                          for where, message in pattern_problems(parameters))
        elif parameters.get("type", "object") != "object":
            errors.append(
                doc.error(
                    ("tools", name, "parameters", "type"),
                    f"tool parameters must describe an object (type: object), "
                    f"got {describe(parameters['type'])}",
                )
            )
    return errors


# --- agent config -----------------------------------------------------------------------------


@raises_file_errors
def load_agent(path: Path | str, *, check_model: ModelCheck | None = None,
               suite: Path | str | None = None) -> LoadedAgent:
    """Load an agent config and its prompt; `prompt_file` is resolved relative to the agent file.

    The prompt file must lie inside the agent file's folder (no `..` out of it, no absolute path),
    and a `callable` must name a module on the import path that defines the attribute (checked
    without importing it), looked for beside the agent file, in `suite`'s folder when given, then on
    the Python path (`agent_folders`). An `endpoint` must be an http(s) URL with a host (AgentConfig checks).
    `check_model` reads the `model` name (raising ValueError for one it cannot read): model names
    belong to the provider registry, an adapter, so the caller passes it in (the CLI passes
    `parse_model_name`); without it the name is not checked here. Raises FileErrors at the line of
    the field at fault.
    """
    path = Path(path)
    doc = read_yaml(path)
    require_mapping(doc, "an agent config")
    config = validate_document(doc, AgentConfig)
    errors: list[PolygonFileError] = []
    if config.callable is not None:
        problem = callable_problem(config.callable, agent_folders(path, suite))
        if problem:
            errors.append(doc.error(("callable",), problem))
    if check_model is not None:
        try:
            check_model(config.model)
        except ValueError as exc:
            errors.append(doc.error(("model",), str(exc)))
    if errors:
        raise FileErrors(errors)
    if config.prompt_file is not None:
        prompt_path, problem = prompt_file_problem(path, config.prompt_file)
        if problem:
            raise FileErrors([doc.error(("prompt_file",), problem)])
        if not prompt_path.is_file():
            what = "is a folder" if prompt_path.is_dir() else "not found"
            raise FileErrors(
                [doc.error(("prompt_file",), f"prompt file {what}: {prompt_path}")]
            )
        # Decoding errors name the prompt file and its line, which is where the fix goes.
        return LoadedAgent(config, path, read_text(prompt_path), prompt_path)
    return LoadedAgent(config, path, config.prompt or "", None)


# --- suite settings ---------------------------------------------------------------------------


@raises_file_errors
def load_suite_config(path: Path | str) -> SuiteConfig:
    """Load a suite's `suite.yaml`; a `probes` file must exist inside the suite folder. Raises FileErrors."""
    path = Path(path)
    doc = read_yaml(path)
    require_mapping(doc, "suite settings")
    config = validate_document(doc, SuiteConfig)
    outside = None if config.probes is None else outside_problem(path.parent, config.probes, "probe file",
                                                                 "suite")
    if outside is not None:
        raise FileErrors([doc.error(("probes",), outside)])
    if config.probes is not None and not (path.parent / config.probes).is_file():
        raise FileErrors(
            [doc.error(("probes",), f"probe file not found: {path.parent / config.probes}")]
        )
    return config
