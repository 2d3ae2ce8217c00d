"""Artifacts in S3 or any S3-compatible service (MinIO, Ceph, moto...)."""

from __future__ import annotations

from typing import Any

from ._keys import check_key, check_prefix
from ._protocol import ArtifactNotFoundError, ArtifactStoreError

__all__ = ["S3ArtifactStore", "parse_s3_url"]

_MISSING_KEY = {"NoSuchKey", "404", "NotFound"}
_MISSING_BUCKET = {"NoSuchBucket"}


def parse_s3_url(url: str) -> tuple[str, str]:
    """Split ``s3://bucket/some/prefix`` into ``("bucket", "some/prefix")``."""
    if not url.startswith("s3://"):
        raise ValueError(f"{url!r} is not an s3:// URL")
    bucket, _, key = url[len("s3://") :].partition("/")
    if not bucket:
        raise ValueError(f"{url!r} names no bucket; expected s3://bucket/prefix")
    return bucket, key


class S3ArtifactStore:
    """An ArtifactStore over one bucket, with every key below an optional ``prefix``.

    ``client`` may be any boto3 S3 client (tests, custom sessions); without one, a client is made
    from the usual AWS environment (credentials, region), pointed at ``endpoint_url`` if given.
    A PUT is atomic in S3, so no extra care is needed to avoid half-written objects.
    """

    #: Keys asked for per ListObjectsV2 call (S3's own maximum); tests lower it to see paging.
    page_size: int = 1000

    def __init__(
        self,
        bucket: str,
        prefix: str = "",
        endpoint_url: str | None = None,
        client: Any | None = None,
    ) -> None:
        """Use ``bucket`` (which must exist) and keep keys under ``prefix``."""
        if not bucket or "/" in bucket:
            raise ValueError(f"invalid S3 bucket name {bucket!r}")
        self.bucket = bucket
        self.prefix = check_key(prefix.strip("/")) if prefix.strip("/") else ""
        self.endpoint_url = endpoint_url
        self._client = client if client is not None else _make_client(endpoint_url)
        self._bucket_seen = False

    def __repr__(self) -> str:
        where = f", endpoint_url={self.endpoint_url!r}" if self.endpoint_url else ""
        return f"S3ArtifactStore({self.bucket!r}, prefix={self.prefix!r}{where})"

    def put_text(self, key: str, text: str, content_type: str = "application/json") -> str:
        """Upload ``text`` (UTF-8) under ``key``; return its ``s3://`` URI."""
        return self.put_bytes(key, text.encode("utf-8"), content_type=content_type)

    def get_text(self, key_or_uri: str) -> str:
        """Download the text under a key, or under an ``s3://`` URI in this bucket."""
        return self.get_bytes(key_or_uri).decode("utf-8")

    def put_bytes(
        self, key: str, data: bytes, content_type: str = "application/octet-stream"
    ) -> str:
        """Upload ``data`` under ``key`` with ``content_type``; return its ``s3://`` URI."""
        full = self._full_key(key)
        try:
            self._client.put_object(
                Bucket=self.bucket, Key=full, Body=bytes(data), ContentType=content_type
            )
        except Exception as exc:
            self._raise_known(exc, full)
            raise
        self._bucket_seen = True
        return self._uri_of(full)

    def get_bytes(self, key_or_uri: str) -> bytes:
        """Download the bytes under a key, or under an ``s3://`` URI in this bucket."""
        full = self._full_key_from_uri(key_or_uri) if key_or_uri.startswith("s3://") else None
        full = full or self._full_key(key_or_uri)
        try:
            response = self._client.get_object(Bucket=self.bucket, Key=full)
            body: bytes = response["Body"].read()
        except Exception as exc:
            self._raise_known(exc, full)
            raise
        return body

    def exists(self, key: str) -> bool:
        """Whether an object is stored under ``key``."""
        full = self._full_key(key)
        try:
            self._client.head_object(Bucket=self.bucket, Key=full)
        except Exception as exc:
            if _error_code(exc) in _MISSING_KEY:
                # A HEAD answers a bare 404 for a missing bucket too: tell the two apart once.
                self._check_bucket()
                return False
            self._raise_known(exc, full)
            raise
        self._bucket_seen = True
        return True

    def list(self, prefix: str = "") -> list[str]:
        """Keys (relative to the store's prefix) that start with ``prefix``, sorted."""
        full_prefix = self._base() + check_prefix(prefix)
        keys: list[str] = []
        try:
            pages = self._client.get_paginator("list_objects_v2").paginate(
                Bucket=self.bucket,
                Prefix=full_prefix,
                PaginationConfig={"PageSize": self.page_size},
            )
            for page in pages:
                keys.extend(item["Key"][len(self._base()) :] for item in page.get("Contents", []))
        except Exception as exc:
            self._raise_known(exc, full_prefix)
            raise
        return sorted(keys)

    def uri(self, key: str) -> str:
        """The ``s3://bucket/prefix/key`` URI of ``key``."""
        return self._uri_of(self._full_key(key))

    # -- helpers -------------------------------------------------------------------------------

    def _base(self) -> str:
        return f"{self.prefix}/" if self.prefix else ""

    def _full_key(self, key: str) -> str:
        return self._base() + check_key(key)

    def _uri_of(self, full_key: str) -> str:
        return f"s3://{self.bucket}/{full_key}"

    def _full_key_from_uri(self, uri: str) -> str:
        bucket, full = parse_s3_url(uri)
        if bucket != self.bucket:
            raise ValueError(f"{uri!r} is in bucket {bucket!r}, not this store's {self.bucket!r}")
        return check_key(full)

    def _check_bucket(self) -> None:
        """Raise ArtifactStoreError naming the bucket when it does not exist."""
        if self._bucket_seen:
            return
        try:
            self._client.head_bucket(Bucket=self.bucket)
        except Exception as exc:
            code = _error_code(exc)
            if code in _MISSING_BUCKET or code in _MISSING_KEY:
                raise self._missing_bucket() from exc
            raise
        self._bucket_seen = True

    def _missing_bucket(self) -> ArtifactStoreError:
        where = f" at {self.endpoint_url}" if self.endpoint_url else ""
        return ArtifactStoreError(
            f"S3 bucket {self.bucket!r} does not exist{where}; create it or fix the artifacts URL"
        )

    def _raise_known(self, exc: Exception, full_key: str) -> None:
        """Raise the store's own error for a missing bucket or key; return for anything else."""
        code = _error_code(exc)
        if code in _MISSING_BUCKET:
            raise self._missing_bucket() from exc
        if code in _MISSING_KEY:
            raise ArtifactNotFoundError(f"no artifact {self._uri_of(full_key)}") from exc


def _error_code(exc: Exception) -> str | None:
    response = getattr(exc, "response", None)
    if not isinstance(response, dict):
        return None
    code = response.get("Error", {}).get("Code")
    return str(code) if code is not None else None


def _make_client(endpoint_url: str | None) -> Any:
    # Imported here, not at module top: importing the artifacts package must not load boto3.
    import boto3
    from botocore.config import Config

    # Path-style addressing (`endpoint/bucket/key`) is what S3-compatible services speak; real
    # AWS keeps its default virtual-host style when no endpoint is given.
    config = Config(s3={"addressing_style": "path"}) if endpoint_url else None
    return boto3.client("s3", endpoint_url=endpoint_url, config=config)
