"""Shared fixtures. Prefect runs against one session-scoped test harness, in a temp PREFECT_HOME."""

from __future__ import annotations

import os
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# Set before anything imports prefect: a private home, no telemetry, quiet logs.
_PREFECT_HOME = tempfile.mkdtemp(prefix="polygon-prefect-")
os.environ.setdefault("PREFECT_HOME", _PREFECT_HOME)
os.environ.setdefault("DO_NOT_TRACK", "1")
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("PREFECT_LOGGING_TO_API_ENABLED", "false")
os.environ.setdefault("PREFECT_SERVER_LOGGING_LEVEL", "CRITICAL")
os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")

# Prefect configures logging once, when it is first imported, and its console handler keeps the
# `sys.stderr` of that moment. Imported first inside a CliRunner invocation (the CLI imports Prefect
# lazily), it would keep that invocation's stream, closed once the invocation ends, and every later
# Prefect log line in the worker would print "--- Logging error ---" into another test's stderr.
import prefect.main  # noqa: E402, F401

REPO = Path(__file__).resolve().parents[1]
PG_ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/postgres"


@pytest.fixture(scope="session")
def prefect_harness() -> Iterator[None]:
    """One Prefect test server for the whole session (starting one costs several seconds)."""
    from prefect.settings import temporary_settings
    from prefect.testing.utilities import prefect_test_harness

    # The heartbeat setting: without it a sync flow run waits about a second at exit for its thread.
    with (prefect_test_harness(server_startup_timeout=180),
          temporary_settings(updates={"flows.heartbeat_frequency": None})):
        yield


@pytest.fixture
def polygon_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private POLYGON_HOME (SQLite + local artifacts) for one test."""
    home = tmp_path / ".polygon"
    monkeypatch.setenv("POLYGON_HOME", str(home))
    for var in ("POLYGON_DATABASE_URL", "POLYGON_ARTIFACTS_URL"):
        monkeypatch.delenv(var, raising=False)
    return home


def _postgres_available() -> bool:
    try:
        import psycopg

        with psycopg.connect(PG_ADMIN_URL, connect_timeout=3):
            return True
    except Exception:
        return False


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """A fresh Postgres database for one test, dropped afterwards."""
    if not _postgres_available():
        pytest.skip("PostgreSQL is not reachable on 127.0.0.1:5432")
    import psycopg

    name = f"polygon_test_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"
    finally:
        with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="module")
def s3_endpoint() -> Iterator[str]:
    """A moto S3 server on a free loopback port, with fake credentials in the environment (one per module)."""
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


@pytest.fixture(autouse=True)
def _sdk_clients_closed_with_their_loop(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test whose event loop ended with SDK clients still open fails: those clients (and their
    loop) would be kept until the process exits, and aiohttp reports each session left open on
    stderr then. Code that makes a model for one `asyncio.run` closes it (`providers.aclose_all`)."""
    import sys

    yield
    clients = sys.modules.get("polygon_core.adapters.providers._clients")
    if clients is None:
        return
    left = [loop for loop in list(clients._BY_LOOP.keys()) if loop.is_closed()]
    for loop in left:
        clients._BY_LOOP.pop(loop, None)  # reported once, not again by every later test
    if left:
        pytest.fail(f"{request.node.nodeid}: {len(left)} event loop(s) ended with SDK clients still open",
                    pytrace=False)


@pytest.fixture
def emitted(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Every event the webhook router sends (`polygon.web._webhooks.send_event` is never called)."""
    from types import SimpleNamespace

    from polygon.web import _webhooks

    captured: list[dict[str, Any]] = []

    def fake_send(**kwargs: Any) -> SimpleNamespace:
        captured.append(kwargs)
        return SimpleNamespace(id=kwargs["id"])

    monkeypatch.setattr(_webhooks, "send_event", fake_send)
    return captured
