"""Errors of the provider layer, and how SDK exceptions are classified for the retry layer."""

from __future__ import annotations

import email.utils
import time
from typing import Any

from ...conversation import ProviderFailure
from ._retry import Retryable

__all__ = ["ProviderConfigError", "classify", "import_sdk", "redact"]


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


def classify(exc: BaseException, sdk: Any, label: str, secrets: list[str]) -> BaseException:
    """Map an SDK exception to Retryable (transient) or ProviderFailure (final, with the reason)."""
    if isinstance(exc, sdk.APIStatusError):
        status = exc.status_code
        detail = redact(_message(exc), secrets)
        if status in _RETRY_STATUS or status >= 500:
            return Retryable(f"HTTP {status}: {detail}", _retry_after(getattr(exc.response, "headers", None)))
        if status in (401, 403):
            return ProviderFailure(f"{label}: HTTP {status} (authentication failed; check the API key "
                                   f"setting): {detail}")
        return ProviderFailure(f"{label}: HTTP {status}: {detail}")
    if isinstance(exc, sdk.APITimeoutError):
        return Retryable("the request timed out")
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
