"""Simulated callers."""

from ._offline import FACT_CUES, OfflineCaller

__all__ = ["FACT_CUES", "OfflineCaller"]
