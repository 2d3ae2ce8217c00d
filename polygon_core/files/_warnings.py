"""`validation_warnings`: things that are valid but will not test what the author means.

Warnings never fail `polygon validate` (its exit code is the errors' alone). Today: a persona with a
goal but no facts to give. The offline caller answers the agent only from its ground truth, so such a
caller can never identify itself or give the details its goal needs: it repeats its goal until the
agent gives up or transfers.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ..documents import PolygonFileError, read_yaml, require_mapping
from ..models import Scenario, ToolDef
from ._detect import YAML_SUFFIXES, detect_kind
from ._loaders import attempt, scenario_from_document
from ._suite import collect_suite


def persona_warnings(scenario: Scenario, tools: dict[str, ToolDef] | None = None) -> list[str]:
    """Why this scenario's persona cannot reach its goal as written ([] when nothing is missing).

    Names what is missing: the ground truth, and the arguments the scenario's tools require when
    the suite's tool library is known.
    """
    persona = scenario.persona
    if persona.ground_truth:
        return []
    wanted = sorted({name for tool in scenario.tools if tools and tool in tools
                     for name in (tools[tool].parameters.get("required") or [])})
    hint = (f" (its tools ask for {', '.join(wanted)})" if wanted
            else " (the facts the agent will ask for: a name, an account or order number, a date…)")
    return [f"persona has a goal ({persona.goal!r}) but no facts to give: ground_truth is empty, so the "
            f"simulated caller cannot answer the agent's questions{hint}"]


def validation_warnings(paths: Iterable[Path | str]) -> list[PolygonFileError]:
    """Warnings for the scenarios at `paths` (suite folders or scenario files); files with errors
    are skipped, `validate_paths` reports those."""
    out: list[PolygonFileError] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            suite, _errors = collect_suite(path)
            if suite is not None:
                for scenario in suite.scenarios:
                    file = suite.scenario_files.get(scenario.id, path)
                    out += [PolygonFileError(str(file), m, field="persona.ground_truth")
                            for m in persona_warnings(scenario, suite.tools)]
        elif path.is_file() and path.suffix in YAML_SUFFIXES:
            out += _file_warnings(path)
    return out


def _file_warnings(path: Path) -> list[PolygonFileError]:
    doc, _ = attempt(lambda: read_yaml(path))
    if doc is None:
        return []
    data, _ = attempt(lambda: require_mapping(doc, "a Polygon file"))
    if data is None or detect_kind(path, data) != "scenario":
        return []
    scenario, _ = attempt(lambda: scenario_from_document(doc))
    if scenario is None:
        return []
    return [PolygonFileError(str(path), m, field="persona.ground_truth") for m in persona_warnings(scenario)]
