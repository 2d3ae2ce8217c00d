"""The artifact-store contract: named blobs (transcripts, reports, call audio) behind a key."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

__all__ = ["ArtifactNotFoundError", "ArtifactStore", "ArtifactStoreError"]


class ArtifactStoreError(RuntimeError):
    """The store itself is unusable (e.g. its bucket does not exist or cannot be reached)."""


class ArtifactNotFoundError(FileNotFoundError):
    """No artifact under the key or URI asked for."""


@runtime_checkable
class ArtifactStore(Protocol):
    """Where Polygon keeps large text artifacts; the database keeps only their URIs.

    Keys are relative POSIX paths (``runs/<run>/conversations/<id>.json``). A write is atomic:
    a reader sees the old text or the new text, never part of one.
    """

    def put_text(self, key: str, text: str, content_type: str = "application/json") -> str:
        """Store ``text`` (UTF-8) under ``key``, replacing any previous text; return its URI."""
        ...

    def get_text(self, key_or_uri: str) -> str:
        """Return the text under a key, or under a URI this store returned.

        Raises ArtifactNotFoundError when there is none.
        """
        ...

    def put_bytes(
        self, key: str, data: bytes, content_type: str = "application/octet-stream"
    ) -> str:
        """Store ``data`` as is under ``key``, replacing any previous bytes; return its URI."""
        ...

    def get_bytes(self, key_or_uri: str) -> bytes:
        """Return the bytes under a key, or under a URI this store returned.

        Raises ArtifactNotFoundError when there is none.
        """
        ...

    def exists(self, key: str) -> bool:
        """Whether an artifact is stored under ``key``."""
        ...

    def list(self, prefix: str = "") -> list[str]:
        """Keys that start with ``prefix`` (a plain string prefix, as in S3), sorted."""
        ...

    def uri(self, key: str) -> str:
        """The URI of ``key`` (``file://...`` or ``s3://...``), whether or not it exists yet."""
        ...
