"""Artifacts in a local folder: the offline default."""

from __future__ import annotations

import os
import time
import uuid
from pathlib import Path
from urllib.parse import unquote, urlparse

from ._keys import check_key, check_prefix
from ._protocol import ArtifactNotFoundError

__all__ = ["LocalArtifactStore"]

# Temporary files live beside their target (os.replace is atomic only within one file system)
# and carry this marker so listings never show a write still in flight.
_TMP_MARK = ".polygon-tmp-"


class LocalArtifactStore:
    """An ArtifactStore over a folder; keys map to files below ``root``."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        """Use ``root`` (created on first write) as the store's folder."""
        self.root = Path(root).expanduser().absolute()

    def __repr__(self) -> str:
        return f"LocalArtifactStore({str(self.root)!r})"

    def put_text(self, key: str, text: str, content_type: str = "application/json") -> str:
        """Write ``text`` under ``key`` atomically and return its ``file://`` URI.

        ``content_type`` is accepted for the protocol's sake; a file has no place to keep it.
        """
        return self._write(key, text.encode("utf-8"))

    def get_text(self, key_or_uri: str) -> str:
        """Read the text under a key or a ``file://`` URI inside this store."""
        return self.get_bytes(key_or_uri).decode("utf-8")

    def put_bytes(
        self, key: str, data: bytes, content_type: str = "application/octet-stream"
    ) -> str:
        """Write ``data`` under ``key`` atomically and return its ``file://`` URI.

        ``content_type`` is accepted for the protocol's sake; a file has no place to keep it.
        """
        return self._write(key, bytes(data))

    def get_bytes(self, key_or_uri: str) -> bytes:
        """Read the bytes under a key or a ``file://`` URI inside this store."""
        path = self._path_from_uri(key_or_uri) if key_or_uri.startswith("file:") else None
        path = path or self._path(key_or_uri)
        try:
            with open(path, "rb") as handle:
                return handle.read()
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError) as exc:
            raise ArtifactNotFoundError(f"no artifact {key_or_uri!r} in {self.root}") from exc

    def exists(self, key: str) -> bool:
        """Whether a file is stored under ``key``."""
        return self._path(key).is_file()

    def list(self, prefix: str = "") -> list[str]:
        """Keys starting with ``prefix``, sorted; files being written are left out."""
        prefix = check_prefix(prefix)
        # Walk only the deepest folder the prefix names, not the whole store.
        start = self.root / prefix.rpartition("/")[0] if "/" in prefix else self.root
        keys: list[str] = []
        for folder, _dirs, files in os.walk(start):
            for name in files:
                if name.startswith(_TMP_MARK):
                    continue
                key = Path(folder, name).relative_to(self.root).as_posix()
                if key.startswith(prefix):
                    keys.append(key)
        return sorted(keys)

    def sweep_temporaries(self, older_than_seconds: float = 3600.0) -> int:
        """Delete temporary files of writes that never finished (a process killed mid-write);
        returns how many. Only files older than ``older_than_seconds`` go: a younger one may be a
        write still in flight in another process."""
        if not self.root.is_dir():
            return 0
        cutoff = time.time() - older_than_seconds
        removed = 0
        for folder, _dirs, files in os.walk(self.root):
            for name in files:
                path = Path(folder, name)
                if not name.startswith(_TMP_MARK):
                    continue
                try:
                    if path.stat().st_mtime < cutoff:
                        path.unlink()
                        removed += 1
                except FileNotFoundError:  # finished or swept by another process meanwhile
                    continue
        return removed

    def uri(self, key: str) -> str:
        """The ``file://`` URI of ``key``."""
        return self._path(key).as_uri()

    def _write(self, key: str, data: bytes) -> str:
        """Write ``data`` to a temporary file beside the target, then rename it into place."""
        target = self._path(key)
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.parent / f"{_TMP_MARK}{target.name}.{uuid.uuid4().hex}"
        # os.open with mode 0o666 lets the umask decide permissions, like a plain open() would;
        # tempfile's 0o600 would make artifacts unreadable to other users of a shared folder.
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, target)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        _fsync_dir(target.parent)
        return target.as_uri()

    def _path(self, key: str) -> Path:
        return self.root / check_key(key)

    def _path_from_uri(self, uri: str) -> Path:
        parsed = urlparse(uri)
        if parsed.netloc not in ("", "localhost"):
            raise ValueError(f"{uri!r} is not a local file URI")
        path = Path(unquote(parsed.path))
        try:
            key = path.relative_to(self.root).as_posix()
        except ValueError:
            raise ValueError(f"{uri!r} is outside this store's root {self.root}") from None
        return self._path(key)


def _fsync_dir(folder: Path) -> None:
    # Makes the rename itself durable across a power cut; not every platform allows it
    # (Windows cannot open a directory), and atomicity does not depend on it.
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
