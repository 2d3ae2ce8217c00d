"""Loading a suite folder (suite.yaml, tools.yaml, scenario files), collecting every error."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path

from ..documents import FileErrors, PolygonFileError, YamlDocument, read_yaml
from ..models import Scenario, ToolDef
from ..noise import check_homophone_groups
from ..probes import load_probes
from ._assertion_check import assertion_errors
from ._detect import SUITE_CONFIG_NAMES, TOOLS_NAMES, YAML_SUFFIXES, detect_kind
from ._loaders import (
    ToolCatalog,
    attempt,
    load_suite_config,
    load_tool_library,
    scenario_from_document,
    tool_name_errors,
)
from ._models import Suite, SuiteConfig

ScenarioCheck = Callable[[YamlDocument, Scenario, ToolCatalog | None], list[PolygonFileError]]

SCENARIO_FOLDER = "scenarios"


def load_suite(path: Path | str) -> Suite:
    """Load a suite folder.

    The folder holds an optional `suite.yaml` (SuiteConfig), a `tools.yaml` tool library (required
    once any scenario lists tools) and scenario files: `scenarios/**/*.yaml` and any other `*.yaml`
    directly in the folder, besides the probe library `suite.yaml` names (which is checked too).
    Scenarios come back sorted by their path within the folder. Every problem in every file is
    collected and raised together as FileErrors.
    """
    suite, errors = collect_suite(Path(path))
    if errors or suite is None:
        raise FileErrors(errors)
    return suite


def collect_suite(
    root: Path, scenario_check: ScenarioCheck | None = assertion_errors
) -> tuple[Suite | None, list[PolygonFileError]]:
    """Load the suite at `root`, returning (suite, []) or (None, every error found).

    `scenario_check` runs extra checks on each valid scenario: by default the assertions' static
    check, the same one `polygon validate` makes, so nothing validate rejects is ever run.
    """
    if not root.exists():
        return None, [PolygonFileError(str(root), "no such folder")]
    if not root.is_dir():
        return None, [PolygonFileError(str(root), "a suite is a folder, got a file")]
    errors: list[PolygonFileError] = []

    config_file = _first_existing(root, SUITE_CONFIG_NAMES)
    config: SuiteConfig | None = SuiteConfig()
    if config_file is not None:
        config, found = attempt(partial(load_suite_config, config_file))
        errors += found

    tools_file = _first_existing(root, TOOLS_NAMES)
    catalog: ToolCatalog | None = None
    tools: dict[str, ToolDef] = {}
    if tools_file is not None:
        library, found = attempt(partial(load_tool_library, tools_file))
        errors += found
        if library is not None:
            tools = dict(library.tools)
            catalog = ToolCatalog(tools, str(tools_file))

    excluded = {p for p in (config_file, tools_file) if p is not None}
    if config is not None and config.probes:
        excluded.add(root / config.probes)
        if (root / config.probes).is_file():  # a missing one is suite.yaml's error, above
            errors += attempt(partial(load_probes, root / config.probes))[1]
    homophones: tuple[tuple[str, ...], ...] = ()
    if config is not None and config.homophones:
        excluded.add(root / config.homophones)
        homophones, found = _homophones(root, config.homophones)
        errors += found
    files = scenario_paths(root, excluded)
    if not files:
        errors.append(
            PolygonFileError(
                str(root),
                f"no scenario files: put scenarios in {root / SCENARIO_FOLDER}/*.yaml",
            )
        )

    scenarios: list[Scenario] = []
    scenario_files: dict[str, Path] = {}
    first_seen: dict[str, tuple[str, int]] = {}
    for file in files:
        doc, found = attempt(partial(read_yaml, file))
        errors += found
        if doc is None:
            continue
        wrong_kind = _not_a_scenario(doc, file)
        if wrong_kind is not None:
            errors.append(wrong_kind)
            continue
        scenario, found = attempt(partial(scenario_from_document, doc))
        errors += found
        if scenario is None:
            continue
        if scenario.tools:
            if catalog is not None:
                tool_errors = tool_name_errors(doc, scenario, catalog)
                errors += tool_errors
                if tool_errors:
                    # Assertions naming the misspelt tool would only echo the same mistake.
                    continue
            elif tools_file is None:
                errors.append(
                    doc.error(
                        ("tools",),
                        "the scenario lists tools but the suite has no tool library: "
                        f"define them in {root / TOOLS_NAMES[0]}",
                    )
                )
            # (a tool library that failed to load has reported its own errors)
        if scenario_check is not None:
            errors += scenario_check(doc, scenario, catalog)
        if scenario.id in first_seen:
            other_file, other_line = first_seen[scenario.id]
            errors.append(
                doc.error(
                    ("id",),
                    f"duplicate scenario id {scenario.id!r}: "
                    f"also defined in {other_file}:{other_line}",
                )
            )
            continue
        first_seen[scenario.id] = (doc.file, doc.line_of(("id",)))
        scenarios.append(scenario)
        scenario_files[scenario.id] = file

    if errors or config is None:
        return None, errors
    suite = Suite(
        name=config.name or root.resolve().name,
        path=root,
        config=config,
        tools=tools,
        scenarios=scenarios,
        scenario_files=scenario_files,
        tools_file=tools_file,
        homophones=homophones,
    )
    return suite, []


def _homophones(root: Path, name: str) -> tuple[tuple[tuple[str, ...], ...], list[PolygonFileError]]:
    """The suite's sound-alike groups file (named in suite.yaml `homophones`), checked."""
    path = root / name
    if not path.resolve().is_relative_to(root.resolve()):
        return (), [PolygonFileError(str(path), "the homophones file must be inside the suite folder")]
    doc, errors = attempt(partial(read_yaml, path))  # the loader's own size, depth and alias limits
    if doc is None:
        return (), errors
    try:
        groups = check_homophone_groups(doc.data, str(path))
    except ValueError as exc:
        return (), [PolygonFileError(str(path), str(exc).removeprefix(f"{path}: "))]
    return tuple(tuple(g) for g in groups), []


def scenario_paths(root: Path, excluded: set[Path] | frozenset[Path] = frozenset()) -> list[Path]:
    """Scenario files of the suite at `root`, sorted by their path within it.

    `scenarios/` is searched recursively (authors group scenarios in subfolders); the folder itself
    only at the top. Hidden files (editor swap files, `.something.yaml`) are skipped.
    """
    reserved = {name.lower() for name in (*SUITE_CONFIG_NAMES, *TOOLS_NAMES)}
    excluded_resolved = {p.resolve() for p in excluded}
    found: list[Path] = []
    for path in root.iterdir():
        if _is_yaml(path) and path.name.lower() not in reserved:
            found.append(path)
    folder = root / SCENARIO_FOLDER
    if folder.is_dir():
        for path in folder.rglob("*"):
            if _is_yaml(path) and not any(
                part.startswith(".") for part in path.relative_to(folder).parts
            ):
                found.append(path)
    found = [p for p in found if p.resolve() not in excluded_resolved]
    return sorted(found, key=lambda p: p.relative_to(root).as_posix())


def _is_yaml(path: Path) -> bool:
    return path.suffix.lower() in YAML_SUFFIXES and not path.name.startswith(".") and path.is_file()


def _first_existing(root: Path, names: tuple[str, ...]) -> Path | None:
    for name in names:
        if (root / name).is_file():
            return root / name
    return None


def _not_a_scenario(doc: YamlDocument, file: Path) -> PolygonFileError | None:
    # An agent config dropped into a suite folder would otherwise produce a confusing list of
    # "missing id / unknown field" errors; name the real problem instead.
    data = doc.data
    if isinstance(data, dict) and "id" not in data and "persona" not in data and detect_kind(file, data) == "agent":
        return PolygonFileError(
            doc.file,
            "this is an agent config, not a scenario; keep agent files outside the suite "
            "folder (everything in it except suite.yaml and tools.yaml is read as a scenario)",
            line=doc.root_line,
        )
    return None
