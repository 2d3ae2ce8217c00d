"""Calibration of a judge against people's ratings: labels, statistics, the fitting contract.

Pure: no Prefect, database, network, clock or environment (tests/test_layers.py).
"""

from ._types import OVERALL, LabelledConversation

__all__ = ["OVERALL", "LabelledConversation"]
