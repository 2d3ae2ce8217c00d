"""The import-format registry: one `ImportFormat` per format, registered by its own module.

A format module defines its parser and registers it with ``@import_format(...)``. The table is the
shared `Registry` (`polygon_core/_registry.py`): every module of this package is imported on the
first lookup, so a new built-in format is one new module here and no list names it; a format kept
outside Polygon registers itself when its module is imported, or through the
``polygon.import_formats`` entry-point group. Everything that needs to know the formats
(``read_calls``, ``polygon import --format``, the format guessed from a file name, the bundled
samples, the webhook receivers and their signature checks) reads this table.
docs/import-formats.md has a worked example.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, TextIO

from .._registry import Registry
from ..models import Speaker
from ._types import ParseItem

__all__ = ["REGISTRY", "ImportFormat", "Parser", "SignatureCheck", "Sniffer", "WebhookReader", "import_format",
           "unregister_format"]


class Parser(Protocol):
    """A format's parser: (stream, the user's speaker map, JSON Lines or not) → calls and problems,
    one at a time. Formats with one layout ignore `lines`."""

    def __call__(self, stream: TextIO, speaker_map: Mapping[str, Speaker] | None = None, *,
                 lines: bool = ...) -> Iterator[ParseItem]: ...

# A platform's webhook body → the call record(s) its parser reads, or None for an event that
# carries no finished call (Vapi's status updates, Retell's call_started).
WebhookReader = Callable[[Any], list[Any] | None]


class SignatureCheck(Protocol):
    """A platform's webhook signature check: whether a request was signed with `secret` (the value
    of the source's `secret_env`). `body` is the raw request body, `headers` the request's headers
    looked up by lower-case name, `now` the server's clock (Unix seconds) for replay windows
    (`_signing.TOLERANCE_SECONDS`). Compare secrets in constant time (`hmac.compare_digest`)."""

    def __call__(self, secret: str, body: bytes, headers: Mapping[str, str], now: float, /) -> bool: ...


# One decoded record → whether it has this format's unmistakable keys (a Vapi call's `artifact`):
# only used to say "this looks like a Vapi export: use --format vapi" when another format rejects it.
Sniffer = Callable[[Any], bool]


@dataclass(frozen=True)
class ImportFormat:
    """One import format: its name, what it reads, its parser and what else knows it."""

    name: str
    description: str
    parse: Parser
    sample: str | None = None  # a bundled example under polygon_core/imports/samples/
    name_hints: tuple[str, ...] = ()  # words in a file name that select this format
    suffixes: tuple[str, ...] = ()  # file-name endings that select this format (".csv")
    webhook: WebhookReader | None = None  # set for platforms whose call-ended webhook is received
    sniff: Sniffer | None = None  # recognises one of its records (for rejection hints only)
    verify: SignatureCheck | None = None  # the webhook's signature check: set exactly when `webhook` is


# Name order: csv, openai, polygon, retell, vapi, then any other format (file-name guesses try them
# in this order): the built-ins lead by name, so a new module, whatever its name, never changes
# which built-in's name hint is tried first.
REGISTRY: Registry[ImportFormat] = Registry(
    "import format", __package__ or "polygon_core.imports", submodules="",
    first=("_csv", "_openai", "_polygon", "_retell", "_vapi"), plugins="polygon.import_formats")


def import_format(name: str, description: str, *, sample: str | None = None,
                  name_hints: tuple[str, ...] = (), suffixes: tuple[str, ...] = (),
                  webhook: WebhookReader | None = None, verify: SignatureCheck | None = None,
                  sniff: Sniffer | None = None) -> Callable[[Parser], Parser]:
    """Register the decorated parser as format `name` (a name already taken is an error).

    A platform whose call-ended webhook Polygon receives gives `webhook` (the body → its call
    records) and `verify` (its signature check) together: the sources file, `polygon serve` and the
    web app all read them from here, so one without the other is refused at registration.
    """
    if (webhook is None) != (verify is None):
        given, missing = ("webhook", "verify") if verify is None else ("verify", "webhook")
        raise ValueError(f"import format {name!r}: {given}= needs {missing}= too (a received webhook is "
                         "read by `webhook` and its signature checked by `verify`)")

    def register(parse: Parser) -> Parser:
        # Against the entries so far, not `loaded()`: this runs while a module is being imported, and
        # loading the built-ins from here takes the registry's lock under the import lock (two
        # threads can deadlock). A format registered before the built-ins load clashes when they do.
        entry = ImportFormat(name, description, parse, sample, name_hints, suffixes, webhook, sniff, verify)
        REGISTRY.register(name, module=parse.__module__)(entry)
        return parse

    return register


def unregister_format(name: str) -> None:
    """Forget a registered format (tests and plugins that replace one)."""
    REGISTRY.remove(name)
