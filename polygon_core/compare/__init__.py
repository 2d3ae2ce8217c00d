"""Comparing conversations and runs.

`divergence_point` finds the first turn where two conversations part (docs/design.md, "Divergence point")
and `consequential_divergence` the first where they act differently; scorecards summarise a
configuration (with pass^k and its noise floor); the scenario matrix orders scenarios by spread;
`paired_difference` labels a difference better, worse, within noise or no pairs; `systematic_summary` and
`template_prose` write the analysis; `compare_configurations` assembles all of it.
"""

from ._analysis import (
    model_prose,
    prose_numbers,
    systematic_summary,
    template_prose,
    unsupported_numbers,
)
from ._comparison import (
    CALL_METRIC_PREFIX,
    GATING_CALL_METRICS,
    CiVerdict,
    Comparison,
    ComparisonRefused,
    ConfigurationResults,
    DivergenceSet,
    PairCount,
    ProbeComparison,
    ci_verdict,
    compare_configurations,
    compare_probes,
    config_key,
    pair_count,
)
from ._divergence import Divergence, divergence_point
from ._facts import ConversationFacts, agent_seconds, facts_of
from ._matrix import MatrixCell, MatrixRow, scenario_matrix
from ._noise import (
    Difference,
    NoiseFloor,
    call_metric,
    composite,
    criterion,
    label_difference,
    noise_floor,
    paired_bootstrap,
    paired_difference,
)
from ._pairs import PairDivergence, consequential_divergence, pair_divergence, pair_divergences
from ._passk import pass_hat_k, pass_hat_k_by_seed
from ._scorecard import (
    NOT_RECORDED,
    ProbeRate,
    ResultRow,
    Scorecard,
    bootstrap_ci,
    build_scorecard,
    call_stack,
    criterion_cell,
    criterion_means,
    interaction_panel,
    probe_rates,
)

__all__ = [
    "CALL_METRIC_PREFIX",
    "GATING_CALL_METRICS",
    "NOT_RECORDED",
    "CiVerdict",
    "Comparison",
    "ComparisonRefused",
    "ConfigurationResults",
    "ConversationFacts",
    "Difference",
    "Divergence",
    "DivergenceSet",
    "MatrixCell",
    "MatrixRow",
    "NoiseFloor",
    "PairCount",
    "PairDivergence",
    "ProbeComparison",
    "ProbeRate",
    "ResultRow",
    "Scorecard",
    "agent_seconds",
    "bootstrap_ci",
    "build_scorecard",
    "call_metric",
    "call_stack",
    "ci_verdict",
    "compare_configurations",
    "compare_probes",
    "composite",
    "config_key",
    "consequential_divergence",
    "criterion",
    "criterion_cell",
    "criterion_means",
    "divergence_point",
    "facts_of",
    "interaction_panel",
    "label_difference",
    "model_prose",
    "noise_floor",
    "pair_count",
    "pair_divergence",
    "pair_divergences",
    "paired_bootstrap",
    "paired_difference",
    "pass_hat_k",
    "pass_hat_k_by_seed",
    "probe_rates",
    "prose_numbers",
    "scenario_matrix",
    "systematic_summary",
    "template_prose",
    "unsupported_numbers",
]
