"""Production shape on this machine: a Prefect server on Postgres, a process work pool with two
workers, the deployments applied from this checkout, `polygon serve` receiving signed webhooks,
results in Postgres and reports in S3 (moto's server). Everything it starts, it stops.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import PG_ADMIN_URL, REPO, _postgres_available

pytestmark = [pytest.mark.integration, pytest.mark.postgres]

BIN = Path(sys.executable).parent
SECRET = "integration-webhook-secret"
POOL = "polygon-it"
SUITE = "polygon_core/demo/suite"
AGENT_V1 = "polygon_core/demo/agents/agent_v1.yaml"
AGENT_V2 = "polygon_core/demo/agents/agent_v2.yaml"
SWEEP = "polygon_core/demo/sweeps/noise.yaml"
BUCKET = "polygon-it"
FAKE_AWS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
            "AWS_SESSION_TOKEN": "testing", "AWS_DEFAULT_REGION": "us-east-1"}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait(what: str, check: Callable[[], Any], timeout: float, procs: list[subprocess.Popen[bytes]] = (),
          logs: list[Path] = ()) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for proc in procs:
            if proc.poll() is not None:
                raise AssertionError(f"{what}: process {proc.args[:3]} exited ({proc.returncode})\n"
                                     + "\n".join(p.read_text()[-3000:] for p in logs))
        try:
            value = check()
        except Exception:
            value = None
        if value:
            return value
        time.sleep(0.5)
    raise AssertionError(f"timed out waiting for {what}\n" + "\n".join(p.read_text()[-3000:] for p in logs))


@contextmanager
def _database(prefix: str) -> Iterator[str]:
    import psycopg

    name = f"{prefix}_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield name
    finally:
        with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextmanager
def _process(args: list[str], env: dict[str, str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """A child in its own process group; on exit the whole group is stopped (TERM, then KILL)."""
    with log.open("wb") as out:
        proc = subprocess.Popen(args, env=env, cwd=REPO, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
    try:
        yield proc
    finally:
        _stop_group(proc)


def _stop_group(proc: subprocess.Popen[bytes]) -> None:
    """TERM the child's process group, then KILL it, and wait until no process of the group is left
    (a worker's own child process can outlive it by a moment and still talk to the server)."""
    for sig, grace in ((signal.SIGTERM, 10), (signal.SIGKILL, 5)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=grace)
        if _group_gone(proc.pid, grace):
            break


def _group_gone(pgid: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    return False


@contextmanager
def _moto() -> Iterator[str]:
    from moto.server import ThreadedMotoServer

    port = _free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.stop()


def _signed(body: dict[str, Any], secret: str, delivery: str) -> dict[str, Any]:
    from polygon.web import sign

    raw = json.dumps(body).encode()
    return {"content": raw, "headers": {"Content-Type": "application/json", "X-Polygon-Delivery": delivery,
                                        "X-Hub-Signature-256": sign(secret, raw)}}


def _seed_previous_version(settings: Any) -> str:
    """A complete run of agent v1 (the version before the commit), made with the pipeline directly."""
    from polygon.tasks import new_version_run_task

    from polygon import usecases

    stores = usecases.open_stores(settings)
    suite, agent = str(REPO / SUITE), str(REPO / AGENT_V1)
    run = new_version_run_task.fn("it-v1", suite, agent, [0], None)
    usecases.create_run(stores, run, suite_path=suite, agent_path=agent)
    for scenario_id, seed in usecases.plan_conversations(suite, [0]):
        cid = usecases.simulate(stores, run.id, suite, agent, scenario_id, seed)
        usecases.judge(stores, run.id, cid, suite_path=suite, agent_path=agent, rubric_version="v1")
        usecases.probe(stores, run.id, cid, suite_path=suite, agent_path=agent)
    usecases.finish_run(stores, run.id)
    return run.id


def test_prompt_commit_webhook_reevaluates_on_a_worker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if not _postgres_available():
        pytest.skip("PostgreSQL is not reachable on 127.0.0.1:5432")
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import (
        ArtifactFilter,
        ArtifactFilterFlowRunId,
        DeploymentFilter,
        FlowRunFilter,
        FlowRunFilterParentFlowRunId,
        TaskRunFilter,
        TaskRunFilterFlowRunId,
    )
    from prefect.settings import PREFECT_API_URL, temporary_settings

    from polygon import usecases
    from polygon_core._hashing import content_hash
    from polygon_core.adapters.settings import load_settings
    from polygon_core.adapters.storage import Repository
    from polygon_core.files import load_agent

    with ExitStack() as stack:
        prefect_db = stack.enter_context(_database("prefect_it"))
        polygon_db = stack.enter_context(_database("polygon_it"))
        s3 = stack.enter_context(_moto())
        for key, value in FAKE_AWS.items():
            monkeypatch.setenv(key, value)
        import boto3

        boto3.client("s3", endpoint_url=s3).create_bucket(Bucket=BUCKET)
        polygon_url = f"postgresql+psycopg://postgres@127.0.0.1:5432/{polygon_db}"
        Repository(polygon_url).upgrade()
        settings = load_settings(database_url=polygon_url, artifacts_url=f"s3://{BUCKET}/polygon",
                                 s3_endpoint_url=s3, home=tmp_path / "home")
        previous = _seed_previous_version(settings)

        api_port, web_port = _free_port(), _free_port()
        api = f"http://127.0.0.1:{api_port}/api"
        base = {k: v for k, v in os.environ.items()
                if not k.startswith(("PREFECT_", "POLYGON_", "AWS_"))}
        base.update({"PREFECT_HOME": str(tmp_path / "prefect-home"), "DO_NOT_TRACK": "1",
                     "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "PREFECT_UI_ENABLED": "false",
                     "PREFECT_LOGGING_LEVEL": "INFO", "PREFECT_SERVER_LOGGING_LEVEL": "WARNING"})
        server_env = {**base, "PREFECT_API_DATABASE_CONNECTION_URL":
                      f"postgresql+asyncpg://postgres@127.0.0.1:5432/{prefect_db}"}
        client_env = {**base, "PREFECT_API_URL": api}
        worker_env = {**client_env, **FAKE_AWS, "PREFECT_WORKER_QUERY_SECONDS": "1",
                      "POLYGON_DATABASE_URL": polygon_url, "POLYGON_ARTIFACTS_URL": f"s3://{BUCKET}/polygon",
                      "POLYGON_S3_ENDPOINT_URL": s3, "POLYGON_HOME": str(tmp_path / "home")}
        logs = tmp_path / "logs"
        logs.mkdir()
        server = stack.enter_context(_process(
            [str(BIN / "prefect"), "server", "start", "--host", "127.0.0.1", "--port", str(api_port)],
            server_env, logs / "server.log"))
        _wait("the Prefect server", lambda: httpx.get(f"{api}/health", timeout=2).status_code == 200,
              180, [server], [logs / "server.log"])
        stack.enter_context(temporary_settings(updates={PREFECT_API_URL: api}))
        subprocess.run([str(BIN / "prefect"), "work-pool", "create", POOL, "--type", "process"],
                       env=client_env, cwd=REPO, check=True, capture_output=True, timeout=120)
        deployed = subprocess.run([str(BIN / "python"), "deployments/deploy.py", "--pool", POOL,
                                   "--suite", SUITE, "--seeds", "0",
                                   "--production-source", "production-calls"],
                                  env=client_env, cwd=REPO, capture_output=True, text=True, timeout=180,
                                  check=False)
        assert deployed.returncode == 0, deployed.stderr[-3000:]
        names = {line.split("\t")[0] for line in deployed.stdout.splitlines() if "\t" in line}
        assert "reevaluate-on-prompt-commit" in names
        workers = [stack.enter_context(_process(
            [str(BIN / "prefect"), "worker", "start", "--pool", POOL, "--type", "process", "--name", f"w{i}"],
            worker_env, logs / f"worker{i}.log")) for i in (1, 2)]
        web = stack.enter_context(_process(
            [str(BIN / "polygon"), "serve", "--port", str(web_port)],
            # The receiver's delivery ledger is the shared Polygon database, as in production (and
            # never a .polygon folder in the checkout, where an earlier run's ids would answer 409).
            {**client_env, "POLYGON_WEBHOOK_SECRET": SECRET, "POLYGON_DATABASE_URL": polygon_url,
             "POLYGON_HOME": str(tmp_path / "web-home")}, logs / "web.log"))
        hook = f"http://127.0.0.1:{web_port}/webhooks/prompt-commit"
        every_log = [logs / n for n in ("server.log", "worker1.log", "worker2.log", "web.log")]
        _wait("polygon serve", lambda: httpx.get(f"http://127.0.0.1:{web_port}/healthz").status_code == 200,
              60, [web], every_log)

        with get_client(sync_client=True) as client:
            _wait("two online workers", lambda: len([w for w in client.read_workers_for_work_pool(POOL)
                                                     if w.status == "ONLINE"]) == 2,
                  90, [*workers, server], every_log)
            deployment = client.read_deployment_by_name("reevaluate-on-prompt-commit/reevaluate-on-prompt-commit")

            # A forged request is refused and starts nothing.
            payload = {"agent_path": AGENT_V2, "suite_path": SUITE,
                       "prompt_hash": content_hash(load_agent(REPO / AGENT_V2).prompt_text)}
            forged = httpx.post(hook, **_signed(payload, "not-the-secret", "forged-1"))
            assert forged.status_code == 401
            accepted = httpx.post(hook, **_signed(payload, SECRET, "delivery-1"))
            assert accepted.status_code == 202, accepted.text
            assert httpx.post(hook, **_signed(payload, SECRET, "delivery-1")).status_code == 409
            # A signed sweep request, at the same time: the second worker takes it.
            sweep_hook = f"http://127.0.0.1:{web_port}/webhooks/sweep"
            swept = httpx.post(sweep_hook, **_signed({"spec_path": SWEEP}, SECRET, "sweep-1"))
            assert swept.status_code == 202, swept.text
            sweep_deployment = client.read_deployment_by_name("run-sweep/sweep")

            def runs_of(dep_id: Any) -> list[Any]:
                return client.read_flow_runs(deployment_filter=DeploymentFilter(id={"any_": [dep_id]}))

            def finished() -> Any:
                found = runs_of(deployment.id)
                return found if found and all(r.state.is_final() for r in found) else None

            flow_runs = _wait("the re-evaluation flow run", finished, 300, [*workers, server], every_log)
            sweep_runs = _wait("the sweep flow run", lambda: [r for r in runs_of(sweep_deployment.id)
                                                             if r.state.is_final()], 300,
                               [*workers, server], every_log)
            assert [r.state.type.value for r in sweep_runs] == ["COMPLETED"], sweep_runs[0].state
            assert sweep_runs[0].parameters == {"spec_path": SWEEP}
            assert len(flow_runs) == 1, [r.name for r in flow_runs]  # the forged and replayed ones: none
            top = flow_runs[0]
            assert top.state.is_completed(), (top.state, *(p.read_text()[-4000:] for p in every_log))
            assert top.name == f"reevaluate agent_v2 prompt={payload['prompt_hash'][:16]}"
            assert top.parameters["agent_path"] == AGENT_V2 and top.parameters["previous_run_id"] == ""
            assert "polygon" in top.tags and "reevaluation" in top.tags

            # Results in Postgres, report in S3.
            stores = usecases.open_stores(settings)
            new_runs = [r for r in stores.repo.list_runs(limit=None) if r.id.startswith("reeval-")]
            assert len(new_runs) == 1
            run = new_runs[0]
            assert (run.status, run.agent_name, len(stores.repo.conversation_ids(run.id))) == (
                "complete", "northwind-billing", 6)
            report_uri = stores.repo.get_run_report_uri(run.id)
            assert report_uri == f"s3://{BUCKET}/polygon/reports/{run.id}/reevaluation.md"
            report = boto3.client("s3", endpoint_url=s3).get_object(
                Bucket=BUCKET, Key=f"polygon/reports/{run.id}/reevaluation.md")["Body"].read().decode()
            assert f"- **compared with**: {previous}" in report
            assert "# Re-evaluation on prompt commit" in report

            # Names, tags and artifacts, as an operator sees them through the Prefect API.
            children = client.read_flow_runs(flow_run_filter=FlowRunFilter(
                parent_flow_run_id=FlowRunFilterParentFlowRunId(any_=[top.id])))
            evaluate = [c for c in children if c.name.startswith("evaluate suite: ")]
            assert [c.name for c in evaluate] == [f"evaluate suite: northwind-billing@{run.agent_version[:8]}"]
            assert "agent:northwind-billing" in evaluate[0].tags
            task_runs = client.read_task_runs(task_run_filter=TaskRunFilter(
                flow_run_id=TaskRunFilterFlowRunId(any_=[evaluate[0].id])))
            # One task per conversation simulates, judges and probes it (named like the old simulate task).
            simulated = sorted(t.name for t in task_runs if t.name.startswith("evaluate "))
            assert "evaluate billing-dispute-v3 seed=0 agent=northwind-billing" in simulated
            assert len(simulated) == 6
            artifacts = client.read_artifacts(artifact_filter=ArtifactFilter(
                flow_run_id=ArtifactFilterFlowRunId(any_=[top.id, evaluate[0].id])))
            kinds = {(a.type, a.key) for a in artifacts}
            assert ("progress", None) in kinds
            assert all(a.data == 100.0 for a in artifacts if a.type == "progress")
            slug = "".join(ch if ch.isalnum() else "-" for ch in run.id.lower())
            assert ("table", f"scorecard-{slug}") in kinds
            assert ("markdown", f"reevaluation-{slug}") in kinds

            _interrupt_and_rerun(client, deployment.id, stores, workers, logs, every_log)

            # The weekly schedule is registered: Monday 06:00 UTC, the last seven days.
            weekly = client.read_deployment_by_name("weekly-production-grading/weekly-production-grading")
            assert [(s.schedule.cron, s.schedule.timezone, s.active) for s in weekly.schedules] == [
                ("0 6 * * 1", "UTC", True)]
            assert weekly.parameters == {"source": "production-calls", "days": 7}


def _interrupt_and_rerun(client: Any, deployment_id: Any, stores: Any,
                         workers: list[subprocess.Popen[bytes]], logs: Path, every_log: list[Path]) -> None:
    """Stop the worker (and kill the flow-run process) mid-run, re-run the flow run through the API:
    the other worker resumes it, with no conversation lost or duplicated."""
    from prefect.states import Scheduled

    seeds = list(range(8))
    flow_run = client.create_flow_run_from_deployment(deployment_id, parameters={
        "agent_path": AGENT_V2, "prompt_hash": "resume-test", "suite_path": SUITE, "seeds": seeds})
    run_id = f"reeval-resume-test-{str(flow_run.id)[:8]}"
    expected = 6 * len(seeds)
    _wait("the first conversations", lambda: len(stores.repo.conversation_ids(run_id)) >= 3, 240,
          workers, every_log)
    running = client.read_flow_run(flow_run.id)
    pid = int(str(running.infrastructure_pid).rsplit(":", 1)[-1])
    # The owner is the worker whose flow-run process began the run: both workers log "submitting
    # flow run <id>" (the loser is told to abort), but only the owner's child logs its beginning.
    began = f"Beginning flow run '{running.name}'"
    def owners() -> list[subprocess.Popen[bytes]]:
        return [w for w, log in zip(workers, (logs / "worker1.log", logs / "worker2.log"), strict=True)
                if began in log.read_text()]

    owner = _wait("the owner's log", lambda: len(found := owners()) == 1 and found[0], 30, workers, every_log)
    os.kill(pid, signal.SIGKILL)  # the flow-run process, started by our worker in its own session
    # Stop the owner and wait until none of its processes is left: a worker reports its child's
    # crash twice (runner and worker, seconds apart), and a late report would land on top of the
    # rescheduled run. With the owner gone, nothing else can write this run's state.
    _stop_group(owner)
    before = stores.repo.conversation_ids(run_id)
    assert 3 <= len(before) < expected
    survivor = next(w for w in workers if w is not owner)
    client.set_flow_run_state(flow_run.id, Scheduled(), force=True)
    rescheduled = client.read_flow_run(flow_run.id).state.timestamp
    done = _wait("the re-run", lambda: (r := client.read_flow_run(flow_run.id)).state.is_final()
                 and r.state.timestamp > rescheduled and r, 300, [survivor], every_log)
    assert done.state.is_completed(), done.state
    after = stores.repo.conversation_ids(run_id)
    assert len(after) == expected and before <= after
    assert len(stores.repo.list_conversations(run_id)) == expected          # nothing duplicated
    assert len(stores.repo.judgments(run_id, "v1")) == expected
    assert stores.repo.get_run(run_id, exact=True).status == "complete"

