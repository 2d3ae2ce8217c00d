"""Fixtures of the import tests: stores in a private POLYGON_HOME."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from polygon_core.adapters import pipeline


@pytest.fixture
def stores(polygon_home: Path) -> Iterator[pipeline.Stores]:
    """SQLite and local artifacts under the test's POLYGON_HOME."""
    opened = pipeline.open_stores()
    yield opened
    opened.repo.close()


@pytest.fixture(scope="module")
def s3_endpoint() -> Iterator[str]:
    """A moto S3 server on a free loopback port, with fake credentials in the environment."""
    import os

    from moto.server import ThreadedMotoServer

    with pytest.MonkeyPatch.context() as env:
        for var, value in (("AWS_ACCESS_KEY_ID", "testing"), ("AWS_SECRET_ACCESS_KEY", "testing"),
                           ("AWS_SESSION_TOKEN", "testing"), ("AWS_DEFAULT_REGION", "us-east-1"),
                           ("AWS_REGION", "us-east-1"), ("AWS_CONFIG_FILE", os.devnull),
                           ("AWS_SHARED_CREDENTIALS_FILE", os.devnull),
                           ("NO_PROXY", "127.0.0.1,localhost"), ("no_proxy", "127.0.0.1,localhost")):
            env.setenv(var, value)
        env.delenv("AWS_PROFILE", raising=False)
        server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
        server.start()
        try:
            host, port = server.get_host_and_port()
            yield f"http://{host}:{port}"
        finally:
            server.stop()
