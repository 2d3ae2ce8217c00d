"""The FastAPI application: one app composing every router Polygon serves.

`polygon serve` runs it under uvicorn. The webhook receiver lives here; the web app (issue 12) adds
its routers in `create_app` below, on the same app.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from fastapi import Depends, FastAPI, Request
from fastapi.responses import JSONResponse

from polygon_core.adapters.settings import PolygonSettings, load_settings

from ._call_webhooks import call_webhook_router
from ._logging import install_log_redaction
from ._webhook_deliveries import DatabaseDeliveryStore, DeliveryStore
from ._webhook_models import WebhookConfig
from ._webhooks import webhook_router

if TYPE_CHECKING:
    import uvicorn

__all__ = ["access_token_configured", "build_server", "create_app"]

log = logging.getLogger("polygon.web")


def access_token_configured(settings: PolygonSettings) -> bool:
    """Whether the web app's access token is set (hook for the web app's auth, issue 12).

    `polygon serve` binds to loopback only while this is False: the webhooks are signed, but the
    other routes are not protected until a token exists.
    """
    token: Any = getattr(settings, "api_tokens", None)
    secret = token.get_secret_value() if hasattr(token, "get_secret_value") else token
    return bool(secret)


def create_app(settings: PolygonSettings | None = None, *,
               deliveries: DeliveryStore | None = None) -> FastAPI:
    """Build the app from settings (read from the environment when not given).

    `deliveries` replaces the store of seen webhook delivery ids, by default Polygon's database
    (table ``polygon_webhook_delivery``), so replays are refused across restarts and replicas.
    """
    settings = settings or load_settings()
    # openapi_url=None: the schema is served by the route below, behind the same token as the API.
    app = FastAPI(title="Polygon", summary="Webhooks and results of the Polygon test bench",
                  docs_url=None, redoc_url=None, openapi_url=None)
    app.state.settings = settings
    hooks = WebhookConfig.from_settings(settings)
    if deliveries is None:
        deliveries = DatabaseDeliveryStore.from_settings(settings, hooks.delivery_ttl_seconds)
    app.include_router(webhook_router(hooks, deliveries))
    app.include_router(call_webhook_router(settings, hooks))  # Vapi, Retell, S3 notifications

    @app.get("/healthz", tags=["health"])
    def healthz() -> dict[str, str]:
        """Liveness probe for load balancers and compose health checks."""
        return {"status": "ok"}

    # The web app: pages, static files and the JSON API, behind their own token/loopback rules.
    from ._pages import install_web

    install_web(app, settings)
    _install_schema(app)
    _install_unavailable(app)
    return app


def _install_unavailable(app: FastAPI) -> None:
    """An artifact store or database that cannot be reached answers 503 with the reason, as the
    webhooks' unreachable delivery ledger does, not a 500 with a traceback. What is one is the
    CLI's rule (`polygon.cli.infrastructure_error`); any other error of these types stays a 500."""
    from botocore.exceptions import BotoCoreError, ClientError
    from sqlalchemy.exc import OperationalError

    from polygon.cli import infrastructure_error
    from polygon_core.adapters.artifacts import ArtifactStoreError
    from polygon_core.adapters.storage import DatabaseNotReadyError

    async def unavailable(request: Request, exc: Exception) -> JSONResponse:
        line = infrastructure_error(exc)
        if line is None:
            raise exc
        log.error("%s %s: 503: %s", request.method, request.url.path, line)
        # The answer says which store, not its address or keys (those stay in the server log).
        store = "the database" if isinstance(exc, (OperationalError, DatabaseNotReadyError)) else "the artifact store"
        return JSONResponse({"detail": f"cannot use {store}; see the server log"}, status_code=503)

    for kind in (BotoCoreError, ClientError, ArtifactStoreError, OperationalError, DatabaseNotReadyError):
        app.add_exception_handler(kind, unavailable)


def _install_schema(app: FastAPI) -> None:
    """`GET /openapi.json`, needing a read token (or loopback without tokens) like every API route."""
    from ._api import read_access

    @app.get("/openapi.json", include_in_schema=False, dependencies=[Depends(read_access)])
    def openapi() -> JSONResponse:
        return JSONResponse(app.openapi())


def build_server(settings: PolygonSettings, host: str, port: int) -> uvicorn.Server:
    """The uvicorn server `polygon serve` runs: the app, with secrets redacted from every log, and
    deadlines on reading a request (`POLYGON_SERVE_HEADER_TIMEOUT`, `POLYGON_SERVE_BODY_TIMEOUT`).

    uvicorn configures its loggers when its Config is made, so the redaction goes in after that.
    """
    import uvicorn

    from ._deadlines import deadline_protocol

    # A request must arrive in time (uvicorn itself only times out idle kept-alive connections).
    protocol = deadline_protocol(settings.serve_header_timeout, settings.serve_body_timeout)
    config = uvicorn.Config(create_app(settings), host=host, port=port, log_level="info", http=protocol,
                            timeout_keep_alive=5)
    install_log_redaction(settings)
    return uvicorn.Server(config)
