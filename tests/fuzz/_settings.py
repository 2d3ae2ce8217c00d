"""Shared hypothesis settings: bounded, so the whole fuzz set stays within about a minute on 2 cores.

`POLYGON_FUZZ_EXAMPLES` scales every target's example count (e.g. 20 for a longer local session);
the deadline is generous because CI machines are shared, so only a real hang fails on time.
"""

from __future__ import annotations

import os
from datetime import timedelta

from hypothesis import HealthCheck, settings

_SCALE = float(os.environ.get("POLYGON_FUZZ_EXAMPLES", "1"))


def fuzz(examples: int) -> settings:
    """Settings for one fuzz target: `examples` inputs, a 3 s deadline each, no example database."""
    return settings(
        max_examples=max(1, int(examples * _SCALE)),
        deadline=timedelta(seconds=3),
        database=None,  # nothing written into the checkout; a failure prints its reproducer
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                               HealthCheck.data_too_large],
    )
