"""`polygon server start|stop|status`: one long-lived local Prefect server instead of one per command."""

from __future__ import annotations

import typer
from rich.console import Console
from rich.markup import escape

_out = Console(markup=False)  # printed as written, as in _base
_err = Console(stderr=True, markup=False)


def _fail(message: str) -> None:
    _err.print(f"[red]error:[/] {escape(message)}", markup=True, highlight=False, soft_wrap=True)
    raise typer.Exit(1)


def start() -> None:
    """Start a Prefect server at 127.0.0.1:4200 that outlives this command (database, pid and log
    under POLYGON_HOME/prefect-server); later commands use it instead of a temporary one."""
    from . import _server
    from ._prefect import PrefectUnavailable, _deadline

    try:
        found = _server.state()
        if found.answering:
            whose = f"started by `polygon server start`, pid {found.pid}" if found.ours else "not started by Polygon"
            _out.print(f"a Prefect server already answers at {found.api_url} ({whose})", highlight=False)
            return
        now = _server.start(_deadline())
    except PrefectUnavailable as exc:
        _fail(str(exc))
        return
    _out.print(f"Prefect server running at {now.api_url} (pid {now.pid}; log {now.folder / 'server.log'}); "
               "every polygon command now uses it; `polygon server stop` stops it", highlight=False, soft_wrap=True)


def stop() -> None:
    """Stop the Prefect server `polygon server start` started (nothing else is touched)."""
    from . import _server

    pid = _server.stop()
    if pid is None:
        found = _server.state()
        note = (f"; a server not started by Polygon answers at {found.api_url}, left running"
                if found.answering else "")
        _out.print(f"no Prefect server started by `polygon server start` is running{note}", highlight=False)
        return
    _out.print(f"stopped the Prefect server (pid {pid})", highlight=False)


def _configured_api() -> tuple[str, str] | None:
    """(url, where it is set) of a configured Prefect API, which every command uses as it is."""
    import os

    from prefect.settings import get_current_settings

    url = get_current_settings().api.url
    if not url:
        return None
    return url, "PREFECT_API_URL" if os.environ.get("PREFECT_API_URL") == url else "the Prefect settings"


def _configured_status(url: str, where: str) -> None:
    from ._prefect import _healthy

    # Commands use a configured API as it is (`choose_api`): no local or temporary server is involved.
    if _healthy(url, timeout=2.0):
        _out.print(f"commands use the Prefect API at {url} (set by {where}): it answers", highlight=False,
                   soft_wrap=True)
        return
    _out.print(f"commands use the Prefect API at {url} (set by {where}): it does not answer, so commands "
               "that run flows fail until it does", highlight=False, soft_wrap=True)
    raise typer.Exit(1)


def status() -> None:
    """Say which Prefect API commands use: a configured one (PREFECT_API_URL, a Prefect profile) and
    whether it answers, else whether a server answers at 127.0.0.1:4200 and whether Polygon started
    it; exit 0 when the API commands use answers, 1 when it does not or they would start a temporary one."""
    from . import _server

    configured = _configured_api()
    if configured is not None:
        _configured_status(*configured)
        return
    found = _server.state()
    if found.answering:
        whose = f"started by `polygon server start`, pid {found.pid}" if found.ours else "not started by Polygon"
        _out.print(f"running at {found.api_url} ({whose})", highlight=False)
        return
    if found.ours:
        _out.print(f"starting (pid {found.pid}), not answering yet at {found.api_url}", highlight=False)
        raise typer.Exit(1)
    _out.print("not running: commands start a temporary Prefect server each (`polygon server start` keeps one)",
               highlight=False)
    raise typer.Exit(1)
