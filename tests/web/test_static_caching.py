"""Pages that load once (issue #32 item 10): the bundled JS and CSS (898,700 bytes) were sent again on
every click with `cache-control: no-cache`, no ETag and no compression. Pages now link versioned
names cached for a year; every answer has an ETag (If-None-Match: 304) and is gzipped on request."""

from __future__ import annotations

import gzip
import hashlib
import re
from importlib import resources
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from polygon.web import create_app
from polygon_core.adapters.settings import load_settings

from .conftest import LOOPBACK

IMMUTABLE = "public, max-age=31536000, immutable"
LINKED = ["vendor/vega.min.js", "vendor/vega-lite.min.js", "vendor/vega-embed.min.js", "charts.js", "call.js",
          "app.js", "app.css"]


def _bytes(name: str) -> bytes:
    return resources.files("polygon.web").joinpath("static", *name.split("/")).read_bytes()


def _version(name: str) -> str:
    return hashlib.sha256(_bytes(name)).hexdigest()[:16]


@pytest.fixture
def client(tmp_path: Path) -> TestClient:
    return TestClient(create_app(load_settings(home=tmp_path / ".polygon")), client=LOOPBACK)


def test_pages_link_versioned_names_cached_for_a_year(client: TestClient) -> None:
    for page in ("/runs", "/compare", "/trends", "/sweeps", "/personas", "/analyses"):
        linked = re.findall(r'(?:src|href)="(/static/[^"]+)"', client.get(page).text)
        assert sorted(linked) == sorted(f"/static/{name}?v={_version(name)}" for name in LINKED)
    for name in LINKED:
        response = client.get(f"/static/{name}?v={_version(name)}", headers={"Accept-Encoding": "identity"})
        assert response.status_code == 200
        assert response.headers["cache-control"] == IMMUTABLE
        assert response.headers["etag"] == f'W/"{_version(name)}"'
        assert response.content == _bytes(name)


def test_an_unversioned_or_stale_name_revalidates(client: TestClient) -> None:
    for url in ("/static/app.js", "/static/app.js?v=0000000000000000"):
        response = client.get(url)
        assert (response.status_code, response.headers["cache-control"], response.headers["etag"]) == (
            200, "no-cache", f'W/"{_version("app.js")}"')


def test_a_second_request_with_the_etag_is_304_without_a_body(client: TestClient) -> None:
    first = client.get("/static/vendor/vega.min.js")
    for tag in (first.headers["etag"], first.headers["etag"].removeprefix("W/"), f'"x", {first.headers["etag"]}'):
        again = client.get("/static/vendor/vega.min.js", headers={"If-None-Match": tag})
        assert (again.status_code, again.content, again.headers["etag"]) == (304, b"", first.headers["etag"])
    other = client.get("/static/vendor/vega.min.js", headers={"If-None-Match": '"not-this-one"'})
    assert (other.status_code, other.content) == (200, _bytes("vendor/vega.min.js"))


@pytest.mark.parametrize("accept", ["gzip", "gzip, deflate, br", "br;q=1.0, gzip;q=0.8", "*"])
def test_gzip_when_accepted_decompresses_to_the_exact_bytes(client: TestClient, accept: str) -> None:
    for name in LINKED:
        with client.stream("GET", f"/static/{name}", headers={"Accept-Encoding": accept}) as response:
            raw = b"".join(response.iter_raw())
        assert (response.headers["content-encoding"], response.headers["vary"]) == ("gzip", "Accept-Encoding")
        assert gzip.decompress(raw) == _bytes(name)
        assert len(raw) < len(_bytes(name)) // 2


@pytest.mark.parametrize("accept", ["identity", "gzip;q=0", "deflate"])
def test_no_gzip_unless_accepted(client: TestClient, accept: str) -> None:
    with client.stream("GET", "/static/app.css", headers={"Accept-Encoding": accept}) as response:
        raw = b"".join(response.iter_raw())
    assert "content-encoding" not in response.headers
    assert raw == _bytes("app.css")

