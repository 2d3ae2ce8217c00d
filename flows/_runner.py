"""Which Prefect task runner runs a suite's conversations: this process's threads, or a Dask cluster.

The flow goes by the task runner its run actually has (`on_cluster`). Everything that starts
`evaluate_suite` passes it the one `POLYGON_TASK_RUNNER` names (`task_runner`, with
`POLYGON_CONCURRENCY` threads), read in the process that starts it: `polygon run` and `polygon demo`
at the CLI's edge (`polygon/cli/_running.py`), and `run_sweep` (`polygon sweep`, the `sweep`
deployment) and the `reevaluate-on-prompt-commit` deployment in their own flow run, that is on the
worker that runs them, for each subflow they start (Prefect does not pass a parent's runner down to
a subflow, which would otherwise run with `evaluate_suite`'s declared ``ThreadPoolTaskRunner(8)``).
A bad value fails the command or flow run before any conversation, with `runner_kind`'s error.

* ``thread`` (default): Prefect's ThreadPoolTaskRunner; a run's conversations share one event loop
  in this process (`flows/_evaluate.py`).
* ``dask``: prefect-dask's DaskTaskRunner (the optional extra ``polygon-bench[dask]``). Each
  conversation is submitted as its own `evaluate-conversation` task to the cluster's worker
  processes: the cluster at ``POLYGON_DASK_ADDRESS`` (``tcp://scheduler:8786``), or, without one,
  a `distributed.LocalCluster` of ``POLYGON_DASK_WORKERS`` worker processes (default 2) started
  for each `evaluate_suite` run (a sweep: one per point it runs). Each worker opens the stores once
  (`tasks._stores`) from the same settings, so every worker writes to the same database and
  artifact store. Transcripts and scores are the same as with threads: a conversation depends only
  on its run, scenario and seed.

A direct call of `evaluate_suite` (no `with_options`: a test, a script) runs on its declared threads
whatever the variable says.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any

from prefect.task_runners import TaskRunner, ThreadPoolTaskRunner

from polygon import usecases
from polygon_core.adapters.settings import runner_variables

__all__ = ["RUNNERS", "on_cluster", "run_on_cluster", "runner_kind", "task_runner"]

RUNNERS = ("thread", "dask")


def runner_kind() -> str:
    """`POLYGON_TASK_RUNNER`: thread (default) or dask; anything else is a clear error."""
    kind = runner_variables().task_runner.lower() or "thread"
    if kind not in RUNNERS:
        raise ValueError(f"POLYGON_TASK_RUNNER={kind!r}: expected one of {', '.join(RUNNERS)}")
    return kind


def on_cluster() -> bool:
    """Whether the running flow's task runner is a Dask one: its conversations then go to the cluster
    (one submitted task each) rather than onto one event loop under the concurrency limit.

    Decided by the runner the flow run actually has, not by `POLYGON_TASK_RUNNER`: a deployment
    runs the flow with the runner its code declares, whatever that variable says where it runs.
    """
    from prefect.context import FlowRunContext

    context = FlowRunContext.get()
    # Not imported here (distributed is heavy): a DaskTaskRunner exists only once prefect_dask is.
    dask = sys.modules.get("prefect_dask.task_runners")
    return context is not None and dask is not None and isinstance(context.task_runner, dask.DaskTaskRunner)


def task_runner(concurrency: int) -> TaskRunner[Any]:
    """The task runner `POLYGON_TASK_RUNNER` names (threads: `concurrency` of them)."""
    if runner_kind() != "dask":
        return ThreadPoolTaskRunner(max_workers=concurrency)
    try:
        from prefect_dask import DaskTaskRunner
    except ImportError:
        raise ValueError("POLYGON_TASK_RUNNER=dask needs prefect-dask and distributed: "
                         "pip install 'polygon-bench[dask]'") from None
    variables = runner_variables()
    if variables.dask_address:
        return DaskTaskRunner(address=variables.dask_address)
    raw = variables.dask_workers or "2"
    if not raw.isdigit() or int(raw) < 1:
        raise ValueError(f"POLYGON_DASK_WORKERS={raw!r}: expected a whole number of worker processes, 1 or more")
    return DaskTaskRunner(cluster_class="distributed.LocalCluster",
                          cluster_kwargs={"n_workers": int(raw), "processes": True, "threads_per_worker": 1,
                                          "dashboard_address": None})


def run_on_cluster(task: Any, run_id: str, plan: Sequence[tuple[str, int]], done: Callable[[Any], None],
                   **options: Any) -> tuple[list[Any], usecases.InFlight]:
    """Submit one `task` per (scenario, seed) to the flow's task runner and wait for all of them.

    Results come back in plan order; a conversation that failed after its retries fails the flow,
    as on the thread runner. `InFlight.peak` is what was submitted at once (the cluster decides
    how many of those its workers run together).
    """
    futures = [task.submit(run_id, scenario_id, seed, **options)
               for scenario_id, seed in plan]
    flight = usecases.InFlight(limit=len(futures), peak=len(futures))
    results = []
    for future in futures:
        result = future.result()  # raises the task's own error once its retries are spent
        done(result)
        results.append(result)
    return results, flight
