"""Host names and addresses, without I/O."""

from __future__ import annotations

import ipaddress

__all__ = ["is_loopback_host"]


def is_loopback_host(host: str) -> bool:
    """Whether `host` (a name or an address) is this machine: `localhost`, 127.0.0.0/8 or ::1.
    Another name is not looked up (no I/O): it counts as not loopback."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
