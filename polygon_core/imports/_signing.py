"""What the voice platforms' webhook signatures share: the replay window of a signed timestamp.

A format that receives webhooks registers its signature check with its parser
(``@import_format(..., webhook=..., verify=...)``, a `SignatureCheck`); the web app calls it with the
secret, the raw body, the headers and the server's clock, so the check itself reads no clock.
"""

from __future__ import annotations

__all__ = ["TOLERANCE_SECONDS", "signed_recently"]

TOLERANCE_SECONDS = 300  # how far a signed timestamp may be from the server's clock


def signed_recently(stamp: str, now: float) -> bool:
    """Whether a signed timestamp (Unix seconds, or milliseconds) is within the replay window of `now`."""
    try:
        seconds = float(stamp)
    except ValueError:
        return False
    if seconds > 1e11:  # milliseconds
        seconds /= 1000
    return abs(now - seconds) <= TOLERANCE_SECONDS
