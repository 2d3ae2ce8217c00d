"""Redaction of personal data before anything is stored or sent to a model (pure).

Card numbers (Luhn-checked), IBANs (mod-97-checked), passport numbers (after a cue word), street
addresses (written and spoken, English and Russian), phone numbers (the `phonenumbers` library,
several regions), e-mail addresses (internationalised too), numbers said digit by digit in words
(`_spoken`), values under keys that name personal data (`_keys`) and custom patterns become typed
placeholders (an identifier holding any of them, an external id or a tool call's, becomes a keyed
digest, `IdentifierRedactor`): ``[CARD]``, ``[IBAN]``, ``[PASSPORT]``, ``[ADDRESS]``,
``[PHONE]``, ``[EMAIL]``, ``[LABEL]``. What is and is not found: docs/import-formats.md.
"""

from ._conversation import redact_conversation, redact_value
from ._ids import REDACTED_ID_PREFIX, IdentifierRedactor
from ._patterns import iban_valid
from ._text import (
    ADDRESS,
    CARD,
    DEFAULT_PHONE_REGIONS,
    EMAIL,
    IBAN,
    PASSPORT,
    PHONE,
    RedactionSettings,
    Redactor,
    luhn_valid,
    settings_from,
)

__all__ = [
    "ADDRESS",
    "CARD",
    "DEFAULT_PHONE_REGIONS",
    "EMAIL",
    "IBAN",
    "PASSPORT",
    "PHONE",
    "REDACTED_ID_PREFIX",
    "IdentifierRedactor",
    "RedactionSettings",
    "Redactor",
    "iban_valid",
    "luhn_valid",
    "redact_conversation",
    "redact_value",
    "settings_from",
]
