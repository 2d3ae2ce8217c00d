"""One writer per database: result rows committed in batches by a single thread.

Hundreds of conversations finishing at once would otherwise each open a write transaction, and on
SQLite every one of them waits for the file's one write lock (Postgres serialises judgment writes
of one run on the run row). Here every hot write (a conversation row, a judgment, probe answers)
is queued; one thread takes whatever is queued (up to `max_batch`) and commits it in one
transaction. The caller waits for its own write to be committed, so a write still either happened
or raised when the call returns, exactly as with `Repository`.

A batch that fails transiently (a locked file, a dropped connection) is retried as a write
(`retry_write`); a batch that fails otherwise is applied again one write per transaction, so each
caller gets its own outcome (e.g. `RunNotFoundError` for a run that was never saved) and no other
caller's write is lost with it.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future
from typing import Any

from sqlmodel import Session

from polygon_core.models import AssertionResult, Conversation, Judgment, ProbeAnswer

from ._repository import Repository
from ._retry import is_transient, retry_write
from ._writes import write_conversation, write_judgment, write_probe_answers

__all__ = ["BatchWriter", "BatchedRepository"]

_Write = Callable[[Session], None]
_STOP = object()
_RECHECK_SECONDS = 1.0


class BatchWriter:
    """A daemon thread committing queued writes to one repository's database, in batches.

    Started on the first write; `close()` commits what is queued and stops it. `batches` and
    `writes` count what was committed (for benchmarks and tests).
    """

    def __init__(self, repo: Repository, *, max_batch: int = 256) -> None:
        self._repo, self._max = repo, max_batch
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self.batches = 0
        self.writes = 0

    def submit(self, write: _Write) -> None:
        """Queue `write` (applied to the batch's session) and wait until it is committed. A write
        must not submit another: the writer thread would wait on itself, so that is an error."""
        if threading.current_thread() is self._thread:
            raise RuntimeError("a write submitted another write from the writer's own thread")
        done: Future[None] = Future()
        self._ensure_started()
        self._queue.put((write, done))
        done.result()

    def close(self) -> None:
        """Commit what is queued, then stop the thread (a later write starts it again)."""
        with self._lock:
            thread, self._thread = self._thread, None
        if thread is not None:
            self._queue.put(_STOP)
            thread.join()

    def _ensure_started(self) -> None:
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._serve, name="polygon-writer", daemon=True)
                self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                # Woken at least every second: in a Dask worker a write once waited forever while
                # this thread sat in an untimed `get` on the same queue after the write was put (a
                # missed wakeup, not reproduced on demand); a timed wait looks at the queue again.
                first = self._queue.get(timeout=_RECHECK_SECONDS)
            except queue.Empty:
                continue
            if first is _STOP:
                return
            batch = [first]
            stop = False
            while len(batch) < self._max:
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
                if item is _STOP:
                    stop = True
                    break
                batch.append(item)
            self._apply(batch)
            if stop:
                return

    def _apply(self, batch: list[tuple[_Write, Future[None]]]) -> None:
        try:
            self._commit([write for write, _ in batch])
        except BaseException as failure:
            if is_transient(failure):
                # The database itself is down or locked and `_commit` already retried it as long as
                # a write is retried: each write alone would wait that long again, one after another.
                for _, done in batch:
                    done.set_exception(failure)
                return
            for write, done in batch:  # one bad write must not sink the others: each on its own
                try:
                    self._commit([write])
                except BaseException as exc:
                    done.set_exception(exc)
                else:
                    done.set_result(None)
            return
        for _, done in batch:
            done.set_result(None)

    def _commit(self, writes: Sequence[_Write]) -> None:
        @retry_write
        def commit() -> None:
            with self._repo._write() as session:
                for write in writes:
                    write(session)

        commit()
        self.batches += 1
        self.writes += len(writes)


class BatchedRepository(Repository):
    """A `Repository` (same database, same engine) whose result writes go through one `BatchWriter`.

    Reads and the other writes (runs, statuses) are the repository's own. Share one per process:
    every thread's conversation, judgment and probe writes then meet in the same batches.
    """

    def __init__(self, inner: Repository, *, max_batch: int = 256) -> None:
        self.engine = inner.engine
        self.writer = BatchWriter(inner, max_batch=max_batch)

    def save_conversation(self, run_id: str, conversation: Conversation, *, artifact_uri: str,
                          assertions: Sequence[AssertionResult], metrics: dict[str, Any] | None = None) -> None:
        """As `Repository.save_conversation`, committed in the writer's next batch."""
        write = write_conversation(run_id, conversation, artifact_uri=artifact_uri, assertions=assertions,
                                   metrics=metrics)
        self.writer.submit(write)

    def save_judgment(self, run_id: str, judgment: Judgment) -> None:
        """As `Repository.save_judgment`, committed in the writer's next batch."""
        self.writer.submit(write_judgment(run_id, judgment))

    def save_probe_answers(self, run_id: str, answers: Iterable[ProbeAnswer]) -> None:
        """As `Repository.save_probe_answers`, committed in the writer's next batch."""
        write = write_probe_answers(run_id, answers)
        if write is not None:
            self.writer.submit(write)

    def close(self) -> None:
        """Stop the writer (after its queue is committed), then close every pooled connection."""
        self.writer.close()
        super().close()
