"""Voice calls, the pure part: the timeline, interaction metrics, line conditions, voices and the
call on a simulated clock. No I/O, no wall clock: engines come in through the Protocols here.
"""

from ._audio import Audio, Recognizer, Synthesizer, Transcript, VoiceActivity, Word
from ._metrics import (
    SELECTIVITY_RESPONSE_WINDOW_MS,
    SELECTIVITY_YIELD_WINDOW_MS,
    YIELD_WINDOW_MS,
    MetricSummary,
    assertion_values,
    interaction_metrics,
    normalise_words,
    summarise,
)
from ._metrics_names import (
    ALL_CALL_METRICS,
    CALL_METRICS,
    HIGHER_IS_BETTER,
    INTERACTION_METRICS,
    PERCENTILE_METRICS,
)
from ._timeline import TICK_MS, TIMELINE_FORMAT, EventKind, LineEvent, Segment, SegmentKind, Side, Timeline
from ._voices import VoiceProfile, agent_voice, caller_voice

__all__ = [
    "ALL_CALL_METRICS",
    "CALL_METRICS",
    "HIGHER_IS_BETTER",
    "INTERACTION_METRICS",
    "PERCENTILE_METRICS",
    "SELECTIVITY_RESPONSE_WINDOW_MS",
    "SELECTIVITY_YIELD_WINDOW_MS",
    "TICK_MS",
    "TIMELINE_FORMAT",
    "YIELD_WINDOW_MS",
    "Audio",
    "EventKind",
    "LineEvent",
    "MetricSummary",
    "Recognizer",
    "Segment",
    "SegmentKind",
    "Side",
    "Synthesizer",
    "Timeline",
    "Transcript",
    "VoiceActivity",
    "VoiceProfile",
    "Word",
    "agent_voice",
    "assertion_values",
    "caller_voice",
    "interaction_metrics",
    "normalise_words",
    "summarise",
]
