"""Transient write failures are retried as writes (never by re-running what produced them)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import exc as sa_exc

from polygon_core.adapters.storage import Repository
from polygon_core.adapters.storage._retry import is_transient, retry_write
from polygon_core.models import Run


def _locked() -> sa_exc.OperationalError:
    return sa_exc.OperationalError("INSERT ...", {}, sqlite3.OperationalError("database is locked"))


def test_transient_failures_are_told_apart() -> None:
    assert is_transient(_locked())
    assert not is_transient(sa_exc.OperationalError("x", {}, sqlite3.OperationalError("no such table: t")))
    assert not is_transient(ValueError("database is locked"))


def test_a_locked_write_is_retried_until_it_succeeds() -> None:
    calls: list[int] = []

    @retry_write
    def write() -> str:
        calls.append(1)
        if len(calls) < 3:
            raise _locked()
        return "stored"

    assert write() == "stored"
    assert len(calls) == 3


def test_a_permanent_failure_is_raised_at_once() -> None:
    calls: list[int] = []

    @retry_write
    def write() -> None:
        calls.append(1)
        raise sa_exc.IntegrityError("INSERT ...", {}, sqlite3.IntegrityError("UNIQUE constraint failed"))

    with pytest.raises(sa_exc.IntegrityError):
        write()
    assert len(calls) == 1


def test_repository_writes_wait_out_another_writer(tmp_path: Path) -> None:
    """A write that meets a lock held by another connection succeeds once the lock is released."""
    import threading

    url = f"sqlite:///{tmp_path / 'p.db'}"
    with Repository(url) as repo:
        repo.upgrade()
        holder = sqlite3.connect(tmp_path / "p.db", timeout=0, isolation_level=None, check_same_thread=False)
        holder.execute("BEGIN EXCLUSIVE")
        release = threading.Timer(1.0, lambda: holder.execute("COMMIT"))
        release.start()
        repo.save_run(Run(id="r", suite="s", agent_name="a", agent_version="v", rubric_version="v1", seeds=[0]))
        release.join()
        holder.close()
        stored = repo.get_run("r", exact=True)
    assert stored is not None and stored.id == "r"


CALLS: list[int] = []


def counting_agent(request):  # type: ignore[no-untyped-def]
    """The script agent, counting how often it is asked to act."""
    from tests.engine.script_agent import script_agent

    CALLS.append(request.turn)
    return script_agent(request)


def test_a_conversation_whose_row_failed_to_write_is_written_not_simulated_again(
        polygon_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from polygon import usecases
    from polygon_core.demo import demo_dir

    suite = str(demo_dir() / "suite")
    agent = tmp_path / "agent.yaml"
    agent.write_text("name: counted\nprompt: Help.\ncallable: tests.adapters.test_write_retry:counting_agent\n",
                     encoding="utf-8")
    stores = usecases.open_stores()
    _c, _p, version = usecases.agent_identity(str(agent), suite)
    run = Run(id="w", suite="demo", agent_name="counted", agent_version=version, rubric_version="v1", seeds=[0])
    usecases.create_run(stores, run, suite_path=suite, agent_path=str(agent))
    (scenario_id, seed), *_ = usecases.plan_conversations(suite, [0])

    def broken(*args: object, **kwargs: object) -> None:
        raise sa_exc.IntegrityError("INSERT ...", {}, sqlite3.IntegrityError("disk I/O error"))

    original = stores.repo.save_conversation
    monkeypatch.setattr(stores.repo, "save_conversation", broken)
    with pytest.raises(sa_exc.IntegrityError):
        usecases.simulate(stores, run.id, suite, str(agent), scenario_id, seed)
    acted = len(CALLS)
    assert acted > 0 and not stores.repo.conversation_ids(run.id)
    monkeypatch.setattr(stores.repo, "save_conversation", original)
    cid = usecases.simulate(stores, run.id, suite, str(agent), scenario_id, seed)  # the task's retry
    assert len(CALLS) == acted  # the agent was not asked again
    assert stores.repo.conversation_ids(run.id) == {cid}
    (rec,) = stores.repo.list_conversations(run.id)
    assert rec.turn_count == len(usecases.load_conversation(stores, run.id, cid).turns)
