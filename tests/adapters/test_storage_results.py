"""Repository results: conversations, judgments and probe answers (SQLite and PostgreSQL)."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from polygon_core.adapters.storage import ConversationRecord, Repository, RunNotFoundError
from polygon_core.adapters.storage._tables import TABLE_NAMES
from polygon_core.models import EndReason

from ._storage_helpers import (
    ASSERTIONS,
    PROBES,
    count_rows,
    make_conversation,
    make_judgment,
    make_run,
    rows_as_text,
)

# -- conversations ----------------------------------------------------------------------------


def test_conversation_round_trip(repo: Repository) -> None:
    run = repo.save_run(make_run())
    conversation = make_conversation()
    metrics = {"latency_p95_ms": 850.0, "tool_calls": 1}
    repo.save_conversation(
        run.id, conversation, artifact_uri="s3://b/c1.json", assertions=ASSERTIONS, metrics=metrics
    )
    (record,) = repo.list_conversations(run.id)
    assert record == ConversationRecord(
        run_id=run.id,
        conversation_id="conv-1",
        scenario_id="refund.late-delivery",
        seed=7,
        caller_type="distrustful",
        difficulty=4,
        language="ru",
        noise=0.25,
        agent_version="p-3f2a9c",
        end_reason=EndReason.CALLER_HANGUP,
        turn_count=3,
        artifact_uri="s3://b/c1.json",
        assertions=ASSERTIONS,
        metrics=metrics,
        usage=conversation.usage,
        models=conversation.models,
    )
    assert repo.has_conversation(run.id, "conv-1")
    assert not repo.has_conversation(run.id, "conv-2")
    assert not repo.has_conversation("other-run", "conv-1")
    assert repo.conversation_ids(run.id) == {"conv-1"}


def test_save_conversation_is_idempotent(repo: Repository) -> None:
    run = repo.save_run(make_run())
    repo.save_conversation(run.id, make_conversation(), artifact_uri="a1", assertions=ASSERTIONS)
    repo.save_conversation(
        run.id,
        make_conversation(end_reason=EndReason.LOOP),
        artifact_uri="a2",
        assertions=[],
        metrics={"retried": True},
    )
    assert count_rows(repo, "polygon_conversation") == 1
    (record,) = repo.list_conversations(run.id)
    assert (record.artifact_uri, record.end_reason, record.assertions) == ("a2", EndReason.LOOP, [])
    assert record.metrics == {"retried": True}
    other = repo.save_run(make_run("run-other"))  # the same conversation id in another run
    repo.save_conversation(other.id, make_conversation(), artifact_uri="a3", assertions=[])
    assert count_rows(repo, "polygon_conversation") == 2
    assert repo.conversation_ids(run.id) == {"conv-1"}


def test_conversations_listed_by_id(repo: Repository) -> None:
    run = repo.save_run(make_run())
    for conversation_id in ("c-3", "c-1", "c-2"):
        repo.save_conversation(
            run.id, make_conversation(conversation_id), artifact_uri="x", assertions=[]
        )
    assert [r.conversation_id for r in repo.list_conversations(run.id)] == ["c-1", "c-2", "c-3"]
    assert repo.list_conversations("no-such-run") == []


def test_results_need_their_run(repo: Repository) -> None:
    with pytest.raises(RunNotFoundError, match="ghost"):
        repo.save_conversation("ghost", make_conversation(), artifact_uri="x", assertions=[])
    with pytest.raises(RunNotFoundError):
        repo.save_judgment("ghost", make_judgment())
    with pytest.raises(RunNotFoundError):
        repo.save_probe_answers("ghost", PROBES)
    for table in TABLE_NAMES:
        assert count_rows(repo, table) == 0


def test_seed_outside_bigint_is_rejected(repo: Repository) -> None:
    run = repo.save_run(make_run())
    with pytest.raises(ValueError, match="64-bit"):
        repo.save_conversation(
            run.id, make_conversation(seed=2**64 - 1), artifact_uri="x", assertions=[]
        )
    repo.save_conversation(
        run.id, make_conversation(seed=2**63 - 1), artifact_uri="x", assertions=[]
    )
    assert repo.list_conversations(run.id)[0].seed == 2**63 - 1


def test_deleting_a_run_cascades(repo: Repository) -> None:
    run = repo.save_run(make_run())
    repo.save_conversation(run.id, make_conversation(), artifact_uri="x", assertions=[])
    repo.save_judgment(run.id, make_judgment())
    repo.save_probe_answers(run.id, PROBES)
    with repo.engine.begin() as connection:
        connection.execute(sa.text("DELETE FROM polygon_run WHERE id = :id"), {"id": run.id})
    for table in TABLE_NAMES:
        assert count_rows(repo, table) == 0


# -- judgments --------------------------------------------------------------------------------


def test_judgment_round_trip(repo: Repository) -> None:
    run = repo.save_run(make_run())
    judgment = make_judgment()
    repo.save_judgment(run.id, judgment)
    assert repo.judgments(run.id) == [judgment]
    unscored = make_judgment("conv-2", composite=None).model_copy(update={"verdict": None})
    repo.save_judgment(run.id, unscored)
    assert repo.judgments(run.id) == [judgment, unscored]


def test_rubric_versions_coexist_and_v1_stays_byte_identical(repo: Repository) -> None:
    run = repo.save_run(make_run())
    v1 = make_judgment(rubric="v1", composite=80.0).model_copy(update={"verdict": "pass"})
    repo.save_judgment(run.id, v1)
    v1_stored = rows_as_text(repo, "polygon_judgment", "rubric_version = 'v1'")
    v2 = make_judgment(rubric="v2", composite=80.0)  # a v2 gate fails what v1 passed
    repo.save_judgment(run.id, v2)
    assert rows_as_text(repo, "polygon_judgment", "rubric_version = 'v1'") == v1_stored
    assert repo.judgments(run.id, "v1") == [v1]
    assert repo.judgments(run.id, "v2") == [v2]
    assert repo.judgments(run.id) == [v1, v2]
    assert repo.rubric_versions(run.id) == {"v1", "v2"}
    assert repo.rubric_versions("no-such-run") == set()
    # Re-scoring v2 again (a retried task) replaces only the v2 row.
    v2_again = make_judgment(rubric="v2", composite=55.5)
    repo.save_judgment(run.id, v2_again)
    assert rows_as_text(repo, "polygon_judgment", "rubric_version = 'v1'") == v1_stored
    assert repo.judgments(run.id, "v2") == [v2_again]
    assert count_rows(repo, "polygon_judgment") == 2


def test_another_judge_adds_a_row(repo: Repository) -> None:
    run = repo.save_run(make_run())
    offline = make_judgment(judge="offline-heuristic")
    model = make_judgment(judge="openai:gpt-4o-mini", composite=90.0)
    repo.save_judgment(run.id, offline)
    repo.save_judgment(run.id, model)
    assert repo.judgments(run.id) == [offline, model]


def test_judgments_keep_save_order(repo: Repository) -> None:
    run = repo.save_run(make_run())
    for conversation_id in ("c-b", "c-a", "c-c"):
        repo.save_judgment(run.id, make_judgment(conversation_id))
    assert [j.conversation_id for j in repo.judgments(run.id)] == ["c-b", "c-a", "c-c"]
    repo.save_judgment(run.id, make_judgment("c-b", composite=10.0))  # re-saved: now the latest
    assert [j.conversation_id for j in repo.judgments(run.id)] == ["c-a", "c-c", "c-b"]


# -- probes -----------------------------------------------------------------------------------


def test_probe_answers_round_trip_and_idempotent(repo: Repository) -> None:
    run = repo.save_run(make_run())
    repo.save_probe_answers(run.id, PROBES)
    assert repo.probe_answers(run.id) == PROBES
    repo.save_probe_answers(run.id, PROBES)
    assert count_rows(repo, "polygon_probe_answer") == len(PROBES)
    changed = PROBES[0].model_copy(update={"answer": "no", "evidence": "turn 3"})
    repo.save_probe_answers(run.id, [changed])
    assert repo.probe_answers(run.id) == [changed, *PROBES[1:]]
    reworded = PROBES[0].model_copy(update={"wording_hash": "h1-new"})
    repo.save_probe_answers(run.id, [reworded])
    assert repo.probe_answers(run.id) == [changed, *PROBES[1:], reworded]
    repo.save_probe_answers(run.id, [])
    assert repo.probe_answers("no-such-run") == []
