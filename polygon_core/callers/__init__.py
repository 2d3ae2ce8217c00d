"""Simulated callers."""

from ._asking import asked_for
from ._kinds import KINDS, OBJECT_KINDS
from ._matching import TRANSLIT, head_word
from ._offline import FACT_CUES, OfflineCaller
from ._phrases import FACT_CUES_RU, FACT_NAMES_RU, phrases_for

__all__ = ["FACT_CUES", "FACT_CUES_RU", "FACT_NAMES_RU", "KINDS", "OBJECT_KINDS", "TRANSLIT", "OfflineCaller", "asked_for", "head_word", "phrases_for"]
