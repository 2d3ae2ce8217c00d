"""Simulated callers."""

from ._offline import FACT_CUES, OfflineCaller
from ._phrases import FACT_CUES_RU, phrases_for

__all__ = ["FACT_CUES", "FACT_CUES_RU", "OfflineCaller", "phrases_for"]
