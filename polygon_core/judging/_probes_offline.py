"""The offline heuristic probe answerer: each probe answered by its signal (`polygon_core.probes.PROBE_SIGNALS`)."""

from __future__ import annotations

from collections.abc import Sequence

from ..checks import Checks
from ..models import Conversation, ProbeAnswer
from ..probes import PROBE_SIGNALS, Probe

_NO_SIGNAL = "unanswered (no offline signal)"


def answer_probes_offline(conv: Conversation, checks: Checks, probes: Sequence[Probe]) -> list[ProbeAnswer]:
    """Answer each probe heuristically; a probe with no offline signal is recorded `unanswered`."""
    out: list[ProbeAnswer] = []
    for probe in probes:
        signal = PROBE_SIGNALS.get(probe.signal or probe.id)
        # A probe with no offline signal is recorded unanswered and says so (left out like na).
        answer, evidence = signal(conv, checks) if signal else ("unanswered", _NO_SIGNAL)
        out.append(ProbeAnswer(conversation_id=conv.id, probe_id=probe.id,
                               wording_hash=probe.wording_hash, polarity=probe.polarity,
                               answer=answer, evidence=evidence, answered_by="offline-heuristic"))  # type: ignore[arg-type]
    return out
