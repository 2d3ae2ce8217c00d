"""`polygon serve`: the HTTP service (webhooks, and the web app) under uvicorn."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from polygon_core.net import is_loopback_host

from ._base import err, friendly

if TYPE_CHECKING:
    from polygon_core.adapters.settings import PolygonSettings

LOOPBACK = "127.0.0.1"



def webhook_paths(settings: PolygonSettings) -> list[str]:
    """The webhook paths served: the prompt-commit and sweep ones, then each source's of the
    sources file (POLYGON_SOURCES): its platform's call-ended webhook, its S3 notifications when
    it has an S3 prefix. A sources file that does not load is said on stderr (its webhooks then
    answer 404)."""
    from polygon_core.files import FileErrors
    from polygon_core.imports import get_format, load_sources

    paths = ["/webhooks/prompt-commit", "/webhooks/sweep"]
    if settings.sources is None:
        return paths
    try:
        sources = load_sources(settings.sources).sources
    except (FileErrors, ValueError, OSError) as exc:
        err.print(f"POLYGON_SOURCES {settings.sources}: {str(exc).splitlines()[0]} (no call webhooks)",
                  highlight=False, soft_wrap=True)
        return paths
    for name, source in sources.items():
        if get_format(source.platform).webhook is not None:
            paths.append(f"/webhooks/calls/{name}")
        if source.s3_prefix:
            paths.append(f"/webhooks/calls/{name}/s3")
    return paths


@friendly
def serve(host: Annotated[str, typer.Option(help="interface to bind")] = LOOPBACK,
          port: Annotated[int, typer.Option(help="TCP port", min=0, max=65535)] = 8000) -> None:
    """Serve the signed webhooks (POST /webhooks/prompt-commit, /webhooks/sweep, each source's
    /webhooks/calls/…) and the web app."""
    from polygon.web import access_token_configured, build_server
    from polygon_core.adapters.settings import load_settings

    settings = load_settings()
    if not access_token_configured(settings) and not is_loopback_host(host):
        # Unauthenticated routes must not face a network: fall back to loopback, loudly.
        err.print(f"no access token is configured: binding to {LOOPBACK} only, not {host}",
                  highlight=False)
        host = LOOPBACK
    if settings.webhook_secret is None:
        err.print("POLYGON_WEBHOOK_SECRET is not set: every webhook will be refused (401)",
                  highlight=False)
    err.print(f"serving on http://{host}:{port}  (webhooks: {', '.join(webhook_paths(settings))})",
              highlight=False, soft_wrap=True)
    # Access logs carry paths and status codes only; headers (signatures) are never logged, and
    # query-string tokens (`?token=`) and configured secrets are redacted (polygon.web._logging).
    build_server(settings, host, port).run()
