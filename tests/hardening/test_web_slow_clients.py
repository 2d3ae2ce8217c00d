"""`polygon serve` closes a connection whose request does not arrive in time (issue 32, item 8:
60 sockets that sent half a request were held for as long as their clients liked).

A real server (`build_server`, uvicorn on loopback) with deadlines of 0.3 s; each test opens a raw
socket, sends part of a request and reads: the server closing the connection is an empty read.
What is asserted is that it closed, never how long it took (the socket's own timeout only keeps
a broken server from hanging the test).
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from polygon.web import build_server
from polygon_core.adapters.settings import load_settings
from tests.fakes.served import serving


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def port(tmp_path: Path) -> Iterator[int]:
    settings = load_settings(home=tmp_path / ".polygon", serve_header_timeout=0.3, serve_body_timeout=0.3)
    number = _free_port()
    with serving(build_server(settings, "127.0.0.1", number)):
        yield number


def _closed_by_server(sock: socket.socket, drip: bytes = b"") -> bool:
    """Read (dripping `drip` a byte at a time meanwhile) until the server closes: True, or False
    if it answered or kept the socket open for 20 s."""
    sock.settimeout(0.1)
    stop = time.monotonic() + 20
    sent = 0
    while time.monotonic() < stop:
        try:
            data = sock.recv(4096)
        except TimeoutError:
            if drip:
                try:
                    sock.sendall(drip[sent % len(drip):sent % len(drip) + 1])
                except (BrokenPipeError, ConnectionResetError):
                    return True
                sent += 1
            continue
        except ConnectionResetError:
            return True
        return data == b""
    return False


def _connect(port: int) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=5)


def test_a_socket_that_sends_nothing_is_closed(port: int) -> None:
    with _connect(port) as sock:
        assert _closed_by_server(sock)


def test_headers_dripped_a_byte_at_a_time_are_cut_off(port: int) -> None:
    with _connect(port) as sock:
        sock.sendall(b"GET /api/runs HTTP/1.1\r\nHost: x\r\n")
        assert _closed_by_server(sock, drip=b"X-Slow: " + b"a" * 1000)


def test_a_body_that_never_finishes_is_cut_off(port: int) -> None:
    with _connect(port) as sock:
        sock.sendall(b"POST /webhooks/sweep HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 100000\r\n\r\n{")
        assert _closed_by_server(sock, drip=b" ")


def test_a_prompt_request_is_still_answered(port: int) -> None:
    with _connect(port) as sock:
        sock.sendall(b"GET /api/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        sock.settimeout(10)
        reply = b""
        while chunk := sock.recv(4096):
            reply += chunk
    assert reply.startswith(b"HTTP/1.1 ")


def test_the_defaults_are_documented_values() -> None:
    settings = load_settings()
    assert (settings.serve_header_timeout, settings.serve_body_timeout) == (10.0, 30.0)


def _read_response(sock: socket.socket) -> bytes:
    """One whole response (headers and a Content-Length body) from a kept-alive connection."""
    sock.settimeout(10)
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(4096)
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                  if line.lower().startswith(b"content-length:"))
    while len(body) < length:
        body += sock.recv(4096)
    return head


def test_the_next_request_on_a_kept_alive_connection_has_its_own_deadline(port: int) -> None:
    with _connect(port) as sock:
        sock.sendall(b"GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n")
        assert _read_response(sock).startswith(b"HTTP/1.1 ")
        sock.sendall(b"GET /api/health HTTP/1.1\r\nHost: x\r\n")  # the next request, never finished
        assert _closed_by_server(sock, drip=b"X-Slow: " + b"a" * 1000)
