"""Which language a prompt is written in, and which country's formats its callers use.

Detection is by script: the share of Cyrillic among the letters decides Russian. A new language is a
new entry in `_SCRIPTS` (its letters) plus a reader and a value table (see `_reading`, `_values`).
"""

from __future__ import annotations

import re

# Letters of each supported language's script; the first language is the default.
_SCRIPTS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("en", re.compile(r"[a-z]", re.IGNORECASE)),
    ("ru", re.compile(r"[а-яё]", re.IGNORECASE)),
)
# From this share of a script's letters, the text is in that script's language.
_SCRIPT_SHARE = 0.5

# Words that place an English prompt in Britain rather than the United States.
_GB_CUES = re.compile(r"£|\bpounds?\b|\bpostcodes?\b|\bpost codes?\b|\bquid\b|\bNHS\b", re.IGNORECASE)


def detect_language(text: str) -> str:
    """``ru`` when at least half of the letters are Cyrillic, else ``en``."""
    counts = [(code, len(pattern.findall(text))) for code, pattern in _SCRIPTS]
    total = sum(n for _, n in counts)
    if total:
        for code, n in counts[1:]:
            if n / total >= _SCRIPT_SHARE:
                return code
    return counts[0][0]


def detect_locale(text: str, language: str) -> str:
    """The country formats a prompt's callers use: ``en-GB``, ``en-US`` or ``ru-RU``."""
    if language == "ru":
        return "ru-RU"
    return "en-GB" if _GB_CUES.search(text) else "en-US"
