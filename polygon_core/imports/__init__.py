"""Importing real (production) transcripts: pure, streaming parsers and their conversion.

``read_calls(stream, fmt)`` yields one ``ImportedCall`` or ``ImportProblem`` at a time, so any file
size imports in constant memory. Formats: see ``FORMATS`` and docs/import-formats.md. What cannot
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
from ._common import format_time, iso_time
from ._convert import (
    PRODUCTION_CALLER,
    PRODUCTION_SCENARIO,
    conversation_id_for,
    to_conversation,
)
from ._registry import FORMATS, is_lines_file, read_calls
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
    "FORMATS",
    "NOT_APPLICABLE_CHECKS",
    "NOT_APPLICABLE_CRITERIA",
    "NOT_APPLICABLE_PROBES",
    "PRODUCTION_CALLER",
    "PRODUCTION_SCENARIO",
    "ImportProblem",
    "ImportedCall",
    "ImportedToolCall",
    "ImportedTurn",
    "ParseItem",
    "SpeakerError",
    "SpeakerMap",
    "check_imported_tool_calls",
    "conversation_id_for",
    "format_time",
    "is_lines_file",
    "iso_time",
    "mark_probes_not_applicable",
    "not_applicable_assertions",
    "parse_speaker_map",
    "read_calls",
    "sample_path",
    "to_conversation",
]

SAMPLES = {"polygon": "polygon.jsonl", "openai": "openai.jsonl", "csv": "calls.csv",
           "vapi": "vapi_calls.json", "retell": "retell_calls.json"}


def sample_path(fmt: str) -> Path:
    """The bundled sample file of an import format."""
    return Path(str(resources.files("polygon_core.imports").joinpath("samples", SAMPLES[fmt])))
