"""Comparing conversations and runs.

`divergence_point` finds the first turn where two conversations part (DESIGN.md, "Divergence point");
scorecards summarise a configuration; the scenario matrix orders scenarios by spread.
"""

from ._divergence import Divergence, divergence_point
from ._matrix import MatrixCell, MatrixRow, scenario_matrix
from ._pairs import PairDivergence, pair_divergences
from ._scorecard import ProbeRate, ResultRow, Scorecard, bootstrap_ci, build_scorecard, probe_rates

__all__ = [
    "Divergence",
    "MatrixCell",
    "MatrixRow",
    "PairDivergence",
    "ProbeRate",
    "ResultRow",
    "Scorecard",
    "bootstrap_ci",
    "build_scorecard",
    "divergence_point",
    "pair_divergences",
    "probe_rates",
    "scenario_matrix",
]
