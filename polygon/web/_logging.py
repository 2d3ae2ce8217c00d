"""Nothing secret reaches a log: query-string credentials and configured secrets are redacted.

A page opened with ``?token=<token>`` (how a browser first presents its API token) would otherwise
be written in clear by uvicorn's access log (``"GET /runs?token=… HTTP/1.1" 303``). Polygon keeps
accepting the token in the URL, since that is how a link or the login form carries it, and
`polygon serve` installs `RedactingFilter` on uvicorn's loggers, their handlers and Polygon's
own: the value of every credential-like query parameter becomes ``[REDACTED]``, and so does any
configured secret (API tokens, the webhook secret) wherever it appears in a message.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from typing import Any

from polygon_core.adapters.settings import PolygonSettings

from ._auth import tokens_from_settings

__all__ = ["MIN_SECRET_LENGTH", "REDACTED", "SECRET_PARAMETERS", "RedactingFilter", "install_log_redaction", "redact"]

REDACTED = "[REDACTED]"
#: Query parameters whose values are credentials (compared case-insensitively).
SECRET_PARAMETERS = ("token", "access_token", "api_key", "apikey", "key", "secret", "password",
                     "signature", "sig")
#: Configured secrets shorter than this are not searched for in messages (see RedactingFilter).
MIN_SECRET_LENGTH = 6
#: The loggers `polygon serve` writes through.
LOGGERS = ("uvicorn", "uvicorn.access", "uvicorn.error", "polygon")

_QUERY_SECRET = re.compile(
    r"(?i)([?&;](?:" + "|".join(map(re.escape, SECRET_PARAMETERS)) + r")=)[^&;#\s\"']*")


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """`text` with credential query values and every one of `secrets` replaced by ``[REDACTED]``."""
    out = _QUERY_SECRET.sub(lambda m: m.group(1) + REDACTED, text)
    for secret in secrets:
        out = out.replace(secret, REDACTED)
    return out


class RedactingFilter(logging.Filter):
    """Rewrites a record's message and string arguments in place; never drops a record.

    The argument tuple keeps its shape and types (uvicorn's access formatter unpacks it).
    """

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        """`secrets`: exact values to hide besides query credentials.

        Values shorter than `MIN_SECRET_LENGTH` are not searched for: replacing every "s" of every
        line would destroy the log without protecting a secret that short anyway.
        """
        super().__init__()
        # Longest first, so a secret containing another is hidden whole.
        self.secrets = sorted({s for s in secrets if len(s) >= MIN_SECRET_LENGTH}, key=len, reverse=True)

    def filter(self, record: logging.LogRecord) -> bool:
        """Redact `record` and let it through."""
        if isinstance(record.msg, str):
            record.msg = redact(record.msg, self.secrets)
        if isinstance(record.args, tuple):
            record.args = tuple(self._arg(a) for a in record.args)
        elif isinstance(record.args, dict):
            record.args = {k: self._arg(v) for k, v in record.args.items()}
        return True

    def _arg(self, value: Any) -> Any:
        return redact(value, self.secrets) if isinstance(value, str) else value


def settings_secrets(settings: PolygonSettings) -> list[str]:
    """The secret values `settings` hold that a log line must never show."""
    values = [t.token for t in tokens_from_settings(settings)]
    if settings.webhook_secret is not None:
        values.append(settings.webhook_secret.get_secret_value())
    return values


def install_log_redaction(settings: PolygonSettings) -> RedactingFilter:
    """Add one RedactingFilter to Polygon's and uvicorn's loggers and to their handlers and root's.

    Call after uvicorn has configured logging (``uvicorn.Config(...)`` does it), so its handlers
    exist. A logger's filter covers records logged on it; a handler's covers what propagates to it.
    """
    found = RedactingFilter(settings_secrets(settings))
    loggers = [logging.getLogger(name) for name in LOGGERS] + [logging.getLogger()]
    for logger in loggers:
        for target in (logger, *logger.handlers):
            for old in [f for f in target.filters if isinstance(f, RedactingFilter)]:
                target.removeFilter(old)  # installed again (another app in this process): newest wins
            target.addFilter(found)
    return found
