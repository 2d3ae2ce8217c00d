"""The transports by name: how Polygon reaches a voice bot (`voice: {protocol: twilio}`).

A transport is a factory in one module of this package, registered with `@transport(name)`;
every module here is imported on the first lookup (`Registry` with `submodules=""`), and an
installed distribution adds one through the `polygon.transports` entry-point group. The modules
import no network library at import time: a transport imports its own when it dials.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from polygon_core._registry import Registry

from ._base import Transport, TransportConfigError, TransportFactory, TransportOptions

__all__ = ["PLUGIN_GROUP", "TRANSPORTS", "make_transport", "transport", "transport_names"]

PLUGIN_GROUP = "polygon.transports"
_PACKAGE = __package__ or "polygon_core.adapters.transports"

TRANSPORTS: Registry[TransportFactory] = Registry(
    "voice transport", _PACKAGE, submodules="", first=("_twilio",), plugins=PLUGIN_GROUP)

F = TypeVar("F", bound=TransportFactory)


def transport(name: str) -> Callable[[F], F]:
    """Register the decorated factory as the transport `name`."""
    return TRANSPORTS.register(name)  # type: ignore[return-value]


def transport_names() -> tuple[str, ...]:
    """The registered transports, Twilio Media Streams first."""
    return TRANSPORTS.names()


def make_transport(name: str, options: TransportOptions | None = None) -> Transport:
    """A new transport `name` for one call; `TransportConfigError` for an unknown name."""
    factory = TRANSPORTS.get(name)
    if factory is None:
        raise TransportConfigError(f"unknown voice transport {name!r}; expected one of {', '.join(TRANSPORTS.names())}")
    return factory(options or TransportOptions())
