"""The key that turns an external id holding personal data into a stable digest (docs/design.md,
"Hostile input").

`POLYGON_REDACT_ID_KEY` wins. Without it, a random key is made on first use and kept in the artifact
store beside the imports (`keys/identifier.key`), so every worker sharing that store stores the same
digest for the same id. Keeping the key elsewhere (the environment of the importing processes only)
is stronger: whoever reads the artifact store can then no longer test guesses against the digests.
"""

from __future__ import annotations

import secrets
import threading

from polygon_core.adapters.stores import Stores
from polygon_core.redaction import IdentifierRedactor, RedactionSettings

__all__ = ["IDENTIFIER_KEY", "identifier_redactor"]

IDENTIFIER_KEY = "keys/identifier.key"


# Threads of one process (the webhook server's deliveries run in a pool) make the key one at a
# time: otherwise two could each write one and one of them read its own back before the other's
# overwrote it, hashing an id under a key then lost.
_MAKING = threading.Lock()


def _stored_key(stores: Stores) -> bytes:
    with _MAKING:
        if not stores.artifacts.exists(IDENTIFIER_KEY):
            stores.artifacts.put_text(IDENTIFIER_KEY, secrets.token_hex(32))
        # Read back what is stored: when two processes made a key at once, the one kept wins for both.
        return stores.artifacts.get_text(IDENTIFIER_KEY).strip().encode("ascii")


def identifier_redactor(stores: Stores, redaction: RedactionSettings) -> IdentifierRedactor:
    """The mapping from an external id to the id stored, under the configured or stored key."""
    configured = stores.settings.redact_id_key
    key = configured.get_secret_value().encode("utf-8") if configured is not None else _stored_key(stores)
    return IdentifierRedactor(redaction, key)
