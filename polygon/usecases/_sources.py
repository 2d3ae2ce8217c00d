"""The arrivals flows' steps over the configured sources file (`sources_file`, else POLYGON_SOURCES)."""

from __future__ import annotations

from typing import Any

from ._arrivals import ArrivalReport, configured_sources, import_arrivals, pull_source
from ._common import Stores

__all__ = ["import_configured_arrivals", "pull_configured_source", "source_fields"]


def source_fields(stores: Stores, sources_file: str | None = None, *,
                  required: bool = True) -> dict[str, dict[str, Any]]:
    """The sources file as name → source fields; with `required` False, none configured is no
    source rather than an error."""
    if not required and sources_file is None and stores.settings.sources is None:
        return {}
    return {name: source.model_dump() for name, source in configured_sources(stores, sources_file).sources.items()}


def pull_configured_source(stores: Stores, name: str, sources_file: str | None = None) -> int:
    """List the configured source's S3 prefix and record the objects not seen before; returns how many."""
    return len(pull_source(stores, name, configured_sources(stores, sources_file).sources[name]))


def import_configured_arrivals(stores: Stores, batch: str, sources_file: str | None = None,
                               only: str | None = None) -> list[ArrivalReport]:
    """Import every waiting arrival of the configured sources (or of `only`) as one batch."""
    return import_arrivals(stores, configured_sources(stores, sources_file), batch, only)
