"""Check digits of numbers worth redacting, shared by the written and the spoken readers."""

from __future__ import annotations

__all__ = ["luhn_valid"]


def luhn_valid(digits: str) -> bool:
    """The Luhn checksum of a digit string (card numbers carry one)."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0
