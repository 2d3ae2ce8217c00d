"""Polygon's files: loading and validating scenarios, tool libraries, agent configs and suites.

Every problem is reported as a PolygonFileError naming the file, the 1-based line and the field
path (`persona.temperament`, `tools[1]`), rendered on one line as `file:line: field: message`.
Loaders raise FileErrors (all problems at once); `validate_paths` returns them as a list.

    suite = load_suite("suites/billing")            # suite.yaml + tools.yaml + scenarios/*.yaml
    agent = load_agent("agents/support.yaml")       # prompt_file resolved beside the agent file
    version = agent_version(agent.config, agent.prompt_text, suite.tools)
    problems = validate_paths(["suites/billing", "agents/support.yaml"])
    schema = json_schema("scenario")                # for editors and CI

YAML follows the 1.2 core schema: `no`/`yes`/`on` and unquoted dates stay strings.
"""

from ..documents import (
    FileErrors,
    PolygonFileError,
    YamlDocument,
    format_path,
    parse_yaml,
    read_yaml,
    validate_document,
)
from ._agent_checks import agent_folders, agent_import_path, find_spec_quietly, not_found_message
from ._check import sweep_path_errors, validate_paths
from ._detect import FILE_KINDS, FileKind, detect_kind
from ._loaders import load_agent, load_scenario, load_suite_config, load_tool_library
from ._models import LoadedAgent, Suite, SuiteConfig
from ._schema import SCHEMA_KINDS, json_schema
from ._suite import load_suite
from ._versions import (
    ImportedName,
    VersionPart,
    agent_version,
    changed_parts,
    describe_parts,
    imported_modules,
    normalise_prompt,
    prompt_hash,
    sorted_parts,
    source_sha,
    version_parts,
)
from ._warnings import persona_warnings, validation_warnings

__all__ = [
    "FILE_KINDS",
    "SCHEMA_KINDS",
    "FileErrors",
    "FileKind",
    "ImportedName",
    "LoadedAgent",
    "PolygonFileError",
    "Suite",
    "SuiteConfig",
    "VersionPart",
    "YamlDocument",
    "agent_folders",
    "agent_import_path",
    "agent_version",
    "changed_parts",
    "describe_parts",
    "detect_kind",
    "find_spec_quietly",
    "format_path",
    "imported_modules",
    "json_schema",
    "load_agent",
    "load_scenario",
    "load_suite",
    "load_suite_config",
    "load_tool_library",
    "normalise_prompt",
    "not_found_message",
    "parse_yaml",
    "persona_warnings",
    "prompt_hash",
    "read_yaml",
    "sorted_parts",
    "source_sha",
    "sweep_path_errors",
    "validate_document",
    "validate_paths",
    "validation_warnings",
    "version_parts",
]
