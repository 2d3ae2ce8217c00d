"""The stores every task works on: opened once per process (worker) and shared.

Settings are read at the edge, in whichever process runs the task; the database engine (and its
migration check), the artifact store and the one batched writer are made on the first call and
shared by every later task in any thread (`polygon.usecases.shared_stores`), so no task opens a
new connection pool of its own.
"""

from __future__ import annotations

from polygon import usecases

__all__ = ["task_stores"]


def task_stores() -> usecases.Stores:
    """The process's shared stores for the settings read now."""
    return usecases.shared_stores()
