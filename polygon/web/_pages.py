"""The pages of the web app: small HTML shells that the bundled script fills from the JSON API.

Nothing is loaded from outside the package (no CDN): `static/app.js` and `static/app.css` ship with
Polygon and are served from `/static/`, linked by versioned names (`?v=<hash>`) cached for a year,
with ETags and gzip. A page opened with `?token=…` stores the token in an
HttpOnly cookie and redirects to the same page without it, so the script's API calls carry it.
"""

from __future__ import annotations

import gzip
import hashlib
import html
import json
import logging
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, FastAPI, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from polygon.usecases import find_run
from polygon_core.adapters.settings import PolygonSettings

from ._api import WebContext, context
from ._api import router as api_router
from ._api_calls import router as calls_router
from ._api_charts import router as charts_router
from ._api_compare import router as compare_router
from ._api_stored import router as stored_router
from ._auth import COOKIE, access_notice, authorize, match_token

__all__ = ["IMMUTABLE", "PAGES", "install_web", "router", "static_url"]

log = logging.getLogger("polygon.web")
router = APIRouter(include_in_schema=False)

_JS, _CSS = "text/javascript; charset=utf-8", "text/css; charset=utf-8"
#: What `/static/` serves: the app's script and stylesheet, and the vendored charting library
#: (Vega, Vega-Lite, vega-embed; see static/vendor/README.md) and the call player (call.js). Nothing else
#: in the package is served.
STATIC_TYPES = {"app.js": _JS, "charts.js": _JS, "call.js": _JS, "app.css": _CSS, "vendor/vega.min.js": _JS,
                "vendor/vega-lite.min.js": _JS, "vendor/vega-embed.min.js": _JS}
#: The scripts every page loads, in order (the charting library before the app that uses it).
SCRIPTS = ("vendor/vega.min.js", "vendor/vega-lite.min.js", "vendor/vega-embed.min.js", "charts.js", "call.js",
           "app.js")
#: page name → navigation title (the order of the menu)
PAGES = {"runs": "Runs", "compare": "Compare", "trends": "Trends", "analyses": "Prompts",
         "sweeps": "Sweeps", "personas": "Personas"}


def install_web(app: FastAPI, settings: PolygonSettings) -> None:
    """Add the web app (pages, static files, JSON API) to `app`, and say how it is protected."""
    app.state.polygon_web = WebContext.from_settings(settings)
    app.include_router(api_router)
    app.include_router(calls_router)
    app.include_router(stored_router)
    app.include_router(compare_router)
    app.include_router(charts_router)
    app.include_router(router)
    log.warning(access_notice(settings))


def _shell(page: str, title: str, args: dict[str, Any] | None = None, status: int = 200) -> HTMLResponse:
    nav = "".join(f'<a href="/{name}"{" class=current" if name == page else ""}>{html.escape(label)}</a>'
                  for name, label in PAGES.items())
    scripts = "\n".join(f'<script src="{static_url(name)}"></script>' for name in SCRIPTS)
    body = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Polygon · {html.escape(title)}</title><link rel="stylesheet" href="{static_url('app.css')}"></head>
<body data-page="{page}" data-args="{html.escape(json.dumps(args or {}))}">
<header><a class="brand" href="/runs">Polygon</a><nav>{nav}</nav></header>
<main id="main"><p class="muted">Loading…</p></main>
{scripts}
</body></html>"""
    return HTMLResponse(body, status_code=status)


def _login(request: Request, message: str, status: int) -> HTMLResponse:
    body = f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Polygon · access</title>
<link rel="stylesheet" href="{static_url('app.css')}"></head><body><main>
<h1>Polygon</h1><p class="refused">{html.escape(message)}</p>
<form method="get" action="{html.escape(request.url.path)}"><label>API token
<input type="password" name="token" autocomplete="off"></label> <button>Open</button></form>
</main></body></html>"""
    return HTMLResponse(body, status_code=status)


def _page_access(request: Request) -> Response | None:
    """None when the page may be shown; otherwise the response to send instead."""
    ctx: WebContext = context(request)
    given = request.query_params.get("token")
    if given is not None and ctx.tokens and match_token(ctx.tokens, given) is not None:
        rest = [(k, v) for k, v in request.query_params.multi_items() if k != "token"]
        target = request.url.path + (f"?{urlencode(rest)}" if rest else "")
        response = RedirectResponse(target, status_code=303)
        response.set_cookie(COOKIE, given, httponly=True, samesite="strict", path="/")
        return response
    try:
        authorize(request, ctx.tokens, "read")
    except HTTPException as exc:
        if exc.status_code == 401:
            return _login(request, "This Polygon needs an API token.", 401)
        return _login(request, str(exc.detail), exc.status_code)
    return None


def _render(request: Request, page: str, title: str, args: dict[str, Any] | None = None) -> Response:
    return _page_access(request) or _shell(page, title, args)


@router.get("/static/{name:path}")
def static(name: str, request: Request) -> Response:
    """The bundled scripts, stylesheet and charting library (nothing else is served from the package).

    Pages link each file as `/static/<name>?v=<its hash>` (`static_url`): that name never changes
    content, so it is cached for a year; any other request revalidates (`no-cache`). Every answer
    carries the ETag (a matching If-None-Match is a 304, no body) and is gzipped when the browser
    accepts it: each click downloaded 898,700 bytes of JS and CSS again before."""
    if name not in STATIC_TYPES:
        raise HTTPException(404, "no such file")
    item = _static_file(name)
    versioned = request.query_params.get("v") == item.version
    headers = {"ETag": item.etag, "Vary": "Accept-Encoding",
               "Cache-Control": IMMUTABLE if versioned else "no-cache"}
    if _matches(request.headers.get("if-none-match"), item.etag):
        return Response(status_code=304, headers=headers)
    if _accepts_gzip(request.headers.get("accept-encoding")):
        return Response(item.gzipped, media_type=STATIC_TYPES[name], headers={**headers, "Content-Encoding": "gzip"})
    return Response(item.body, media_type=STATIC_TYPES[name], headers=headers)


#: How long a versioned static name is kept: a year, never revalidated (its content cannot change).
IMMUTABLE = "public, max-age=31536000, immutable"


@dataclass(frozen=True)
class StaticFile:
    """One bundled file, its version (a hash of its bytes), validator and gzipped form."""

    body: bytes
    version: str
    gzipped: bytes

    @property
    def etag(self) -> str:
        # Weak: the plain and gzipped bytes are one representation as far as revalidation goes.
        return f'W/"{self.version}"'


@lru_cache(maxsize=len(STATIC_TYPES))
def _static_file(name: str) -> StaticFile:
    # The files are part of the installed package: read and compress each once (Vega is half a
    # megabyte). mtime=0 keeps the gzipped bytes the same on every start.
    body = resources.files("polygon.web").joinpath("static", *name.split("/")).read_bytes()
    return StaticFile(body, hashlib.sha256(body).hexdigest()[:16], gzip.compress(body, compresslevel=9, mtime=0))


def static_url(name: str) -> str:
    """Where a page links the bundled file `name`: its path with the version of its content."""
    return f"/static/{name}?v={_static_file(name).version}"


def _matches(if_none_match: str | None, etag: str) -> bool:
    """Whether an If-None-Match header names `etag` (weak comparison, as RFC 9110 has for it)."""
    if not if_none_match:
        return False
    tags = [t.strip().removeprefix("W/") for t in if_none_match.split(",")]
    return "*" in tags or etag.removeprefix("W/") in tags


def _accepts_gzip(accept_encoding: str | None) -> bool:
    """Whether Accept-Encoding allows gzip (named, or `*`, with a q-value above 0)."""
    for part in (accept_encoding or "").lower().split(","):
        coding, *params = (p.strip() for p in part.split(";"))
        if coding in ("gzip", "*"):
            q = next((p.removeprefix("q=") for p in params if p.startswith("q=")), "1")
            try:
                return float(q) > 0
            except ValueError:
                return False
    return False


@router.get("/")
def home(request: Request) -> Response:
    """The runs list."""
    return _page_access(request) or RedirectResponse("/runs", status_code=303)


@router.get("/runs")
def runs_page(request: Request) -> Response:
    """Runs: filter, sort, choose runs to compare."""
    return _render(request, "runs", "Runs")


@router.get("/runs/{run_id}")
def run_page(request: Request, run_id: str) -> Response:
    """One run: scorecard, probes and its conversations, paginated; 404 (the same page, which
    shows the API's reason) when no run has this id or prefix."""
    refused = _page_access(request)
    if refused is not None:
        return refused
    try:
        missing = find_run(context(request).stores(), run_id) is None
    except ValueError:  # an ambiguous prefix: the page shows the candidates the API names
        missing = False
    return _shell("run", f"Run {run_id}", {"run_id": run_id}, status=404 if missing else 200)


@router.get("/runs/{run_id}/conversations/{conversation_id}")
def conversation_page(request: Request, run_id: str, conversation_id: str) -> Response:
    """The conversation viewer."""
    return _render(request, "conversation", conversation_id,
                   {"run_id": run_id, "conversation_id": conversation_id})


@router.get("/compare")
def compare_page(request: Request) -> Response:
    """The comparison screen (`?runs=A&runs=B`)."""
    runs = [i for v in request.query_params.getlist("runs") for i in v.split(",") if i]
    return _render(request, "compare", "Compare", {"runs": runs,
                                                  "baseline": request.query_params.get("baseline")})


@router.get("/trends")
def trends_page(request: Request) -> Response:
    """A metric and probe conformance over the runs of one agent and suite (`?agent=…&suite=…`)."""
    return _render(request, "trends", "Trends", {"agent": request.query_params.get("agent"),
                                                 "suite": request.query_params.get("suite")})


@router.get("/probes")
def probes_page(request: Request) -> Response:
    """The trends page under its earlier name (probe conformance across runs)."""
    return trends_page(request)


@router.get("/analyses")
def analyses_page(request: Request) -> Response:
    """Stored prompt analyses."""
    return _render(request, "analyses", "Prompts")


@router.get("/analyses/{prompt_hash}")
def analysis_page(request: Request, prompt_hash: str) -> Response:
    """One prompt version with its highlights per axis and the change since the previous version."""
    return _render(request, "analysis", f"Prompt {prompt_hash}", {"prompt_hash": prompt_hash})


@router.get("/sweeps")
def sweeps_page(request: Request) -> Response:
    """Sweeps and their leaderboards."""
    return _render(request, "sweeps", "Sweeps")


@router.get("/sweeps/{name}")
def sweep_page(request: Request, name: str) -> Response:
    """One sweep's leaderboard with refused points."""
    return _render(request, "sweep", f"Sweep {name}", {"name": name})


@router.get("/personas")
def personas_page(request: Request) -> Response:
    """Personas by agent and prompt version."""
    return _render(request, "personas", "Personas")
