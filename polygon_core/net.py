"""Host names and addresses, without I/O."""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit, urlunsplit

__all__ = ["is_loopback_host", "public_url"]


def is_loopback_host(host: str) -> bool:
    """Whether `host` (a name or an address) is this machine: `localhost`, 127.0.0.0/8 or ::1.
    Another name is not looked up (no I/O): it counts as not loopback."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def public_url(url: str) -> str:
    """`url` as it may be stored and shown: scheme, host, port and path, without user, password,
    query or fragment, which is where a bot's URL carries a token (`wss://bot/ws?token=...`)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:  # an IPv6 address goes back in brackets
        host = f"[{host}]"
    netloc = f"{host}:{parts.port}" if parts.port is not None else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))
