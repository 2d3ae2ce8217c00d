"""`polygon serve`: the HTTP service (webhooks, and the web app) under uvicorn."""

from __future__ import annotations

import ipaddress
from typing import Annotated

import typer

from ._base import err, friendly

LOOPBACK = "127.0.0.1"


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@friendly
def serve(host: Annotated[str, typer.Option(help="interface to bind")] = LOOPBACK,
          port: Annotated[int, typer.Option(help="TCP port", min=0, max=65535)] = 8000) -> None:
    """Serve the signed webhooks (POST /webhooks/prompt-commit, /webhooks/sweep) and the web app."""
    from polygon.web import access_token_configured, build_server
    from polygon_core.adapters.settings import load_settings

    settings = load_settings()
    if not access_token_configured(settings) and not _is_loopback(host):
        # Unauthenticated routes must not face a network: fall back to loopback, loudly.
        err.print(f"no access token is configured: binding to {LOOPBACK} only, not {host}",
                  highlight=False)
        host = LOOPBACK
    if settings.webhook_secret is None:
        err.print("POLYGON_WEBHOOK_SECRET is not set: every webhook will be refused (401)",
                  highlight=False)
    err.print(f"serving on http://{host}:{port}  (webhooks: /webhooks/prompt-commit, /webhooks/sweep)",
              highlight=False)
    # Access logs carry paths and status codes only; headers (signatures) are never logged, and
    # query-string tokens (`?token=`) and configured secrets are redacted (polygon.web._logging).
    build_server(settings, host, port).run()
