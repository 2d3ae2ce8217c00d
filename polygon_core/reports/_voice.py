"""The interaction panel of runs of calls, in words: one row per call metric, one cell per scorecard,
and under it what the calls were made with (`stack_lines`).

Every rendering (terminal, Markdown, HTML, JUnit properties) reads these, so they never disagree.
A run with no call has an empty panel (`Scorecard.voice`) and shows nothing: no empty table.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..compare import Scorecard
from ..voice import ALL_CALL_METRICS, MetricSummary

PANEL_TITLE = "Interaction (calls)"
PANEL_CAPTION = "each cell: mean over calls [95% interval] · calls with a value · events"

# How `stack_line` names each key of `Scorecard.voice_stack` (`CALL_STACK_KEYS`); another key by its own name.
STACK_LABELS = {"caller_voice": "caller", "agent_voice": "agent voice", "agent_ears": "ears", "vad": "vad",
                "conditions": "line", "cascade": "cascade"}
STACK_NOT_RECORDED = "not recorded (calls stored before Polygon kept their speech stack)"

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


def stack_items(card: Scorecard) -> list[tuple[str, str]]:
    """(key, value) of what the card's calls were made with (`Scorecard.voice_stack`), in its order;
    none for a run with no call or whose calls were stored before it was kept."""
    return list(card.voice_stack.items()) if card.voice else []


def stack_text(card: Scorecard) -> str:
    """`caller espeak:espeak-ng 1.52.0 · … · line phone@0.5 · cascade yields, barge-in 600 ms, endpoint
    600 ms`: what the card's calls were made with; '' for a run with no call."""
    if not card.voice:
        return ""
    items = stack_items(card)
    if not items:
        return STACK_NOT_RECORDED
    return " · ".join(f"{STACK_LABELS.get(key, key)} {value}" for key, value in items)


def stack_line(card: Scorecard) -> str:
    """`made with: ` and `stack_text`: the line under the card's panel; '' for a run with no call."""
    text = stack_text(card)
    return f"made with: {text}" if text else ""


def stack_lines(cards: Sequence[Scorecard]) -> list[str]:
    """The lines under a panel of `cards`: one `stack_line` when every card of a run of calls was made
    the same way, else one per such card led by its label (`billing@v2 made with: …`); none when no
    card is of a run with calls."""
    shown = [(card.label, line) for card in cards if (line := stack_line(card))]
    if len({line for _, line in shown}) <= 1:
        return [line for _, line in shown[:1]]
    return [f"{label} {line}" for label, line in shown]
