"""Errors of the provider layer, and how SDK exceptions are classified for the retry layer."""

from __future__ import annotations

import email.utils
import time
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

from ...conversation import ProviderFailure
from ._retry import Retryable

__all__ = ["Endpoint", "ProviderConfigError", "classify", "import_sdk", "never_sent", "redact"]


class ProviderConfigError(ValueError):
    """A provider cannot be used as configured (missing package or key, bad name)."""


def import_sdk(package: str) -> Any:
    """Import an SDK lazily, naming the package to install when it is missing."""
    import importlib

    try:
        return importlib.import_module(package)
    except ImportError:
        raise ProviderConfigError(
            f"the {package!r} package is needed for {package} models: pip install {package}") from None


def redact(text: str, secrets: list[str]) -> str:
    """Blank out every secret in a message (an SDK may echo a key in an error body)."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "***")
    return text


def _retry_after(headers: Any) -> float | None:
    if headers is None:
        return None
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return float(ms) / 1000.0
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        return max(0.0, when.timestamp() - time.time())


_RETRY_STATUS = {408, 409, 425, 429}


@dataclass(frozen=True)
class Endpoint:
    """Where requests go, as failure messages name it (never with a key)."""

    name: str           # provider:model
    url: str            # the base URL requests go to
    key_variable: str   # the environment variable of the key


def _class_names(exc: BaseException) -> set[str]:
    return {c.__name__ for c in type(exc).__mro__}


def _causes(exc: BaseException) -> list[BaseException]:
    """The exception and what it was raised from, outermost first (a few links at most)."""
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and len(chain) < 8 and all(current is not seen for seen in chain):
        chain.append(current)
        current = current.__cause__ or current.__context__
    return chain


# Transport errors by class name, aiohttp's (the SDKs' aiohttp transport) and httpx's.
_TIMEOUT = {"ServerTimeoutError", "SocketTimeoutError", "TimeoutException"}
_DROPPED = {"ClientOSError", "ServerDisconnectedError", "ClientPayloadError", "ClientConnectionError",
            "TransportError"}


def never_sent(exc: BaseException) -> bool:
    """The request could not be written because its connection was already closed: aiohttp's
    `ClientConnectionResetError` while sending it, before any byte of a reply.

    That is a pooled connection the server closed after its last reply while advertising keep-alive
    (llama.cpp's server does so after every streamed reply); the close arrived between the pool
    handing the connection out and the request going onto it. The server never had the request, so
    sending it again is safe and is no attempt. A server that reads a request and then drops the
    connection fails on reading the reply instead (`ServerDisconnectedError`): not this.
    """
    return any("ClientConnectionResetError" in _class_names(e) for e in _causes(exc)
               if type(e).__module__.startswith("aiohttp"))


def dropped_unanswered(exc: BaseException) -> bool:
    """The server closed the connection before any byte of a reply: aiohttp's `ServerDisconnectedError`.

    On a server seen closing pooled connections (see `never_sent`) this is the same race a moment
    later: the request was written onto the connection just before the server's close arrived, so
    the server never read it. Elsewhere it is a server that read a request and dropped it."""
    return any("ServerDisconnectedError" in _class_names(e) for e in _causes(exc)
               if type(e).__module__.startswith("aiohttp"))


def _final(message: str) -> Retryable:
    """Retried, and given up with this message alone."""
    return Retryable(message, final=lambda _attempts: message)


def _transport(exc: BaseException, endpoint: Endpoint) -> Retryable | ProviderFailure | None:
    """A transport failure, told by the lowest-level error in its chain.

    The SDKs' aiohttp transport maps aiohttp's errors to httpx2's by the first entry that matches,
    so a refused or dropped connection can reach the SDK as a `ConnectTimeout` (an
    `APITimeoutError`): when aiohttp's own error is in the chain, only it is read. A certificate
    that does not verify is final at once, with its reason.
    """
    chain = _causes(exc)
    told = [e for e in chain if type(e).__module__.startswith("aiohttp")] or chain
    names = set().union(*(_class_names(e) for e in told))
    if "ClientSSLError" in names:  # a certificate that does not verify will not verify on a retry
        reason = getattr(told[-1], "certificate_error", None) or told[-1]
        return ProviderFailure(f"TLS failed for {endpoint.url}: {str(reason)[:300]} (is the URL's scheme, "
                               "host and certificate right? a private CA goes in SSL_CERT_FILE)")
    if "ClientConnectorDNSError" in names:
        return _final(f"cannot resolve the host of {endpoint.url}: is the name right?")
    if names & {"ClientConnectorError", "ConnectError"}:  # refused, unreachable
        return _final(f"cannot connect to {endpoint.url}: is the server running?")
    if names & _TIMEOUT:
        return Retryable("the request timed out", kind="timeout")
    if names & _DROPPED:
        return Retryable(f"the connection to {endpoint.url} dropped ({type(told[-1]).__name__})")
    return None


def _status_failure(exc: Any, endpoint: Endpoint, label: str, secrets: list[str]) -> BaseException:
    status = exc.status_code
    detail = redact(_message(exc), secrets)
    if status in _RETRY_STATUS or status >= 500:
        return Retryable(f"HTTP {status}: {detail}", _retry_after(getattr(exc.response, "headers", None)))
    if status in (401, 403):
        # No server detail: an endpoint may echo the key it refused.
        return ProviderFailure(f"{status} {HTTPStatus(status).phrase} from {endpoint.name} at {endpoint.url}: "
                               f"check {endpoint.key_variable}")
    return ProviderFailure(f"{label}: HTTP {status}: {detail}")


def classify(exc: BaseException, sdk: Any, label: str, secrets: list[str],
             endpoint: Endpoint | None = None) -> BaseException:
    """Map an SDK (or transport) exception to Retryable (transient) or ProviderFailure (final)."""
    endpoint = endpoint or Endpoint(label, label, "the API key")
    if isinstance(exc, sdk.APIStatusError):
        return _status_failure(exc, endpoint, label, secrets)
    mapped = _transport(exc, endpoint)
    if mapped is not None:
        return mapped
    if isinstance(exc, sdk.APITimeoutError):
        return Retryable("the request timed out", kind="timeout")
    if isinstance(exc, sdk.APIConnectionError):
        return Retryable(f"connection failed: {redact(str(exc), secrets)}")
    if isinstance(exc, (sdk.APIResponseValidationError, ValueError)):
        # A 200 whose body is not JSON or not the API's shape: a broken proxy or an overloaded
        # server mid-restart; worth a retry, and a clear reason when it persists.
        return Retryable(f"the server's reply is not a valid response ({type(exc).__name__})")
    return exc


def _message(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict) and err.get("message"):
            return str(err["message"])[:300]
    return str(getattr(exc, "message", exc))[:300]
