"""Artifact stores: where transcripts and reports live (a local folder or S3).

boto3 is imported only when an S3 store is actually created.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import unquote, urlparse

from ._local import LocalArtifactStore
from ._protocol import ArtifactNotFoundError, ArtifactStore, ArtifactStoreError
from ._s3 import S3ArtifactStore, parse_s3_url

__all__ = [
    "ArtifactNotFoundError",
    "ArtifactStore",
    "ArtifactStoreError",
    "LocalArtifactStore",
    "S3ArtifactStore",
    "artifact_store_from_url",
]


def artifact_store_from_url(
    url: str | os.PathLike[str], *, endpoint_url: str | None = None
) -> ArtifactStore:
    """Open the store a URL names.

    ``s3://bucket/prefix`` gives an S3ArtifactStore (``endpoint_url`` selects an S3-compatible
    service); a ``file://`` URL or a plain path gives a LocalArtifactStore.
    """
    text = os.fspath(url)
    if not text:
        raise ValueError("empty artifacts URL")
    if text.startswith("s3://"):
        bucket, prefix = parse_s3_url(text)
        return S3ArtifactStore(bucket, prefix, endpoint_url=endpoint_url)
    if text.startswith("file:"):
        parsed = urlparse(text)
        if parsed.netloc not in ("", "localhost"):
            raise ValueError(f"{text!r}: file URLs on another host are not supported")
        return LocalArtifactStore(Path(unquote(parsed.path)))
    scheme = urlparse(text).scheme
    # A one-letter "scheme" is a Windows drive (C:\...), i.e. a path.
    if scheme and len(scheme) > 1:
        raise ValueError(f"unsupported artifacts URL {text!r}; use a folder, file:// or s3://")
    return LocalArtifactStore(text)
