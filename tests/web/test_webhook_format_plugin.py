"""A call-webhook platform kept outside Polygon: the documented module (docs/import-formats.md,
"Adding a format"), installed as a `polygon.import_formats` entry point, is one registration that
the sources file, `polygon sources validate` and the web app's signature check all read.

Before, the signature check lived in a dict of the web app: such a platform passed `polygon sources
validate` (which demands its secret) and every delivery was then refused with 404."""

from __future__ import annotations

import hashlib
import hmac
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from polygon import usecases
from polygon.cli import app
from polygon.web import _webhooks, create_app
from polygon_core.adapters.settings import load_settings
from polygon_core.adapters.storage import CallObjectLedger
from polygon_core.imports import get_format, import_format
from polygon_core.imports._format import REGISTRY
from tests.imports.test_format_modules import docs_example

ACME_MODULE = docs_example("import-formats.md", "# acme_calls/__init__.py")
SECRET = "acme-webhook-secret-for-tests"
CALL = {"ref": 7, "steps": [{"who": "customer", "said": "balance?"}, {"who": "bot", "said": "12 euros"}]}


@pytest.fixture
def acme_installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """`acme_calls` on sys.path with its distribution's entry point, the format registry as before
    its first lookup (the built-ins' modules stay imported)."""
    monkeypatch.setattr(REGISTRY, "entries", dict(REGISTRY.loaded()))  # loaded before acme is installed
    monkeypatch.setattr(REGISTRY, "_builtins_loaded", False)
    site = tmp_path / "site"
    (site / "acme_calls").mkdir(parents=True)
    (site / "acme_calls" / "__init__.py").write_text(ACME_MODULE, encoding="utf-8")
    info = site / "acme_calls-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-calls\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[polygon.import_formats]\nacme = acme_calls\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(site))
    yield
    sys.modules.pop("acme_calls", None)


def _sources(tmp_path: Path, secret_env: str | None = "TEST_ACME_SECRET") -> Path:
    path = tmp_path / "sources.yaml"
    secret = f"    secret_env: {secret_env}\n" if secret_env else ""
    path.write_text(f"sources:\n  acme-line:\n    platform: acme\n{secret}", encoding="utf-8")
    return path


def _signed(body: bytes, secret: str = SECRET) -> dict[str, str]:
    stamp = str(int(time.time()))
    digest = hmac.new(secret.encode(), stamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    return {"Content-Type": "application/json", "X-Acme-Signature": f"t={stamp},v1={digest}"}


def test_sources_validate_demands_the_secret_of_a_plugin_webhook_platform(acme_installed: None,
                                                                           tmp_path: Path) -> None:
    good = CliRunner().invoke(app, ["sources", "validate", str(_sources(tmp_path))])
    assert good.exit_code == 0, good.output
    assert good.output.splitlines()[-1] == f"{tmp_path / 'sources.yaml'}: valid"
    assert "platform: acme · webhook secret: TEST_ACME_SECRET" in " ".join(good.output.split())
    bad = CliRunner().invoke(app, ["sources", "validate", str(_sources(tmp_path, None))])
    assert bad.exit_code == 2
    assert f"{tmp_path / 'sources.yaml'}:3: sources.acme-line.platform: acme webhooks are signed: set " \
           "secret_env" in bad.output


def test_a_signed_delivery_of_a_plugin_platform_is_held_and_announced(
        acme_installed: None, polygon_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POLYGON_SOURCES", str(_sources(tmp_path)))
    monkeypatch.setenv("TEST_ACME_SECRET", SECRET)
    emitted: list[dict[str, Any]] = []  # Prefect's emit_event, recorded instead of sent
    monkeypatch.setattr(_webhooks, "emit_event", lambda **kwargs: emitted.append(kwargs) or SimpleNamespace(
        id=kwargs["id"]))
    client = TestClient(create_app(load_settings()))
    body = json.dumps({"event": "call.done", "call": CALL}).encode()

    forged = client.post("/webhooks/calls/acme-line", content=body, headers=_signed(body, "guessed"))
    assert (forged.status_code, forged.json()) == (401, {"detail": "missing, stale or invalid acme signature"})
    ignored = json.dumps({"event": "call.started"}).encode()
    assert client.post("/webhooks/calls/acme-line", content=ignored, headers=_signed(ignored)).json() == {
        "ignored": "this event carries no finished call"}

    accepted = client.post("/webhooks/calls/acme-line", content=body, headers=_signed(body))
    assert accepted.status_code == 202, accepted.text
    assert accepted.json()["external_id"] == "7"
    assert [e["payload"]["external_ids"] for e in emitted] == [["7"]]
    again = client.post("/webhooks/calls/acme-line", content=body, headers=_signed(body))
    assert (again.status_code, again.json()) == (
        200, {"duplicate": True, "external_id": "7", "reason": "already received"})
    stores = usecases.open_stores()
    try:
        assert CallObjectLedger(stores.repo.engine).count("acme-line") == 1
    finally:
        stores.repo.close()
    assert get_format("acme").verify is not None


def test_a_webhook_reader_without_its_signature_check_is_refused_when_it_registers() -> None:
    def parse(*args: Any, **kwargs: Any) -> Iterator[Any]:
        return iter(())

    with pytest.raises(ValueError) as refused:
        import_format("half", "no signature check", webhook=lambda body: None)(parse)
    assert str(refused.value) == ("import format 'half': webhook= needs verify= too (a received webhook is "
                                  "read by `webhook` and its signature checked by `verify`)")
    assert "half" not in REGISTRY.entries
