"""The stores a use case works against: Polygon's database, its artifact store and its settings."""

from __future__ import annotations

from dataclasses import dataclass, field

from .artifacts import ArtifactStore, artifact_store_from_url
from .file_cache import FileCaches
from .settings import PolygonSettings, load_settings
from .storage import Repository, ensure_database

__all__ = ["FileCaches", "Stores", "open_stores"]


@dataclass(frozen=True)
class Stores:
    """The database and artifact store a step works against, and its own cache of loaded files
    (`FileCaches`: never shared with another `Stores` unless passed on purpose)."""

    repo: Repository
    artifacts: ArtifactStore
    settings: PolygonSettings
    caches: FileCaches = field(default_factory=FileCaches, compare=False, repr=False)


def open_stores(settings: PolygonSettings | None = None) -> Stores:
    """Open (and, for an empty SQLite database, create) the configured stores."""
    settings = settings or load_settings()
    url = settings.resolved_database_url()
    repo = ensure_database(url)
    artifacts = artifact_store_from_url(settings.resolved_artifacts_url(),
                                        endpoint_url=settings.s3_endpoint_url)
    return Stores(repo=repo, artifacts=artifacts, settings=settings)
