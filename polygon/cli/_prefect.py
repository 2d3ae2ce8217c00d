"""The Prefect API a CLI command's flows talk to: the configured one, a running local one, or a
temporary one that Polygon starts patiently and that can never outlive the command.

Prefect's own temporary ("ephemeral") server gives up after 20 s, which a busy 2-core machine
exceeds, and a SIGKILLed parent leaves it running. Polygon starts the same server itself: it waits
with a real-time deadline (`POLYGON_PREFECT_STARTUP_SECONDS`, default 180), retries on another
port if the first one is taken, and asks the kernel to stop the server when the command's process
dies (`PR_SET_PDEATHSIG` on Linux), so a killed `polygon run` leaves no orphan.
"""

from __future__ import annotations

import atexit
import os
import socket
import subprocess
import sys
import time
from typing import Any

import httpx

DEFAULT_LOCAL_API = "http://127.0.0.1:4200/api"  # where `prefect server start` listens
_STARTUP_SECONDS = 180.0
_ENTERED: list[Any] = []  # the settings context `choose_api` entered, kept alive for the process
_ATTEMPTS = 3


class PrefectUnavailable(RuntimeError):
    """No Prefect API could be reached or started; the message says what to do."""


def _healthy(api_url: str, timeout: float = 2.0) -> bool:
    try:
        return httpx.get(f"{api_url.rstrip('/')}/health", timeout=timeout).status_code == 200
    except httpx.HTTPError:
        return False


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# Run in the child before it becomes the server: on Linux, ask for SIGTERM the moment the parent (the
# CLI command) dies, even by SIGKILL; the setting survives exec. (A launcher rather than preexec_fn,
# which is unsafe in a process with threads.)
_LAUNCHER = ("import ctypes, os, signal, sys\n"
             "try:\n"
             "    ctypes.CDLL('libc.so.6', use_errno=True).prctl(1, signal.SIGTERM)\n"
             "except Exception:\n"
             "    pass\n"
             "if os.getppid() == int(sys.argv[1]):\n"
             "    os.execv(sys.executable, [sys.executable, *sys.argv[2:]])\n")


# Prefect server settings that lower its CPU per task run, every service still on (benchmarks/
# README.md, "The Prefect server's cost per task"), for the temporary server and the one `polygon
# server start` keeps. The task-run recorder writes the task runs and states the UI shows from the
# client's events; at Prefect's default batch of 1 it opens a transaction, looks the run up and
# upserts it once per event (three per task run). Batches of 100 (or whatever has queued after its
# 5 s flush interval) cut the server's CPU per task run from ~22 to ~9 ms; a task run reaches the
# UI at most those 5 s later. A value already in the environment wins.
SERVER_TUNING = {"PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_BATCH_SIZE": "100"}


def _spawn(port: int) -> subprocess.Popen[Any]:
    import prefect

    env = {**SERVER_TUNING, **os.environ, "PREFECT_UI_ENABLED": "0", "PREFECT__SERVER_EPHEMERAL": "1",
           "PREFECT__SERVER_FINAL": "1", "PREFECT_SERVER_LOGGING_LEVEL": "CRITICAL"}
    server = ["-m", "uvicorn", "--app-dir", str(prefect.__module_path__.parent),
              "--factory", "prefect.server.api.server:create_app", "--host", "127.0.0.1",
              "--port", str(port), "--log-level", "error", "--lifespan", "on"]
    # The parent check closes the race where the CLI died before prctl took effect.
    args = [sys.executable, "-c", _LAUNCHER, str(os.getpid()), *server]
    return subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _stop(process: subprocess.Popen[Any]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def start_temporary_server(deadline_seconds: float) -> str:
    """Start a private Prefect server on loopback and return its API URL once it answers."""
    started = time.monotonic()
    for _attempt in range(_ATTEMPTS):
        port = _free_port()
        process = _spawn(port)
        api = f"http://127.0.0.1:{port}/api"
        while time.monotonic() - started < deadline_seconds:
            if process.poll() is not None:
                break  # it exited (a port race, most likely): try another port
            if _healthy(api):
                atexit.register(_stop, process)
                return api
            time.sleep(0.25)
        _stop(process)
        if time.monotonic() - started >= deadline_seconds:
            break
    raise PrefectUnavailable(
        f"Prefect's temporary server did not answer within {deadline_seconds:g} s (the machine may be "
        "busy): start a long-lived one with `polygon server start` (every command then uses it), "
        "or raise POLYGON_PREFECT_STARTUP_SECONDS")


def _deadline() -> float:
    from polygon_core.adapters.settings import prefect_startup_variable

    raw = prefect_startup_variable()
    try:
        return float(raw) if raw else _STARTUP_SECONDS
    except ValueError:
        raise PrefectUnavailable(f"POLYGON_PREFECT_STARTUP_SECONDS={raw!r}: expected a number of seconds") from None


def use_api(url: str, updates: dict[Any, Any] | None = None) -> None:
    """Point every flow and task of this process at `url` (with `updates`), for the rest of it.

    The context manager is kept: dropped, it is garbage-collected at once, its exit restores the
    old settings, and Prefect then starts its own ephemeral server beside this one.
    """
    from prefect.settings import PREFECT_API_URL, temporary_settings

    entered = temporary_settings(updates={**(updates or {}), PREFECT_API_URL: url})
    entered.__enter__()
    _ENTERED.append(entered)


def choose_api(err: Any = None) -> None:
    """Make the flows of this process use a Prefect API that answers (see the module docstring).

    A configured API (PREFECT_API_URL, a Prefect profile, or a test harness) is used as it is, and
    checked: unreachable is one clear error. Otherwise a server at the default local address (the
    one `polygon server start` keeps running, or any other) is reused when it answers, else a
    temporary one is started; `err` is told which.
    """
    from prefect.settings import (
        PREFECT_LOGGING_TO_API_ENABLED,
        get_current_settings,
    )

    configured = get_current_settings().api.url
    if configured:
        if not _healthy(configured, timeout=10.0):
            raise PrefectUnavailable(f"cannot reach the Prefect API at {configured}: is the server running? "
                                     "(check PREFECT_API_URL)")
        return
    updates: dict[Any, Any] = {}
    if _healthy(DEFAULT_LOCAL_API, timeout=1.0):
        url = DEFAULT_LOCAL_API
        if err is not None:
            err.print(f"using the long-lived Prefect server at {url}", highlight=False)
    else:
        if err is not None:
            err.print(f"no Prefect server at {DEFAULT_LOCAL_API}: starting a temporary one for this command "
                      "(`polygon server start` keeps one running for every command)", highlight=False)
        url = start_temporary_server(_deadline())
        # Nobody reads a temporary server's logs, and it stops with the command: keep them local.
        updates[PREFECT_LOGGING_TO_API_ENABLED] = False
    # Entered for the rest of the process: every flow and task this command runs sees the URL. The
    # context manager is kept: dropped, it is garbage-collected at once, its exit restores the old
    # settings, and Prefect then starts its own ephemeral server beside this one.
    use_api(url, updates)
