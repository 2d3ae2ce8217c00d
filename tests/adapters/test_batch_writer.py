"""One writer: conversation, judgment and probe writes from many threads committed in batches."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from polygon_core.adapters.storage import BatchedRepository, RunNotFoundError, ensure_database
from polygon_core.models import Judgment, ProbeAnswer, Run
from tests.adapters._storage_helpers import make_conversation

THREADS = 24


def _judgment(cid: str, composite: float) -> Judgment:
    return Judgment(conversation_id=cid, rubric_version="v1", judge_model="offline-heuristic",
                    composite=composite, verdict="pass")


def _answer(cid: str) -> ProbeAnswer:
    return ProbeAnswer(conversation_id=cid, probe_id="asked_for_account", wording_hash="h1",
                       polarity="wanted", answer="yes", evidence="turn 1", answered_by="offline-heuristic")


def _write_from_threads(repo: BatchedRepository, run_id: str) -> list[BaseException]:
    failures: list[BaseException] = []
    start = threading.Barrier(THREADS)

    def one(i: int) -> None:
        cid = f"c{i:02d}"
        try:
            start.wait()
            repo.save_conversation(run_id, make_conversation(cid, seed=i), artifact_uri=f"mem://{cid}",
                                   assertions=[])
            repo.save_judgment(run_id, _judgment(cid, i / 10))
            repo.save_probe_answers(run_id, [_answer(cid)])
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return failures


def _check_batched(url: str) -> None:
    inner = ensure_database(url)
    repo = BatchedRepository(inner)
    try:
        repo.save_run(Run(id="r", suite="s", agent_name="a", agent_version="v", rubric_version="v1", seeds=[0]))
        assert _write_from_threads(repo, "r") == []
        assert repo.writer.writes == 3 * THREADS
        assert repo.writer.batches < repo.writer.writes  # threads' writes met in shared transactions
        cids = [f"c{i:02d}" for i in range(THREADS)]
        assert sorted(repo.conversation_ids("r")) == cids
        judgments = repo.judgments("r")
        assert sorted((j.conversation_id, j.composite) for j in judgments) == [(c, i / 10) for i, c in enumerate(cids)]
        assert len(repo.probe_answers("r")) == THREADS
        # One conversation's stored results, by key (what a retried or resumed step reads).
        assert repo.judgment_of("r", "c03", "v1", "offline-heuristic").composite == 0.3  # type: ignore[union-attr]
        assert [a.conversation_id for a in repo.probe_answers_of("r", "c05")] == ["c05"]
    finally:
        repo.close()


def test_sqlite_writes_from_many_threads_are_committed_in_batches(tmp_path: Path) -> None:
    _check_batched(f"sqlite:///{tmp_path / 'p.db'}")


def test_postgres_writes_from_many_threads_are_committed_in_batches(postgres_url: str) -> None:
    from polygon_core.adapters.storage import Repository

    with Repository(postgres_url) as plain:
        plain.upgrade()
    _check_batched(postgres_url)


def _writers() -> int:
    return sum(t.name == "polygon-writer" and t.is_alive() for t in threading.enumerate())


def test_a_bad_write_fails_its_own_caller_and_no_other(tmp_path: Path) -> None:
    before = _writers()  # other tests' shared stores keep theirs
    repo = BatchedRepository(ensure_database(f"sqlite:///{tmp_path / 'p.db'}"))
    try:
        repo.save_run(Run(id="r", suite="s", agent_name="a", agent_version="v", rubric_version="v1", seeds=[0]))
        outcomes: dict[str, str] = {}
        start = threading.Barrier(2)

        def save(run_id: str, cid: str) -> None:
            start.wait()
            try:
                repo.save_judgment(run_id, _judgment(cid, 0.5))
                outcomes[cid] = "stored"
            except RunNotFoundError as exc:
                outcomes[cid] = str(exc)

        threads = [threading.Thread(target=save, args=args) for args in (("r", "good"), ("missing", "bad"))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert outcomes == {"good": "stored", "bad": "no run 'missing'; save the run before its results"}
        assert [j.conversation_id for j in repo.judgments("r")] == ["good"]
        with pytest.raises(ValueError, match="does not fit a signed 64-bit integer"):  # checked in the caller
            repo.save_conversation("r", make_conversation("huge", seed=2**63), artifact_uri="mem://x", assertions=[])
    finally:
        repo.close()
    assert _writers() == before  # closing the repository stopped its writer


def test_a_batch_failing_transiently_fails_every_caller_once_retried_as_a_batch(tmp_path: Path) -> None:
    from sqlalchemy import exc as sa_exc

    from polygon_core.adapters.storage._writer import BatchWriter

    repo = ensure_database(f"sqlite:///{tmp_path / 'p.db'}")
    writer = BatchWriter(repo)
    release, entered = threading.Event(), threading.Event()
    calls = {"locked": 0, "fine": 0}

    def hold(session: object) -> None:  # keeps the writer busy while the batch below is queued
        entered.set()
        release.wait(10)

    def locked(session: object) -> None:
        calls["locked"] += 1
        raise sa_exc.OperationalError("INSERT", {}, Exception("database is locked"))

    def fine(session: object) -> None:
        calls["fine"] += 1

    outcomes: list[str] = []

    def submit(write: object) -> None:
        try:
            writer.submit(write)  # type: ignore[arg-type]
            outcomes.append("stored")
        except sa_exc.OperationalError as exc:
            outcomes.append(str(exc.orig))

    first = threading.Thread(target=submit, args=(hold,))
    first.start()
    assert entered.wait(10)
    queued = [threading.Thread(target=submit, args=(w,)) for w in (fine, locked, fine)]
    for n, t in enumerate(queued, 1):  # queued one after another, in this order: the next batch
        t.start()
        while writer._queue.qsize() < n:
            threading.Event().wait(0.01)
    release.set()
    for t in [first, *queued]:
        t.join()
    writer.close()
    repo.close()
    # The batch was retried as one write (8 attempts: the write before the locked one ran each
    # time, the one after it never), then every caller got the failure: no write was tried again
    # on its own for as long once more.
    assert sorted(outcomes) == ["database is locked"] * 3 + ["stored"]
    assert calls == {"locked": 8, "fine": 8}
    assert (writer.batches, writer.writes) == (1, 1)


def test_a_write_that_submits_another_write_fails_instead_of_waiting_on_itself(tmp_path: Path) -> None:
    from polygon_core.adapters.storage._writer import BatchWriter

    repo = ensure_database(f"sqlite:///{tmp_path / 'p.db'}")
    writer = BatchWriter(repo)

    def nested(session: object) -> None:
        writer.submit(lambda s: None)

    with pytest.raises(RuntimeError, match="a write submitted another write from the writer's own thread"):
        writer.submit(nested)
    writer.submit(lambda s: None)  # the writer still serves
    writer.close()
    repo.close()
    assert (writer.batches, writer.writes) == (1, 1)


def test_a_write_whose_wakeup_is_missed_is_still_committed(tmp_path: Path) -> None:
    # The writer's wait is timed: a queue that says "empty" once, with the write already in it (a
    # missed wakeup), holds the write up for one recheck, not forever.
    import queue

    class MissesOneWakeup(queue.SimpleQueue):  # type: ignore[type-arg]
        missed = False

        def get(self, block: bool = True, timeout: float | None = None) -> object:
            if not self.missed and timeout is not None:
                self.missed = True
                raise queue.Empty
            return super().get(block, timeout)

    repo = BatchedRepository(ensure_database(f"sqlite:///{tmp_path / 'w.db'}"))
    try:
        repo.save_run(Run(id="r", suite="s", agent_name="a", agent_version="v", rubric_version="v1", seeds=[0]))
        repo.writer._queue = MissesOneWakeup()
        repo.save_conversation("r", make_conversation("c00", seed=0), artifact_uri="mem://c00", assertions=[])
        assert repo.writer._queue.missed and repo.conversation_ids("r") == {"c00"}
    finally:
        repo.close()
