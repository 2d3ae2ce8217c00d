"""The names of the Prefect events Polygon emits and its deployments wait for, defined once.

The webhook app (`polygon.web`) emits them, the deployments (`polygon.deployments`) trigger on
them and the import flows announce with them; a name spelled twice could drift apart and a
deployment would then wait for an event nothing sends. Plain strings: nothing here imports Prefect.
"""

from __future__ import annotations

__all__ = ["CALLS_ARRIVED", "CALLS_IMPORTED", "PROMPT_COMMITTED", "SWEEP_REQUESTED"]

PROMPT_COMMITTED = "polygon.prompt.committed"  # a prompt file changed in a commit: re-evaluate
SWEEP_REQUESTED = "polygon.sweep.requested"  # run the sweep spec the payload names
CALLS_ARRIVED = "polygon.calls.arrived"  # a call (webhook) or S3 objects (notification) are waiting
CALLS_IMPORTED = "polygon.calls.imported"  # a source's batch of arrivals was imported (and graded)
