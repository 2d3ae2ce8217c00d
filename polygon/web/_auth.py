"""Access to the web app and its JSON API: bearer tokens with a scope, or loopback only.

`POLYGON_API_TOKENS` lists tokens as ``name:token:scope`` separated by commas, scope ``read`` or
``admin`` (``admin`` can do everything ``read`` can). A client presents its token as
``Authorization: Bearer <token>``, or in the ``polygon_token`` cookie that a page sets after being
opened once with ``?token=<token>`` (so the browser's own API calls carry it).

With no token configured the app serves loopback clients only (`polygon serve` then also binds to
loopback): anything arriving from another address is refused with 403. The signed webhooks are not
behind these rules; they check their own HMAC signatures.
"""

from __future__ import annotations

import hmac
import ipaddress
from dataclasses import dataclass
from typing import Literal

from fastapi import HTTPException, Request

from polygon_core.adapters.settings import PolygonSettings

__all__ = [
    "COOKIE",
    "ApiToken",
    "Scope",
    "TokenConfigError",
    "access_notice",
    "authorize",
    "is_loopback",
    "parse_tokens",
]

Scope = Literal["read", "admin"]
SCOPES: tuple[Scope, ...] = ("read", "admin")
COOKIE = "polygon_token"


class TokenConfigError(ValueError):
    """`POLYGON_API_TOKENS` is malformed (the message never contains a token)."""


@dataclass(frozen=True)
class ApiToken:
    """One configured token: who it is (for logs) and what it may do."""

    name: str
    token: str
    scope: Scope

    def allows(self, need: Scope) -> bool:
        """Whether this token may call an endpoint that needs `need`."""
        return self.scope == "admin" or need == "read"


def parse_tokens(raw: str | None) -> list[ApiToken]:
    """Parse ``name:token:scope,…``; blank means no tokens. Errors name the entry, not the token."""
    if raw is None or not raw.strip():
        return []
    tokens: list[ApiToken] = []
    for number, raw_entry in enumerate(raw.split(","), start=1):
        entry = raw_entry.strip()
        if not entry:
            continue
        parts = entry.split(":")
        if len(parts) != 3 or not all(p.strip() for p in parts):
            raise TokenConfigError(f"POLYGON_API_TOKENS entry {number}: expected name:token:scope")
        name, token, scope = (p.strip() for p in parts)
        if scope not in SCOPES:
            raise TokenConfigError(f"POLYGON_API_TOKENS entry {number} ({name}): scope must be read or admin, "
                                   f"not {scope!r}")
        if any(t.name == name for t in tokens):
            raise TokenConfigError(f"POLYGON_API_TOKENS: the name {name!r} is used twice")
        tokens.append(ApiToken(name=name, token=token, scope=scope))
    return tokens


def tokens_from_settings(settings: PolygonSettings) -> list[ApiToken]:
    """The configured tokens (none when `api_tokens` is unset)."""
    secret = getattr(settings, "api_tokens", None)
    return parse_tokens(secret.get_secret_value() if secret is not None else None)


def is_loopback(host: str | None) -> bool:
    """Whether a client address is a loopback address (127.0.0.0/8, ::1)."""
    if not host:
        return False
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a name (TestClient's "testclient", a proxy's label) is not an address


def access_notice(settings: PolygonSettings) -> str:
    """One line saying how the web app is protected, printed at start-up."""
    tokens = tokens_from_settings(settings)
    if not tokens:
        return ("web app: no API token is configured (POLYGON_API_TOKENS): only loopback clients "
                "(127.0.0.1, ::1) are served")
    admins = sum(1 for t in tokens if t.scope == "admin")
    return (f"web app: {len(tokens)} API token(s) configured ({admins} admin, {len(tokens) - admins} read-only); "
            "every page and API call needs one")


def presented_token(request: Request) -> str | None:
    """The token a request carries: bearer header first, then the cookie."""
    header = request.headers.get("authorization", "")
    if header[:7].lower() == "bearer ":
        return header[7:].strip() or None
    return request.cookies.get(COOKIE) or None


def match_token(tokens: list[ApiToken], given: str | None) -> ApiToken | None:
    """The configured token equal to `given` (constant-time comparison against every token)."""
    if not given:
        return None
    found = None
    for t in tokens:
        # No early exit: the time taken does not tell which token (or how much of one) matched.
        if hmac.compare_digest(t.token.encode(), given.encode()):
            found = t
    return found


def authorize(request: Request, tokens: list[ApiToken], need: Scope) -> ApiToken | None:
    """Let the request through or raise 401/403; returns the token used (None on loopback access)."""
    if not tokens:
        host = request.client.host if request.client else None
        if is_loopback(host):
            return None
        raise HTTPException(status_code=403, detail=(
            "no API token is configured (POLYGON_API_TOKENS), so only loopback clients are served; "
            f"this request came from {host or 'an unknown address'}"))
    token = match_token(tokens, presented_token(request))
    if token is None:
        raise HTTPException(status_code=401, detail="an API token is required (Authorization: Bearer <token>)",
                            headers={"WWW-Authenticate": "Bearer"})
    if not token.allows(need):
        raise HTTPException(status_code=403, detail=f"token {token.name!r} is read-only; this needs the admin scope")
    return token
