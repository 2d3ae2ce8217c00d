"""Per-language patterns of the rules tier (one module per language)."""

from __future__ import annotations

from ._en import PATTERNS as ENGLISH
from ._ru import PATTERNS as RUSSIAN
from ._types import LanguagePatterns

__all__ = ["ENGLISH", "RUSSIAN", "LanguagePatterns", "patterns_for"]

_BY_CODE = {"en": ENGLISH, "ru": RUSSIAN}


def patterns_for(language: str) -> LanguagePatterns:
    """The patterns of `en` or `ru`; anything else is a ValueError naming the supported codes."""
    try:
        return _BY_CODE[language]
    except KeyError:
        raise ValueError(f"prompt analysis supports languages en, ru; got {language!r}") from None
