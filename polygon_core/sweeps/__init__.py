"""Parameter sweeps: specs, points as immutable profiles, token budgeting, the leaderboard."""

from ._budget import TokenEstimate, estimate_point, refuse_reason
from ._leaderboard import PointResult, early_stop, rank, summarise_point
from ._points import SameConfiguration, SweepPoint, distinct_points, expand_points
from ._spec import (
    AGENT_PARAMETERS,
    ALIASES,
    MAX_SWEEP_POINTS,
    PARAMETERS,
    WORLD_PARAMETERS,
    Parameter,
    Range,
    SweepSpec,
)

__all__ = [
    "AGENT_PARAMETERS",
    "ALIASES",
    "MAX_SWEEP_POINTS",
    "PARAMETERS",
    "WORLD_PARAMETERS",
    "Parameter",
    "PointResult",
    "Range",
    "SameConfiguration",
    "SweepPoint",
    "SweepSpec",
    "TokenEstimate",
    "distinct_points",
    "early_stop",
    "estimate_point",
    "expand_points",
    "rank",
    "refuse_reason",
    "summarise_point",
]
