"""The names of a call's interaction metrics, as results, JSON and assertions use them."""

from __future__ import annotations

# tau-voice's interaction panel (docs/voice.md, "Metrics"); `*_latency` in seconds, the rest ratios.
INTERACTION_METRICS: tuple[str, ...] = (
    "response_latency", "yield_latency", "response_rate", "yield_rate", "agent_interruption_rate",
    "selectivity_backchannel", "selectivity_vocal_tic", "selectivity_non_directed",
)
# The call's other numbers: seconds, seconds, and a ratio of words.
CALL_METRICS: tuple[str, ...] = ("time_to_first_audio", "longest_silence", "word_error_rate")
# Percentiles an assertion can name, e.g. `response_latency_p95 < 1.5`.
PERCENTILE_METRICS: tuple[str, ...] = ("response_latency_p50", "response_latency_p95",
                                       "yield_latency_p50", "yield_latency_p95")
# Which way is better, for `compare` (True: higher is better).
HIGHER_IS_BETTER: dict[str, bool] = {
    "response_latency": False, "yield_latency": False, "response_rate": True, "yield_rate": True,
    "agent_interruption_rate": False, "selectivity_backchannel": True, "selectivity_vocal_tic": True,
    "selectivity_non_directed": True, "time_to_first_audio": False, "longest_silence": False,
    "word_error_rate": False, "response_latency_p50": False, "response_latency_p95": False,
    "yield_latency_p50": False, "yield_latency_p95": False,
}
ALL_CALL_METRICS: tuple[str, ...] = INTERACTION_METRICS + CALL_METRICS + PERCENTILE_METRICS
