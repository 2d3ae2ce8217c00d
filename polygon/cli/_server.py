"""A long-lived local Prefect server that Polygon starts detached and stops by its pid file.

`polygon server start` runs `prefect server start` on 127.0.0.1:4200 in its own session (it
outlives the terminal), with its database, pid file and log under `{POLYGON_HOME}/prefect-server/`.
Every later command finds it at the default address (`_prefect.choose_api`) and pays nothing for a
temporary server. `stop` signals only the process group recorded in the pid file, and only when
that process is still a Prefect server (a pid reused by another program is left alone).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from ._prefect import DEFAULT_LOCAL_API, SERVER_TUNING, PrefectUnavailable, _healthy

HOST, PORT = "127.0.0.1", 4200
_STOP_SECONDS = 20.0



@dataclass(frozen=True)
class ServerState:
    """What `polygon server status` reports."""

    api_url: str
    answering: bool
    pid: int | None  # from the pid file, when that process is still a Prefect server
    folder: Path

    @property
    def ours(self) -> bool:
        """Started by `polygon server start` (and still running)."""
        return self.pid is not None


def server_folder() -> Path:
    """`{POLYGON_HOME}/prefect-server`: the server's database, pid file and log."""
    from polygon_core.adapters.settings import load_settings

    return load_settings().home.expanduser().absolute() / "prefect-server"


def server_env(folder: Path) -> dict[str, str]:
    """The environment `start` gives the server: this one's, with `SERVER_TUNING` under it (a value set
    here wins), its database in `folder`, analytics off and no `PREFECT_API_URL`."""
    env = {**SERVER_TUNING, **os.environ, "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "DO_NOT_TRACK": "1",
           "PREFECT_SERVER_DATABASE_CONNECTION_URL": f"sqlite+aiosqlite:///{folder / 'prefect.db'}"}
    env.pop("PREFECT_API_URL", None)  # the server itself talks to no other API
    return env


def _pid_file(folder: Path) -> Path:
    return folder / "server.pid"


def _is_prefect_server(pid: int) -> bool:
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return b"prefect" in b" ".join(cmdline) and b"server" in cmdline


def _recorded_pid(folder: Path) -> int | None:
    try:
        pid = int(_pid_file(folder).read_text(encoding="utf-8").strip())
    except (OSError, ValueError):
        return None
    return pid if _is_prefect_server(pid) else None


def _api(port: int) -> str:
    return DEFAULT_LOCAL_API if port == PORT else f"http://{HOST}:{port}/api"


def state(folder: Path | None = None, port: int = PORT) -> ServerState:
    """Whether a server answers at the default address, and whether it is the one we started."""
    folder = folder or server_folder()
    return ServerState(api_url=_api(port), answering=_healthy(_api(port), timeout=2.0),
                       pid=_recorded_pid(folder), folder=folder)


def start(deadline_seconds: float, folder: Path | None = None, port: int = PORT) -> ServerState:
    """Start the server detached (or find it running) and wait until it answers.

    `port` other than 4200 is for tests: the commands find a server only at the default address.
    """
    folder = folder or server_folder()
    now = state(folder, port)
    if now.answering:
        return now
    folder.mkdir(parents=True, exist_ok=True)
    env = server_env(folder)
    log = (folder / "server.log").open("ab")
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "prefect", "server", "start", "--host", HOST, "--port", str(port),
             "--no-ui", "--analytics-off"],
            env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    finally:
        log.close()
    _pid_file(folder).write_text(f"{process.pid}\n", encoding="utf-8")
    started = time.monotonic()
    while time.monotonic() - started < deadline_seconds:
        if process.poll() is not None:
            _pid_file(folder).unlink(missing_ok=True)
            raise PrefectUnavailable(f"the Prefect server exited with code {process.returncode} before it "
                                     f"answered (is port {port} taken?); see {folder / 'server.log'}")
        if _healthy(_api(port), timeout=2.0):
            return state(folder, port)
        time.sleep(0.5)
    raise PrefectUnavailable(f"the Prefect server (pid {process.pid}) did not answer within "
                             f"{deadline_seconds:g} s; it is still starting or stuck: see {folder / 'server.log'}, "
                             "`polygon server stop` stops it")


def stop(folder: Path | None = None) -> int | None:
    """Stop the server `start` recorded (SIGTERM to its process group, SIGKILL after 20 s); its pid,
    or None when none of ours was running."""
    folder = folder or server_folder()
    pid = _recorded_pid(folder)
    if pid is None:
        _pid_file(folder).unlink(missing_ok=True)  # a stale file from a server that died
        return None
    _signal_group(pid, signal.SIGTERM)
    deadline = time.monotonic() + _STOP_SECONDS
    while _is_prefect_server(pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    if _is_prefect_server(pid):
        _signal_group(pid, signal.SIGKILL)
    _pid_file(folder).unlink(missing_ok=True)
    return pid


def _signal_group(pid: int, sig: signal.Signals) -> None:
    # The server's own session: its uvicorn child goes with it. Only the recorded group is signalled.
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, sig)
