"""Plain (eagerly evaluated) helpers available in assertion expressions."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Mapping
from typing import Any

from .._hashing import canonical_json


def _normal_value(value: Any) -> Any:
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, Mapping):
        return {str(k): _normal_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_normal_value(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((_normal_value(v) for v in value), key=canonical_json)
    return value


def canonical(value: Any) -> str:
    """Canonical JSON of `value`, with 49.0 and 49 written alike and tuples as lists."""
    return canonical_json(_normal_value(value))


def same_set(a: Any, b: Any) -> bool:
    """True when two collections hold the same items regardless of order.

    Items are compared by canonical JSON, so lists of dicts work (key order and 49 vs 49.0 do not
    matter). Duplicates count: `[1, 1, 2]` and `[1, 2]` differ. `None` equals only `None` or an
    empty collection.
    """
    if a is None or b is None:
        return not a and not b
    if isinstance(a, (str, bytes)) or isinstance(b, (str, bytes)):
        raise TypeError("same_set compares lists, not strings")
    if isinstance(a, Mapping) or isinstance(b, Mapping):
        raise TypeError("same_set compares lists; compare mappings with ==")
    return Counter(canonical(x) for x in a) == Counter(canonical(x) for x in b)


def normalize_text(text: str) -> str:
    """Case- and Unicode-insensitive form of `text`, with runs of whitespace collapsed."""
    folded = unicodedata.normalize("NFKC", text).casefold().replace("ё", "е")
    return re.sub(r"\s+", " ", folded).strip()
