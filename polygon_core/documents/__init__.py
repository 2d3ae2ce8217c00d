"""Reading a user's YAML files and reporting what is wrong in them: the floor every file kind stands on.

A document is YAML read with the line of every key and item kept (YAML 1.2 core schema: `no`, `yes`,
`on` and unquoted dates stay strings; size, depth and alias expansion are bounded), so a problem is a
PolygonFileError naming the file, the 1-based line and the field path, rendered on one line as
`file:line: field: message`; FileErrors carries every problem of a file at once.

    doc = read_yaml(Path("suites/billing/suite.yaml"))
    data = require_mapping(doc, "a suite (a mapping)")
    config = validate_document(doc, SuiteConfig)     # pydantic errors become file:line: field errors

This package imports only `polygon_core.models`: the loaders of every file kind (`files`, `probes`,
`imports`) stand on it, and it knows none of them (docs/design.md, "Layers").
"""

from ._errors import FileErrors, PathPart, PolygonFileError, dedupe, format_path, raises_file_errors
from ._limits import MAX_FILE_BYTES
from ._validation import errors_from_validation, validate_document
from ._yaml import YamlDocument, describe, parse_yaml, read_text, read_yaml, require_mapping

__all__ = [
    "MAX_FILE_BYTES",
    "FileErrors",
    "PathPart",
    "PolygonFileError",
    "YamlDocument",
    "dedupe",
    "describe",
    "errors_from_validation",
    "format_path",
    "parse_yaml",
    "raises_file_errors",
    "read_text",
    "read_yaml",
    "require_mapping",
    "validate_document",
]
