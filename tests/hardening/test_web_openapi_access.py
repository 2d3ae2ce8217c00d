"""`/openapi.json` is behind the same access rules as the API: a read token when tokens are
configured, loopback clients only when none is; /docs and /redoc are not served at all."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from polygon.web import create_app
from polygon_core.adapters.settings import load_settings

OUTSIDE = ("203.0.113.7", 40000)


def _client(tmp_path: Path, tokens: str | None, host: tuple[str, int]) -> TestClient:
    return TestClient(create_app(load_settings(home=tmp_path / ".polygon", api_tokens=tokens)), client=host)


def test_the_schema_needs_a_read_token_when_tokens_are_configured(tmp_path: Path) -> None:
    client = _client(tmp_path, "viewer:r3ad:read,ops:adm1n:admin", OUTSIDE)
    refused = client.get("/openapi.json")
    assert (refused.status_code, refused.json()) == (
        401, {"detail": "an API token is required (Authorization: Bearer <token>)"})
    assert client.get("/openapi.json", headers={"Authorization": "Bearer wrong"}).status_code == 401
    for token in ("r3ad", "adm1n"):
        schema = client.get("/openapi.json", headers={"Authorization": f"Bearer {token}"})
        assert schema.status_code == 200 and schema.json()["info"]["title"] == "Polygon"
    assert "/openapi.json" not in schema.json()["paths"]
    assert {"/api/runs", "/webhooks/sweep"} <= set(schema.json()["paths"])


def test_the_schema_is_loopback_only_without_tokens(tmp_path: Path) -> None:
    assert _client(tmp_path, None, OUTSIDE).get("/openapi.json").status_code == 403
    assert _client(tmp_path, None, ("127.0.0.1", 5000)).get("/openapi.json").status_code == 200


def test_no_interactive_docs_are_served(tmp_path: Path) -> None:
    client = _client(tmp_path, None, ("127.0.0.1", 5000))
    assert client.get("/docs").status_code == 404 and client.get("/redoc").status_code == 404
