"""`validate_paths`: check files and suite folders without running anything."""

from __future__ import annotations

import os
from collections.abc import Iterable
from functools import partial
from pathlib import Path

from ..documents import PolygonFileError, YamlDocument, dedupe, read_yaml, require_mapping, validate_document
from ..probes import load_probes
from ..sweeps import ALIASES, SweepSpec
from ._agent_checks import outside_problem
from ._assertion_check import assertion_errors
from ._detect import KIND_HINT, SUITE_CONFIG_NAMES, TOOLS_NAMES, YAML_SUFFIXES, detect_kind
from ._loaders import (
    ModelCheck,
    ToolCatalog,
    attempt,
    load_agent,
    load_suite_config,
    load_tool_library,
    scenario_from_document,
    tool_name_errors,
)
from ._suite import collect_suite


def validate_paths(
    paths: Iterable[Path | str], *, check_model: ModelCheck | None = None
) -> list[PolygonFileError]:
    """Check Polygon files and suite folders; return every problem found ([] when all are valid).

    Each path's kind is detected (see `detect_kind`): a folder is checked as a suite, a file as a
    tool library, suite settings, scenario, agent config, sweep spec or probe library. A scenario inside a suite folder is also
    checked against that suite's tool library. Scenario assertions are syntax-checked when
    `polygon_core.assertions.check_expression` is available. An agent's `model` is read with
    `check_model` when given (see `load_agent`). A Python agent's module is looked for beside its
    agent file and in the first suite folder among `paths` (as a run with that suite looks). Nothing
    is run.
    """
    checked = [Path(raw) for raw in paths]
    suite = next((p for p in checked if p.is_dir() and detect_kind(p) == "suite"), None)
    errors: list[PolygonFileError] = []
    for path in checked:
        errors += _validate_one(path, check_model, suite)
    return dedupe(errors)


def _validate_one(path: Path, check_model: ModelCheck | None = None,
                  suite: Path | None = None) -> list[PolygonFileError]:
    if not path.exists():
        return [PolygonFileError(str(path), "no such file or folder")]
    kind = detect_kind(path)
    if kind == "suite":
        inside = _folder_inside_suite(path)
        return inside if inside is not None else collect_suite(path)[1]
    if kind == "tools":
        return attempt(partial(load_tool_library, path))[1]
    if kind == "suite_config":
        return attempt(partial(load_suite_config, path))[1]

    doc, errors = attempt(partial(read_yaml, path))
    if doc is None:
        return errors
    if detect_kind(path, doc.data) == "probes":  # a probe library may be a bare list
        return attempt(partial(load_probes, path))[1]
    data, errors = attempt(partial(require_mapping, doc, "a Polygon file"))
    if data is None:
        return errors
    kind = detect_kind(path, data)
    if kind == "scenario":
        return _scenario_errors(doc, path)
    if kind == "agent":
        return attempt(partial(load_agent, path, check_model=check_model, suite=suite))[1]
    if kind == "sweep":
        return _sweep_errors(doc, path, check_model)
    return [PolygonFileError(str(path), f"cannot tell what kind of file this is: {KIND_HINT}")]


def _scenario_errors(doc: YamlDocument, path: Path) -> list[PolygonFileError]:
    catalog, library_ok = _nearby_catalog(path)
    scenario, errors = attempt(partial(scenario_from_document, doc))
    if scenario is None:
        return errors
    if catalog is not None:
        tool_errors = tool_name_errors(doc, scenario, catalog)
        if tool_errors:
            # Assertions naming the misspelt tool (or its events) would only echo the same
            # mistake; report the root cause alone.
            return errors + tool_errors
    elif not library_ok and scenario.tools:
        errors.append(
            doc.error(("tools",), "cannot check tool names: the suite's tool library is invalid")
        )
    return errors + assertion_errors(doc, scenario, catalog)


def _nearby_catalog(path: Path) -> tuple[ToolCatalog | None, bool]:
    # A scenario validated on its own still belongs to a suite when it sits in one: its tool library
    # is the nearest `tools.yaml` up the folders (as git finds `.git`), stopping at the first folder
    # that is a suite (has `suite.yaml`) or at the filesystem root. (None, True) = none there.
    root = suite_root(path.parent)
    if root is None:
        return None, True
    for name in TOOLS_NAMES:
        candidate = root / name
        if candidate.is_file():
            library, _errors = attempt(partial(load_tool_library, candidate))
            if library is None:
                return None, False
            return ToolCatalog(dict(library.tools), str(candidate)), True
    return None, True


def suite_root(start: Path) -> Path | None:
    """The nearest folder at or above `start` holding `suite.yaml` or `tools.yaml`, or None."""
    folder = start.absolute()
    markers = (*SUITE_CONFIG_NAMES, *TOOLS_NAMES)
    while True:
        if any((folder / name).is_file() for name in markers):
            # Keep the path as the user wrote it when it was relative, for error messages.
            return _as_given(start, folder)
        if folder.parent == folder:
            return None
        folder = folder.parent


def _as_given(start: Path, found: Path) -> Path:
    return found if start.is_absolute() else Path(os.path.relpath(found))


def _folder_inside_suite(path: Path) -> list[PolygonFileError] | None:
    # `polygon validate suite/scenarios/`: a folder with scenario files but no suite files of its
    # own, inside a suite. Each scenario is checked as a single file (with the suite's library).
    if any((path / name).is_file() for name in (*SUITE_CONFIG_NAMES, *TOOLS_NAMES)):
        return None
    if path.parent == path or suite_root(path.parent) is None:
        return None
    files = sorted(p for p in path.rglob("*") if p.suffix.lower() in YAML_SUFFIXES and p.is_file()
                   and not any(part.startswith(".") for part in p.relative_to(path).parts))
    if not files:
        return None
    errors: list[PolygonFileError] = []
    for file in files:
        errors += _validate_one(file)
    return errors


def sweep_path_errors(doc: YamlDocument, path: Path) -> list[PolygonFileError]:
    """The sweep spec's `prompt_file` values (also written `prompt`, `prompt_variant`) that are
    absolute or resolve outside the spec's folder, one error each at its line."""
    parameters = doc.data.get("parameters") if isinstance(doc.data, dict) else None
    if not isinstance(parameters, dict):
        return []
    errors = []
    for written, body in parameters.items():
        if ALIASES.get(written, written) != "prompt_file":
            continue
        where: tuple[str, ...] = (written,) if isinstance(body, list) else (written, "values")
        values = body if isinstance(body, list) else body.get("values") if isinstance(body, dict) else None
        for i, value in enumerate(values if isinstance(values, list) else []):
            problem = outside_problem(path.parent, str(value), "prompt file", "sweep spec")
            if problem is not None:
                errors.append(doc.error(("parameters", *where, i), problem))
    return errors


def _sweep_errors(
    doc: YamlDocument, path: Path, check_model: ModelCheck | None
) -> list[PolygonFileError]:
    spec, errors = attempt(partial(validate_document, doc, SweepSpec))
    if spec is None:
        return errors
    errors += sweep_path_errors(doc, path)
    agent, suite = path.parent / spec.agent, path.parent / spec.suite
    if not agent.is_file():
        errors.append(doc.error(("agent",), f"no agent config at {agent}"))
    else:
        # Its module is looked for in the sweep's suite folder too, as the sweep's runs look for it.
        errors += attempt(partial(load_agent, agent, check_model=check_model,
                                  suite=suite if suite.is_dir() else None))[1]
    if not suite.is_dir():
        errors.append(doc.error(("suite",), f"no suite folder at {suite}"))
    return errors
