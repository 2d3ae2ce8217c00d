"""Redaction of personal data before anything is stored or sent to a model (pure).

Card numbers (Luhn-checked), phone numbers (the `phonenumbers` library), e-mail addresses and
custom patterns become typed placeholders: ``[CARD]``, ``[PHONE]``, ``[EMAIL]``, ``[LABEL]``.
"""

from ._conversation import redact_conversation, redact_value
from ._text import (
    CARD,
    EMAIL,
    PHONE,
    RedactionSettings,
    Redactor,
    luhn_valid,
    settings_from,
)

__all__ = [
    "CARD",
    "EMAIL",
    "PHONE",
    "RedactionSettings",
    "Redactor",
    "luhn_valid",
    "redact_conversation",
    "redact_value",
    "settings_from",
]
