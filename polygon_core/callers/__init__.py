"""Simulated callers."""

from ._asking import asked_for
from ._offline import FACT_CUES, OfflineCaller
from ._phrases import FACT_CUES_RU, phrases_for

__all__ = ["FACT_CUES", "FACT_CUES_RU", "OfflineCaller", "asked_for", "phrases_for"]
