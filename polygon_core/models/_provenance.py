"""What made a stored result: format versions of the files and records Polygon writes, and a run's
provenance (the Polygon version and the versions of the packages that shaped its numbers).

Like inspect_ai's eval logs (`EvalLog.version`, the log file format; `EvalSpec.packages`), every
stored transcript, judgment and report says which format it was written in, so a reader can tell
an older one apart and read it as it was. A record stored before formats were versioned reads as
`UNVERSIONED` (0). The versions themselves are read at the edge (`polygon_core.adapters.provenance`):
this module only names them, so the domain stays pure.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, ValidationInfo

from ._base import DomainModel

__all__ = ["FORMAT_VERSIONS", "JUDGMENT_FORMAT", "REPORT_FORMAT", "STORED", "TRANSCRIPT_FORMAT", "UNVERSIONED",
           "Provenance", "stored_format"]

# Raise one when what a reader must do to read the file changes (a field renamed, removed or
# reinterpreted), never for a field added with a default: a reader keeps reading every older one.
TRANSCRIPT_FORMAT = 1  # a conversation's transcript (`runs/<id>/transcripts/<conversation>.json`)
JUDGMENT_FORMAT = 1  # a stored judgment (its row; `Judgment.format_version`)
REPORT_FORMAT = 1  # a comparison report: `-o report.json`, `--json`, and the HTML report's <meta>
UNVERSIONED = 0  # stored before Polygon wrote format versions (read as it was)

FORMAT_VERSIONS: dict[str, int] = {"transcript": TRANSCRIPT_FORMAT, "judgment": JUDGMENT_FORMAT,
                                   "report": REPORT_FORMAT}


class Provenance(DomainModel):
    """What a run was made by, recorded when it is created (a resumed run keeps its first)."""

    polygon: str = Field(..., description="the Polygon version (its distribution's, polygon-bench)")
    packages: dict[str, str] = Field(
        default_factory=dict, description="distribution → version, of the packages that shape its numbers "
        "(`polygon_core.adapters.provenance.SHAPING_PACKAGES`); one not installed is left out")
    formats: dict[str, int] = Field(default_factory=dict,
                                    description="kind → format version of the files and records it wrote")


# The validation context of a record read back from storage (`Conversation.model_validate_json(text,
# context=STORED)`): only there does a missing `format_version` mean "older than versions".
STORED: dict[str, Any] = {"stored": True}


def stored_format(data: Any, info: ValidationInfo) -> Any:
    """A model's before-validator: a record read with `STORED` and no `format_version` was written
    before formats were versioned, and reads as `UNVERSIONED`; one built in code is today's format
    (the field's default)."""
    if info.context and info.context.get("stored") and isinstance(data, dict) and "format_version" not in data:
        return {**data, "format_version": UNVERSIONED}
    return data
