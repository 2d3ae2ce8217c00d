"""The interaction panel of runs of calls, in words: one row per call metric, one cell per scorecard.

Every rendering (terminal, Markdown, HTML, JUnit properties) reads these, so they never disagree.
A run with no call has an empty panel (`Scorecard.voice`) and shows nothing: no empty table.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..compare import Scorecard
from ..voice import ALL_CALL_METRICS, MetricSummary

PANEL_TITLE = "Interaction (calls)"
PANEL_CAPTION = "each cell: mean over calls [95% interval] · calls with a value · events"

# Seconds for the latencies, silences and time to audio; the rest are shares (0–1, the
# interruption rate per caller turn can exceed 1).
_SECONDS = ("_latency", "_latency_p50", "_latency_p95", "time_to_first_audio", "longest_silence")


def metric_label(name: str) -> str:
    """`response_latency (s)`, `yield_rate`: the metric with its unit where it has one."""
    return f"{name} (s)" if name.endswith(_SECONDS) else name


def has_panel(cards: Sequence[Scorecard]) -> bool:
    """Whether any of the cards is of a run with calls (an interaction panel to show)."""
    return any(card.voice for card in cards)


def panel_cell(summary: MetricSummary | None, digits: int = 2) -> str:
    """`0.90 [0.70, 1.10] · 3 calls · 9 events`; `— · 0 calls` when no call measured it."""
    if summary is None or summary.mean is None:
        return "— · 0 calls"
    interval = "" if summary.low is None or summary.high is None else \
        f" [{summary.low:.{digits}f}, {summary.high:.{digits}f}]"
    return (f"{summary.mean:.{digits}f}{interval} · {summary.calls} call{'s' if summary.calls != 1 else ''} · "
            f"{summary.events} event{'s' if summary.events != 1 else ''}")


def panel_rows(cards: Sequence[Scorecard], digits: int = 2) -> list[tuple[str, list[str]]]:
    """(metric label, a cell per card) for every call metric, in `ALL_CALL_METRICS`' order; none
    when no card is of a run with calls. A card of a text run reads `—` in every row."""
    if not has_panel(cards):
        return []
    return [(metric_label(name), [panel_cell(card.voice.get(name), digits) if card.voice else "—" for card in cards])
            for name in ALL_CALL_METRICS]
