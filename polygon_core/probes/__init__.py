"""Behaviour probes: yes/no questions about one behaviour each, and their conformance rates.

Probes run in their own pass and never touch the composite or the verdict. A probe is compared
across runs only while its wording hash is equal; every rate carries a Wilson 95% interval. A
probe's `signal` names its offline heuristic in `PROBE_SIGNALS` (a registry: `@probe_signal(name)` in
a `_signal*` module, or a `polygon.probe_signals` entry point).
"""

from ._library import (
    WORDING_HASH_LENGTH,
    Probe,
    ProbeLibrary,
    comparable,
    default_probes,
    load_probes,
    normalise_wording,
    parse_probe_answer,
    wording_hash,
)
from ._signal_registry import PROBE_SIGNALS, ProbeSignal, SignalAnswer, probe_signal
from ._stats import Conformance, Polarity, conformance, wilson_interval

__all__ = [
    "PROBE_SIGNALS",
    "WORDING_HASH_LENGTH",
    "Conformance",
    "Polarity",
    "Probe",
    "ProbeLibrary",
    "ProbeSignal",
    "SignalAnswer",
    "comparable",
    "conformance",
    "default_probes",
    "load_probes",
    "normalise_wording",
    "parse_probe_answer",
    "probe_signal",
    "wilson_interval",
    "wording_hash",
]
