"""Repository transactions: a failed write leaves nothing, concurrent writers (SQLite and PostgreSQL)."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
import sqlalchemy as sa

from polygon_core.adapters.storage import Repository

from ._storage_helpers import (
    ASSERTIONS,
    PROBES,
    count_rows,
    make_conversation,
    make_judgment,
    make_run,
    rows_as_text,
)

# -- atomicity --------------------------------------------------------------------------------


def test_failed_batch_leaves_nothing(
    repo: Repository, fail_on_insert: Callable[[str, int], None]
) -> None:
    run = repo.save_run(make_run())
    fail_on_insert("polygon_probe_answer", 2)
    with pytest.raises(RuntimeError, match="forced failure"):
        repo.save_probe_answers(run.id, PROBES)
    assert count_rows(repo, "polygon_probe_answer") == 0
    assert repo.probe_answers(run.id) == []


def test_failed_replacement_keeps_the_old_row(
    repo: Repository, fail_on_insert: Callable[[str, int], None]
) -> None:
    run = repo.save_run(make_run())
    repo.save_judgment(run.id, make_judgment())
    before = rows_as_text(repo, "polygon_judgment")
    repo.save_conversation(run.id, make_conversation(), artifact_uri="a1", assertions=ASSERTIONS)
    fail_on_insert("polygon_judgment", 1)
    fail_on_insert("polygon_conversation", 1)
    with pytest.raises(RuntimeError, match="forced failure"):
        repo.save_judgment(run.id, make_judgment(composite=1.0))
    with pytest.raises(RuntimeError, match="forced failure"):
        repo.save_conversation(run.id, make_conversation(), artifact_uri="a2", assertions=[])
    assert rows_as_text(repo, "polygon_judgment") == before
    assert [r.artifact_uri for r in repo.list_conversations(run.id)] == ["a1"]


def test_failed_run_save_leaves_nothing(
    repo: Repository, fail_on_insert: Callable[[str, int], None]
) -> None:
    fail_on_insert("polygon_run", 1)
    with pytest.raises(RuntimeError, match="forced failure"):
        repo.save_run(make_run())
    assert repo.list_runs() == []


# -- concurrency ------------------------------------------------------------------------------


def test_concurrent_writers(repo: Repository) -> None:
    """Eight threads (Prefect's default task runner) saving into one run at once."""
    run = repo.save_run(make_run())
    errors: list[BaseException] = []

    def work(worker: int) -> None:
        try:
            for i in range(8):
                conversation_id = f"c-{worker}-{i}"
                if repo.has_conversation(run.id, conversation_id):
                    continue
                repo.save_conversation(
                    run.id, make_conversation(conversation_id), artifact_uri="x", assertions=[]
                )
                repo.save_judgment(run.id, make_judgment(conversation_id))
                # Every worker also re-saves a shared conversation: upserts must not collide.
                repo.save_conversation(
                    run.id, make_conversation("shared"), artifact_uri=f"w{worker}", assertions=[]
                )
        except BaseException as exc:  # reported below, in the main thread
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(w,)) for w in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(repo.conversation_ids(run.id)) == 65
    judgments = repo.judgments(run.id)
    assert len(judgments) == 64
    with repo.engine.connect() as connection:
        seqs = connection.execute(sa.text("SELECT seq FROM polygon_judgment")).scalars().all()
    assert sorted(seqs) == list(range(1, 65))  # the per-run lock keeps seq strictly ordered
