"""`Repository.judgments(conversation_ids=...)` with more ids than one IN list takes: queried in
chunks, merged back into save order."""

from __future__ import annotations

from polygon_core.adapters.storage import Repository
from polygon_core.adapters.storage._repository import _IN_CHUNK

from ._storage_helpers import make_judgment, make_run


def test_1200_ids_return_what_one_query_would_in_save_order(repo: Repository) -> None:
    run = repo.save_run(make_run())
    # Saved out of id order, so chunks (slices of the sorted ids) interleave in save order.
    saved = [f"c-{(i * 7919) % 1300:04d}" for i in range(1300)]
    for conversation_id in saved:
        repo.save_judgment(run.id, make_judgment(conversation_id))
    repo.save_judgment(run.id, make_judgment("c-0001", rubric="v2"))  # another version: left out
    repo.save_judgment(run.id, make_judgment(saved[0], composite=10.0))  # re-saved: now the last
    asked = {f"c-{i:04d}" for i in range(1200)} | {"c-missing"}
    assert len(asked) > 2 * _IN_CHUNK
    every = repo.judgments(run.id, "v1")
    got = repo.judgments(run.id, "v1", conversation_ids=asked)
    assert got == [j for j in every if j.conversation_id in asked]
    assert len(got) == 1200
    assert got[-1].conversation_id == saved[0] and got[-1].composite == 10.0
    assert [j.conversation_id for j in got[:3]] == [c for c in saved if c in asked][1:4]
