"""No secret reaches a log: a real `polygon serve` server (uvicorn on loopback) is sent requests
carrying an API token in the URL and a signed webhook, and every log record is read back."""

from __future__ import annotations

import json
import logging
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from polygon.web import build_server, sign
from polygon.web._logging import RedactingFilter, redact
from polygon_core.adapters.settings import load_settings
from tests.fakes.served import serving

TOKEN = "tok-Zq81-read-only-value"
ADMIN = "adm-77x-admin-value"
SECRET = "whsec-4b1d-never-logged"


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, _Records]]:
    """`polygon serve`'s server on a free loopback port, its access and app logs captured."""
    settings = load_settings(home=tmp_path / ".polygon", api_tokens=f"reader:{TOKEN}:read,ops:{ADMIN}:admin",
                             webhook_secret=SECRET)
    port = _free_port()
    server = build_server(settings, "127.0.0.1", port)
    records = _Records()
    loggers = [logging.getLogger(n) for n in ("uvicorn.access", "uvicorn.error", "polygon.web.webhooks")]
    for logger in loggers:
        logger.addHandler(records)
    logging.getLogger("polygon.web.webhooks").setLevel(logging.INFO)
    try:
        with serving(server):
            yield f"http://127.0.0.1:{port}", records
    finally:
        for logger in loggers:
            logger.removeHandler(records)


def test_a_token_in_the_url_never_reaches_the_access_log(served: tuple[str, _Records]) -> None:
    base, records = served
    with httpx.Client(base_url=base, follow_redirects=False) as http:
        login = http.get("/runs", params={"token": TOKEN, "limit": "5"})
        http.cookies.clear()  # the login set the token cookie; the API call below goes without it
        wrong = http.get("/api/runs", params={"access_token": ADMIN})
        raw = json.dumps({"spec_path": "../../etc/passwd"}).encode()
        hook = http.post(f"/webhooks/sweep?sig={SECRET}", content=raw, headers={
            "Content-Type": "application/json", "X-Hub-Signature-256": sign(SECRET, raw),
            "X-Polygon-Delivery": "log-1"})
    assert (login.status_code, login.headers["location"]) == (303, "/runs?limit=5")
    assert wrong.status_code == 401 and hook.status_code == 422
    deadline = time.monotonic() + 5  # uvicorn writes the access line after the response is sent
    while sum("HTTP/1.1" in line for line in records.lines) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    access = [line for line in records.lines if "HTTP/1.1" in line]
    assert [line.split(" - ", 1)[1] for line in access] == [
        '"GET /runs?token=[REDACTED]&limit=5 HTTP/1.1" 303',
        '"GET /api/runs?access_token=[REDACTED] HTTP/1.1" 401',
        '"POST /webhooks/sweep?sig=[REDACTED] HTTP/1.1" 422']
    text = "\n".join(records.lines)
    assert "webhook sweep refused (422)" in text
    for secret in (TOKEN, ADMIN, SECRET, sign(SECRET, raw)[7:]):
        assert secret not in text


def test_redact_hides_query_credentials_and_configured_secrets() -> None:
    assert redact("/a?x=1&TOKEN=abc&b=2#f") == "/a?x=1&TOKEN=[REDACTED]&b=2#f"
    assert redact("/a?api_key=k1;password=p2") == "/a?api_key=[REDACTED];password=[REDACTED]"
    assert redact("/api/runs?q=tokenless") == "/api/runs?q=tokenless"
    assert redact("bearer s3cr3t-value seen", ["s3cr3t-value"]) == "bearer [REDACTED] seen"
    record = logging.LogRecord("uvicorn.access", logging.INFO, __file__, 1, '%s - "%s %s HTTP/%s" %d',
                               ("127.0.0.1:5", "GET", "/runs?token=abc", "1.1", 303), None)
    assert RedactingFilter(["abc"]).filter(record) is True
    assert record.args == ("127.0.0.1:5", "GET", "/runs?token=[REDACTED]", "1.1", 303)
    # Secrets of at least MIN_SECRET_LENGTH characters are hidden anywhere; a shorter one is not
    # searched for (it would blank every occurrence of a common letter).
    assert RedactingFilter(["s", "k3y-long"]).secrets == ["k3y-long"]
