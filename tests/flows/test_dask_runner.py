"""POLYGON_TASK_RUNNER=dask: a suite run on a two-process Dask cluster (prefect-dask's DaskTaskRunner
over distributed's LocalCluster) stores byte-identical transcripts and the same scores as the thread
runner, its conversations running in the cluster's worker processes; a flow whose runner is not
Dask's keeps one loop and its concurrency limit whatever the variable says."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from polygon.flows import runner_kind, task_runner
from typer.testing import CliRunner

from polygon.cli import app
from polygon_core.demo import demo_dir

pytest.importorskip("prefect_dask")
pytestmark = [pytest.mark.prefect, pytest.mark.usefixtures("prefect_harness")]
SUITE = demo_dir() / "suite"
V2 = demo_dir() / "agents" / "agent_v2.yaml"


ARGS = ["run", str(SUITE), "--agent", str(V2), "--seeds", "2", "--run-id", "same-run", "--json"]


def _run(home: Path, monkeypatch: pytest.MonkeyPatch, runner: str) -> tuple[dict[str, bytes], list[tuple]]:
    monkeypatch.setenv("POLYGON_HOME", str(home))
    monkeypatch.setenv("POLYGON_TASK_RUNNER", runner)
    if runner == "thread":
        result = CliRunner().invoke(app, ARGS)
        code, stdout, output = result.exit_code, result.stdout, result.output
    else:
        # The Dask run is its own `polygon` process, as a user runs it (and bounded: a cluster that
        # loses a task fails this test instead of stalling the suite).
        done = subprocess.run([sys.executable, "-c", "from polygon.cli import main; main()", *ARGS],
                              check=False, capture_output=True, text=True, timeout=600, env=dict(os.environ))
        code, stdout, output = done.returncode, done.stdout, done.stdout + done.stderr
    assert code in (0, 1), output  # v2 fires gates: exit 1 is its verdict, not a crash
    out = json.loads(stdout)
    assert out["runs"][0]["conversations"] == 12
    folder = home / "artifacts" / "runs" / "same-run" / "conversations"
    transcripts = {p.name: p.read_bytes() for p in sorted(folder.glob("*.json"))}
    from polygon import usecases

    stores = usecases.open_stores()
    scores = sorted((j.conversation_id, j.composite, j.verdict, tuple((c.criterion, c.score) for c in j.criteria),
                     tuple(g.gate for g in j.gates)) for j in stores.repo.judgments("same-run"))
    answers = sorted((a.conversation_id, a.probe_id, a.answer) for a in stores.repo.probe_answers("same-run"))
    stores.repo.close()
    return transcripts, [*scores, *answers]


@contextmanager
def _cluster() -> Iterator[Any]:
    """A two-process LocalCluster (what POLYGON_DASK_WORKERS=2 starts), and a client to ask it what ran.

    Started after the environment is set: its worker processes read their settings from it."""
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None) as local, \
            Client(local) as client:
        yield client


def test_two_process_dask_cluster_gives_the_thread_runners_transcripts_and_scores(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from distributed import get_task_stream

    for var in ("POLYGON_DATABASE_URL", "POLYGON_ARTIFACTS_URL", "POLYGON_DASK_ADDRESS"):
        monkeypatch.delenv(var, raising=False)
    threads = _run(tmp_path / "threads", monkeypatch, "thread")
    monkeypatch.setenv("POLYGON_HOME", str(tmp_path / "dask"))
    with _cluster() as client, get_task_stream(client=client) as stream:
        monkeypatch.setenv("POLYGON_DASK_ADDRESS", client.scheduler.address)
        dask = _run(tmp_path / "dask", monkeypatch, "dask")
        pids = client.run(os.getpid)  # worker address -> its process id
    assert len(threads[0]) == 12 and len(threads[1]) > 12  # 12 judgments and their probe answers
    assert dask[0] == threads[0]  # byte for byte, every transcript
    assert dask[1] == threads[1]  # every judgment (composite, verdict, criteria, gates) and probe answer
    # The conversations ran on the cluster: 12 tasks, in its two worker processes, not this one.
    ran = [t for t in stream.data if "evaluate" in str(t["key"])]
    assert len(ran) == 12 and len(pids) == 2
    assert {t["worker"] for t in ran} <= set(pids) and os.getpid() not in set(pids.values())


@pytest.mark.usefixtures("polygon_home")
def test_a_flow_with_a_thread_runner_keeps_its_loop_and_limit_whatever_the_variable_says(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # A deployment's flow runs with the runner its code declares (here the flow's own threads),
    # even where POLYGON_TASK_RUNNER=dask is set: its conversations stay on one loop, 2 at once.
    from polygon.flows import evaluate_suite

    from polygon import usecases

    monkeypatch.setenv("POLYGON_TASK_RUNNER", "dask")
    run = usecases.new_run(str(V2), str(SUITE), seeds=[0], run_id="threads-anyway")
    evaluate_suite(suite_path=str(SUITE), runs=[run], agent_paths=[str(V2)], concurrency=2)
    record = usecases.run_execution(usecases.open_stores(), run.id)
    assert record is not None
    assert (record["concurrency"], record["peak_in_flight"], record["conversations"]) == (2, 2, 6)


def test_the_runner_is_a_setting_and_a_bad_one_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from prefect.task_runners import ThreadPoolTaskRunner
    from prefect_dask import DaskTaskRunner

    monkeypatch.delenv("POLYGON_TASK_RUNNER", raising=False)
    assert runner_kind() == "thread" and isinstance(task_runner(3), ThreadPoolTaskRunner)
    monkeypatch.setenv("POLYGON_TASK_RUNNER", "dask")
    monkeypatch.setenv("POLYGON_DASK_ADDRESS", "tcp://127.0.0.1:8786")
    remote = task_runner(3)
    assert isinstance(remote, DaskTaskRunner) and remote.address == "tcp://127.0.0.1:8786"
    monkeypatch.delenv("POLYGON_DASK_ADDRESS")
    monkeypatch.setenv("POLYGON_DASK_WORKERS", "2")
    local = task_runner(3)
    assert isinstance(local, DaskTaskRunner) and local.cluster_class == "distributed.LocalCluster"
    assert local.cluster_kwargs == {"n_workers": 2, "processes": True, "threads_per_worker": 1,
                                    "dashboard_address": None}
    monkeypatch.setenv("POLYGON_TASK_RUNNER", "ray")
    with pytest.raises(ValueError, match=r"POLYGON_TASK_RUNNER='ray': expected one of thread, dask"):
        runner_kind()
