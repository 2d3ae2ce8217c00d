"""`validate_paths`: check files and suite folders without running anything."""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from pathlib import Path

from ._assertion_check import assertion_errors
from ._detect import KIND_HINT, TOOLS_NAMES, detect_kind
from ._errors import PolygonFileError, dedupe
from ._loaders import (
    ToolCatalog,
    attempt,
    load_agent,
    load_suite_config,
    load_tool_library,
    scenario_from_document,
    tool_name_errors,
)
from ._suite import SCENARIO_FOLDER, collect_suite
from ._validation import validate_document
from ._yaml import YamlDocument, read_yaml, require_mapping


def validate_paths(paths: Iterable[Path | str]) -> list[PolygonFileError]:
    """Check Polygon files and suite folders; return every problem found ([] when all are valid).

    Each path's kind is detected (see `detect_kind`): a folder is checked as a suite, a file as a
    tool library, suite settings, scenario or agent config. A scenario inside a suite folder is also
    checked against that suite's tool library. Scenario assertions are syntax-checked when
    `polygon_core.assertions.check_expression` is available. Nothing is run.
    """
    errors: list[PolygonFileError] = []
    for raw in paths:
        errors += _validate_one(Path(raw))
    return dedupe(errors)


def _validate_one(path: Path) -> list[PolygonFileError]:
    if not path.exists():
        return [PolygonFileError(str(path), "no such file or folder")]
    kind = detect_kind(path)
    if kind == "suite":
        return collect_suite(path)[1]
    if kind == "tools":
        return attempt(partial(load_tool_library, path))[1]
    if kind == "suite_config":
        return attempt(partial(load_suite_config, path))[1]

    doc, errors = attempt(partial(read_yaml, path))
    if doc is None:
        return errors
    data, errors = attempt(partial(require_mapping, doc, "a Polygon file"))
    if data is None:
        return errors
    kind = detect_kind(path, data)
    if kind == "scenario":
        return _scenario_errors(doc, path)
    if kind == "agent":
        return attempt(partial(load_agent, path))[1]
    if kind == "sweep":
        return _sweep_errors(doc, path)
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
    # A scenario validated on its own still belongs to a suite when it sits in one: look for the
    # tool library beside it, or one level up from a `scenarios/` folder. (None, True) = none there.
    folders = [path.parent]
    if path.parent.name == SCENARIO_FOLDER:
        folders.append(path.parent.parent)
    for folder in folders:
        for name in TOOLS_NAMES:
            candidate = folder / name
            if candidate.is_file():
                library, _errors = attempt(partial(load_tool_library, candidate))
                if library is None:
                    return None, False
                return ToolCatalog(dict(library.tools), str(candidate)), True
    return None, True


def _sweep_errors(doc: YamlDocument, path: Path) -> list[PolygonFileError]:
    from ..sweeps import SweepSpec

    spec, errors = attempt(partial(validate_document, doc, SweepSpec))
    if spec is None:
        return errors
    agent, suite = path.parent / spec.agent, path.parent / spec.suite
    if not agent.is_file():
        errors.append(doc.error(("agent",), f"no agent config at {agent}"))
    else:
        errors += attempt(partial(load_agent, agent))[1]
    if not suite.is_dir():
        errors.append(doc.error(("suite",), f"no suite folder at {suite}"))
    return errors
