"""The probe-signal registry: a name a probe's `signal` may take → the offline heuristic answering it.

A signal is a function of a conversation and its checks returning an answer (`yes`, `no`, `na`)
and its evidence quote, registered with `@probe_signal(name)` in a `_signal*` module of this package
(the built-ins are in `_signals.py`) or in a module named by a `polygon.probe_signals` entry point.
`load_probes` refuses a signal not registered, the probe library's JSON Schema lists them, and the
offline answerer (`polygon_core.judging`'s `answer_probes_offline`) runs them.
"""

from __future__ import annotations

from collections.abc import Callable

from .._registry import Registry
from ..checks import Checks
from ..models import Conversation

__all__ = ["PLUGIN_GROUP", "PROBE_SIGNALS", "ProbeSignal", "SignalAnswer", "probe_signal"]

SignalAnswer = tuple[str, str | None]
"""An answer (`yes`, `no`, `na`) and its evidence quote, if any."""
ProbeSignal = Callable[[Conversation, Checks], SignalAnswer]
"""One offline heuristic: a conversation and its checks to a SignalAnswer."""

PLUGIN_GROUP = "polygon.probe_signals"

# Every `_signal*` module of this package is imported on the first lookup (the built-ins first), then
# the entry points: a new signal is one module, named by no list.
PROBE_SIGNALS: Registry[ProbeSignal] = Registry("probe signal", "polygon_core.probes", submodules="_signal",
                                                first=("_signals",), plugins=PLUGIN_GROUP)


def probe_signal(name: str) -> Callable[[ProbeSignal], ProbeSignal]:
    """Register the decorated function as the offline heuristic of probes whose `signal` is `name`."""
    return PROBE_SIGNALS.register(name)
