"""Artifact stores: a local folder, and S3 through moto's server over real HTTP."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import uuid
from pathlib import Path
from typing import Any

import pytest

from polygon_core.adapters.artifacts import (
    ArtifactNotFoundError,
    ArtifactStore,
    ArtifactStoreError,
    LocalArtifactStore,
    S3ArtifactStore,
    artifact_store_from_url,
)

TEXT = '{"turns": ["Здравствуйте", "héllo"], "note": "line1\\r\\nline2"}\r\n'
# Every byte value, a RIFF header and bytes that are not UTF-8: stored and read back as they are.
DATA = b"RIFF\x24\x00\x00\x00WAVE" + bytes(range(256)) + b"\xff\xfe\r\n\x00"
BAD_KEYS = ["", "/etc/passwd", "../escape.json", "a/../../b", "a\\b", "folder/", "C:/x", "a\x00b"]


def test_importing_the_package_does_not_import_boto3() -> None:
    code = (
        "import sys, polygon_core.adapters, polygon_core.adapters.artifacts, "
        "polygon_core.adapters.settings; "
        "assert 'boto3' not in sys.modules and 'botocore' not in sys.modules, 'SDK imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parents[2])


# -- local ------------------------------------------------------------------------------------


@pytest.fixture()
def local(tmp_path: Path) -> LocalArtifactStore:
    return LocalArtifactStore(tmp_path / "artifacts")


def test_local_round_trip(local: LocalArtifactStore) -> None:
    uri = local.put_text("runs/r1/conversations/c1.json", TEXT)
    assert uri == (local.root / "runs/r1/conversations/c1.json").as_uri()
    assert uri == local.uri("runs/r1/conversations/c1.json")
    assert local.get_text("runs/r1/conversations/c1.json") == TEXT  # newlines kept as given
    assert local.get_text(uri) == TEXT
    assert local.exists("runs/r1/conversations/c1.json")
    assert not local.exists("runs/r1/conversations/c2.json")
    assert isinstance(local, ArtifactStore)


def test_local_bytes_round_trip(local: LocalArtifactStore) -> None:
    uri = local.put_bytes("runs/r1/calls/c1.wav", DATA, content_type="audio/wav")
    assert uri == local.uri("runs/r1/calls/c1.wav")
    assert (local.root / "runs/r1/calls/c1.wav").read_bytes() == DATA
    assert local.get_bytes("runs/r1/calls/c1.wav") == DATA
    assert local.get_bytes(uri) == DATA
    local.put_bytes("runs/r1/calls/c1.wav", b"new")  # replaces, default content type
    assert local.get_bytes("runs/r1/calls/c1.wav") == b"new"
    local.put_text("t.json", TEXT)  # text and bytes are one store: the bytes of text are UTF-8
    assert local.get_bytes("t.json") == TEXT.encode("utf-8")
    assert local.list("runs/") == ["runs/r1/calls/c1.wav"]


def test_local_bytes_missing_and_unsafe_keys(local: LocalArtifactStore) -> None:
    with pytest.raises(ArtifactNotFoundError, match=r"nope\.wav"):
        local.get_bytes("nope.wav")
    with pytest.raises(ArtifactNotFoundError, match=r"nope\.wav"):
        local.get_bytes(local.uri("nope.wav"))
    for key in BAD_KEYS:
        with pytest.raises(ValueError):
            local.put_bytes(key, b"x")
        with pytest.raises(ValueError):
            local.get_bytes(key)


def test_local_failed_bytes_write_leaves_old_bytes_and_no_temp_file(
    local: LocalArtifactStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    local.put_bytes("runs/r1/c.wav", b"complete old audio")

    def broken_replace(src: Any, dst: Any) -> None:
        raise OSError("disk vanished")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk vanished"):
        local.put_bytes("runs/r1/c.wav", DATA * 1000)
    monkeypatch.undo()
    assert local.get_bytes("runs/r1/c.wav") == b"complete old audio"
    assert sorted(p.name for p in (local.root / "runs/r1").iterdir()) == ["c.wav"]


def test_local_overwrite_replaces(local: LocalArtifactStore) -> None:
    local.put_text("a.txt", "old text that is longer", content_type="text/plain")
    local.put_text("a.txt", "new")
    assert local.get_text("a.txt") == "new"


def test_local_list(local: LocalArtifactStore) -> None:
    for key in ("runs/r1/a.json", "runs/r1/b.json", "runs/r12/c.json", "reports/x.html"):
        local.put_text(key, "{}")
    assert local.list() == ["reports/x.html", "runs/r1/a.json", "runs/r1/b.json", "runs/r12/c.json"]
    assert local.list("runs/r1/") == ["runs/r1/a.json", "runs/r1/b.json"]
    assert local.list("runs/r1") == ["runs/r1/a.json", "runs/r1/b.json", "runs/r12/c.json"]
    assert local.list("runs/r1/a") == ["runs/r1/a.json"]
    assert local.list("nothing/") == []
    assert LocalArtifactStore(local.root / "missing").list() == []


def test_local_missing_artifact(local: LocalArtifactStore) -> None:
    with pytest.raises(ArtifactNotFoundError, match=r"nope\.json"):
        local.get_text("nope.json")
    with pytest.raises(FileNotFoundError):  # the error is also a FileNotFoundError
        local.get_text(local.uri("nope.json"))


@pytest.mark.parametrize("key", BAD_KEYS)
def test_local_rejects_unsafe_keys(local: LocalArtifactStore, key: str) -> None:
    with pytest.raises(ValueError):
        local.put_text(key, "x")
    with pytest.raises(ValueError):
        local.exists(key)
    assert not (local.root.parent / "escape.json").exists()


def test_local_rejects_uris_outside_its_root(local: LocalArtifactStore, tmp_path: Path) -> None:
    outside = tmp_path / "outside.json"
    outside.write_text("secret")
    with pytest.raises(ValueError, match="outside"):
        local.get_text(outside.as_uri())


def test_local_failed_write_leaves_old_text_and_no_temp_file(
    local: LocalArtifactStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    local.put_text("runs/r1/c.json", "complete old text")

    def broken_replace(src: Any, dst: Any) -> None:
        raise OSError("disk vanished")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk vanished"):
        local.put_text("runs/r1/c.json", "new text" * 1000)
    monkeypatch.undo()
    assert local.get_text("runs/r1/c.json") == "complete old text"
    assert sorted(p.name for p in (local.root / "runs/r1").iterdir()) == ["c.json"]


def test_local_readers_never_see_partial_text(local: LocalArtifactStore) -> None:
    versions = [chr(ord("a") + i) * 200_000 for i in range(6)]
    local.put_text("big.txt", versions[0])
    seen: set[str] = set()
    stop = threading.Event()

    def read() -> None:
        while not stop.is_set():
            seen.add(local.get_text("big.txt"))

    reader = threading.Thread(target=read)
    reader.start()
    try:
        for text in versions[1:] * 3:
            local.put_text("big.txt", text)
    finally:
        stop.set()
        reader.join()
    assert seen <= set(versions)
    assert local.list() == ["big.txt"]  # in-flight temp files never listed, none left behind


def test_local_files_are_not_private(local: LocalArtifactStore) -> None:
    local.put_text("a.json", "{}")
    mode = (local.root / "a.json").stat().st_mode & 0o777
    umask = os.umask(0)
    os.umask(umask)
    assert mode == 0o666 & ~umask


def test_store_from_url_local(tmp_path: Path) -> None:
    from_path = artifact_store_from_url(str(tmp_path / "a"))
    from_pathlike = artifact_store_from_url(tmp_path / "a")
    from_file_url = artifact_store_from_url((tmp_path / "a").as_uri())
    for store in (from_path, from_pathlike, from_file_url):
        assert isinstance(store, LocalArtifactStore)
        assert store.root == tmp_path / "a"
    from_path.put_text("k.json", "1")
    assert from_file_url.get_text("k.json") == "1"


@pytest.mark.parametrize("url", ["", "gs://bucket/x", "http://example.test/x", "s3://", "s3:///x"])
def test_store_from_url_rejects_bad_urls(url: str) -> None:
    with pytest.raises(ValueError):
        artifact_store_from_url(url)


# -- S3 over moto's server --------------------------------------------------------------------


@pytest.fixture()
def s3_client(s3_endpoint: str) -> Any:
    import boto3

    return boto3.client("s3", endpoint_url=s3_endpoint, region_name="us-east-1")


@pytest.fixture()
def bucket(s3_client: Any) -> str:
    name = f"polygon-test-{uuid.uuid4().hex[:12]}"
    s3_client.create_bucket(Bucket=name)
    return name


def test_s3_round_trip(s3_endpoint: str, s3_client: Any, bucket: str) -> None:
    store = S3ArtifactStore(bucket, prefix="team/polygon/", endpoint_url=s3_endpoint)
    uri = store.put_text("runs/r1/c1.json", TEXT)
    assert uri == f"s3://{bucket}/team/polygon/runs/r1/c1.json"
    assert store.uri("runs/r1/c1.json") == uri
    assert store.get_text("runs/r1/c1.json") == TEXT
    assert store.get_text(uri) == TEXT
    assert store.exists("runs/r1/c1.json")
    assert not store.exists("runs/r1/c2.json")
    head = s3_client.head_object(Bucket=bucket, Key="team/polygon/runs/r1/c1.json")
    assert head["ContentType"] == "application/json"
    assert isinstance(store, ArtifactStore)


def test_s3_bytes_round_trip(s3_endpoint: str, s3_client: Any, bucket: str) -> None:
    store = S3ArtifactStore(bucket, prefix="team", endpoint_url=s3_endpoint)
    uri = store.put_bytes("runs/r1/calls/c1.wav", DATA, content_type="audio/wav")
    assert uri == f"s3://{bucket}/team/runs/r1/calls/c1.wav"
    assert store.get_bytes("runs/r1/calls/c1.wav") == DATA
    assert store.get_bytes(uri) == DATA
    raw = s3_client.get_object(Bucket=bucket, Key="team/runs/r1/calls/c1.wav")
    assert raw["ContentType"] == "audio/wav"
    assert raw["Body"].read() == DATA
    store.put_bytes("blob.bin", b"\x00\x01")
    head = s3_client.head_object(Bucket=bucket, Key="team/blob.bin")
    assert head["ContentType"] == "application/octet-stream"
    store.put_text("t.json", TEXT)
    assert store.get_bytes("t.json") == TEXT.encode("utf-8")


def test_s3_bytes_missing_key_and_bucket(s3_endpoint: str, bucket: str) -> None:
    store = S3ArtifactStore(bucket, endpoint_url=s3_endpoint)
    with pytest.raises(ArtifactNotFoundError, match=r"nope\.wav"):
        store.get_bytes("nope.wav")
    missing = S3ArtifactStore("polygon-no-such-bucket", endpoint_url=s3_endpoint)
    for action in (lambda: missing.put_bytes("a.wav", b"x"), lambda: missing.get_bytes("a.wav")):
        with pytest.raises(ArtifactStoreError, match="polygon-no-such-bucket"):
            action()
    with pytest.raises(ValueError, match="other-bucket"):
        store.get_bytes("s3://other-bucket/a.wav")


def test_s3_content_type_and_overwrite(s3_endpoint: str, s3_client: Any, bucket: str) -> None:
    store = S3ArtifactStore(bucket, endpoint_url=s3_endpoint)
    store.put_text("report.html", "<p>old</p>", content_type="text/html")
    store.put_text("report.html", "<p>new</p>", content_type="text/html")
    assert store.get_text("report.html") == "<p>new</p>"
    assert s3_client.head_object(Bucket=bucket, Key="report.html")["ContentType"] == "text/html"


def test_s3_list_is_relative_to_the_store_prefix(s3_endpoint: str, bucket: str) -> None:
    store = S3ArtifactStore(bucket, prefix="p", endpoint_url=s3_endpoint)
    other = S3ArtifactStore(bucket, prefix="p2", endpoint_url=s3_endpoint)
    for key in ("runs/r1/a.json", "runs/r1/b.json", "runs/r12/c.json"):
        store.put_text(key, "{}")
    other.put_text("runs/r1/zzz.json", "{}")
    assert store.list() == ["runs/r1/a.json", "runs/r1/b.json", "runs/r12/c.json"]
    assert store.list("runs/r1/") == ["runs/r1/a.json", "runs/r1/b.json"]
    assert store.list("runs/r1") == ["runs/r1/a.json", "runs/r1/b.json", "runs/r12/c.json"]
    assert other.list() == ["runs/r1/zzz.json"]
    assert store.list("nothing/") == []


def test_s3_list_pages_through_many_keys(s3_endpoint: str, bucket: str) -> None:
    store = S3ArtifactStore(bucket, endpoint_url=s3_endpoint)
    store.page_size = 3  # so that 10 keys take four ListObjectsV2 pages
    expected = [f"many/{i:02d}.json" for i in range(10)]
    for key in reversed(expected):
        store.put_text(key, "{}")
    assert store.list("many/") == expected


def test_s3_missing_key(s3_endpoint: str, bucket: str) -> None:
    store = S3ArtifactStore(bucket, endpoint_url=s3_endpoint)
    with pytest.raises(ArtifactNotFoundError, match=r"nope\.json"):
        store.get_text("nope.json")


def test_s3_missing_bucket_is_named(s3_endpoint: str) -> None:
    store = S3ArtifactStore("polygon-no-such-bucket", endpoint_url=s3_endpoint)
    for action in (
        lambda: store.put_text("a.json", "{}"),
        lambda: store.get_text("a.json"),
        lambda: store.exists("a.json"),
        store.list,
    ):
        with pytest.raises(ArtifactStoreError, match="polygon-no-such-bucket"):
            action()


def test_s3_rejects_unsafe_keys_and_foreign_uris(s3_endpoint: str, bucket: str) -> None:
    store = S3ArtifactStore(bucket, endpoint_url=s3_endpoint)
    for key in BAD_KEYS:
        with pytest.raises(ValueError):
            store.put_text(key, "x")
    with pytest.raises(ValueError, match="other-bucket"):
        store.get_text("s3://other-bucket/a.json")


def test_s3_accepts_a_given_client(s3_client: Any, bucket: str) -> None:
    store = S3ArtifactStore(bucket, client=s3_client)
    store.put_text("x.json", "[1]")
    assert store.get_text("x.json") == "[1]"


def test_store_from_url_s3(s3_endpoint: str, bucket: str) -> None:
    store = artifact_store_from_url(f"s3://{bucket}/some/prefix", endpoint_url=s3_endpoint)
    assert isinstance(store, S3ArtifactStore)
    assert (store.bucket, store.prefix, store.endpoint_url) == (bucket, "some/prefix", s3_endpoint)
    uri = store.put_text("a.json", "{}")
    assert uri == f"s3://{bucket}/some/prefix/a.json"
    assert store.get_text(uri) == "{}"
    bare = artifact_store_from_url(f"s3://{bucket}", endpoint_url=s3_endpoint)
    assert isinstance(bare, S3ArtifactStore) and bare.prefix == ""
    assert bare.list() == ["some/prefix/a.json"]


def test_sweep_removes_only_stale_temporaries(tmp_path: Path) -> None:
    from polygon_core.adapters.artifacts import LocalArtifactStore

    store = LocalArtifactStore(tmp_path / "store")
    store.put_text("runs/r/a.json", "{}")
    folder = tmp_path / "store" / "runs" / "r"
    stale = folder / ".polygon-tmp-b.json.dead"
    fresh = folder / ".polygon-tmp-c.json.inflight"
    stale.write_text("half")
    fresh.write_text("half")
    old = stale.stat().st_mtime - 7200
    os.utime(stale, (old, old))
    assert store.sweep_temporaries() == 1
    assert sorted(p.name for p in folder.iterdir()) == [".polygon-tmp-c.json.inflight", "a.json"]
    assert store.list("runs/") == ["runs/r/a.json"]
