"""Importing real (production) transcripts: pure, streaming parsers and their conversion.

``read_calls(stream, fmt)`` yields one ``ImportedCall`` or ``ImportProblem`` at a time, so any file
size imports in constant memory. Formats are registered with ``@import_format`` (see ``FORMATS``,
``_format`` and docs/import-formats.md); every format builds its turns with ``TurnBuilder``. What cannot
be graded on a real call (and why) is in ``NOT_APPLICABLE_CRITERIA``/``_CHECKS``/``_PROBES``.
"""

from importlib import resources
from pathlib import Path

from ._applicability import (
    NOT_APPLICABLE_CHECKS,
    NOT_APPLICABLE_CRITERIA,
    NOT_APPLICABLE_PROBES,
    mark_probes_not_applicable,
    not_applicable_assertions,
)
from ._builder import TurnBuilder
from ._common import format_time, iso_time, parse_values
from ._convert import (
    PRODUCTION_CALLER,
    PRODUCTION_SCENARIO,
    conversation_id_for,
    to_conversation,
)
from ._format import ImportFormat, SignatureCheck, import_format, unregister_format
from ._registry import (
    DEFAULT_FORMAT,
    FORMATS,
    format_for,
    get_format,
    guess_format,
    is_lines_file,
    looks_like,
    read_calls,
)
from ._signing import TOLERANCE_SECONDS, signed_recently
from ._sources import Source, SourcesFile, load_sources
from ._streams import MAX_JSON_DEPTH, nested_deeper_than
from ._tool_checks import check_imported_tool_calls
from ._types import (
    ImportedCall,
    ImportedToolCall,
    ImportedTurn,
    ImportProblem,
    ParseItem,
    SpeakerError,
    SpeakerMap,
    parse_speaker_map,
)

__all__ = [
    "DEFAULT_FORMAT",
    "FORMATS",
    "MAX_JSON_DEPTH",
    "NOT_APPLICABLE_CHECKS",
    "NOT_APPLICABLE_CRITERIA",
    "NOT_APPLICABLE_PROBES",
    "PRODUCTION_CALLER",
    "PRODUCTION_SCENARIO",
    "TOLERANCE_SECONDS",
    "ImportFormat",
    "ImportProblem",
    "ImportedCall",
    "ImportedToolCall",
    "ImportedTurn",
    "ParseItem",
    "SignatureCheck",
    "Source",
    "SourcesFile",
    "SpeakerError",
    "SpeakerMap",
    "TurnBuilder",
    "check_imported_tool_calls",
    "conversation_id_for",
    "format_for",
    "format_time",
    "get_format",
    "guess_format",
    "import_format",
    "is_lines_file",
    "iso_time",
    "load_sources",
    "looks_like",
    "mark_probes_not_applicable",
    "nested_deeper_than",
    "not_applicable_assertions",
    "parse_speaker_map",
    "parse_values",
    "read_calls",
    "sample_path",
    "signed_recently",
    "to_conversation",
    "unregister_format",
]

def sample_path(fmt: str) -> Path:
    """The bundled sample file of a registered import format."""
    sample = get_format(fmt).sample
    if sample is None:
        raise ValueError(f"import format {fmt!r} has no bundled sample")
    return Path(str(resources.files("polygon_core.imports").joinpath("samples", sample)))
