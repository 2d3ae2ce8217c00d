"""Repository over SQLite (a file in tmp_path) and a real PostgreSQL database.

The Postgres database is created once for this module and dropped at its end; each test gets
a fresh schema in it (via ``search_path`` in the URL), so every test starts from nothing.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from polygon_core.adapters.settings import PolygonSettings
from polygon_core.adapters.storage import (
    ConversationRecord,
    DatabaseNotReadyError,
    Repository,
    RunNotFoundError,
    ensure_database,
    head_revision,
    repository_from_settings,
)
from polygon_core.adapters.storage._engine import make_engine, normalise_url
from polygon_core.adapters.storage._migrate import VERSION_TABLE
from polygon_core.adapters.storage._tables import TABLE_NAMES, metadata
from polygon_core.models import (
    AssertionResult,
    Conversation,
    CriterionScore,
    Distortion,
    DomainEvent,
    EndReason,
    GateHit,
    Judgment,
    ProbeAnswer,
    Run,
    ToolCall,
    Turn,
    Usage,
)

PG_HOST, PG_PORT, PG_USER = "127.0.0.1", 5432, "postgres"


# -- databases --------------------------------------------------------------------------------


def _pg_connect(dbname: str) -> Any:
    """An autocommit psycopg connection to ``dbname`` (CREATE/DROP DATABASE need autocommit)."""
    import psycopg

    return psycopg.connect(
        host=PG_HOST, port=PG_PORT, user=PG_USER, dbname=dbname, autocommit=True, connect_timeout=5
    )


@pytest.fixture(scope="module")
def pg_database() -> Iterator[str]:
    """A uniquely named Postgres database for this module, dropped (forcibly) at the end."""
    import psycopg

    try:
        admin = _pg_connect("postgres")
    except psycopg.OperationalError as exc:
        pytest.skip(f"PostgreSQL is not reachable on {PG_HOST}:{PG_PORT}: {exc}")
    name = f"polygon_test_{uuid.uuid4().hex[:12]}"
    with admin:
        admin.execute(f'CREATE DATABASE "{name}"')
        try:
            yield name
        finally:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """URL of an empty database: a SQLite file in a folder that does not exist yet, or a fresh
    schema in the module's Postgres database."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'not-yet' / 'polygon.db'}"
        return
    database: str = request.getfixturevalue("pg_database")
    schema = f"t_{uuid.uuid4().hex[:12]}"
    with _pg_connect(database) as connection:
        connection.execute(f'CREATE SCHEMA "{schema}"')
    # psycopg passes `options` to the server: every connection works inside this schema.
    yield (
        f"postgresql+psycopg://{PG_USER}@{PG_HOST}:{PG_PORT}/{database}"
        f"?options=-csearch_path%3D{schema}"
    )
    with _pg_connect(database) as connection:
        connection.execute(f'DROP SCHEMA "{schema}" CASCADE')


@pytest.fixture()
def repo(db_url: str) -> Iterator[Repository]:
    """A migrated, empty repository."""
    repository = Repository(db_url)
    repository.upgrade()
    yield repository
    repository.close()


# -- builders ---------------------------------------------------------------------------------


def make_run(run_id: str = "run-20240101-abcdef", **changes: Any) -> Run:
    values: dict[str, Any] = {
        "id": run_id,
        "suite": "refunds",
        "agent_name": "support-bot",
        "agent_version": "p-3f2a9c",
        "rubric_version": "v1",
        "seeds": [0, 1, 2**40],
        "models": {
            "agent": "offline:demo",
            "caller": "offline:rules",
            "judge": "offline-heuristic",
        },
        "status": "running",
        "source": "synthetic",
        "created_at": "2024-01-01T10:00:00+00:00",
    }
    values.update(changes)
    return Run(**values)


def make_conversation(conversation_id: str = "conv-1", **changes: Any) -> Conversation:
    values: dict[str, Any] = {
        "id": conversation_id,
        "scenario_id": "refund.late-delivery",
        "seed": 7,
        "agent_name": "support-bot",
        "agent_version": "p-3f2a9c",
        "persona_hash": "a1b2c3d4e5f6",
        "caller_type": "distrustful",
        "difficulty": 4,
        "language": "ru",
        "noise": 0.25,
        "turns": [
            Turn(
                index=0,
                speaker="caller",
                text="Мой заказ 12345 опоздал",
                heard="Мой заказ 12 345 опоздал",
                distortions=[
                    Distortion(kind="digits", original="12345", replacement="12 345", position=2)
                ],
            ),
            Turn(
                index=1,
                speaker="agent",
                text="Оформляю возврат.",
                tool_calls=[
                    ToolCall(
                        id="call-1",
                        name="issue_refund",
                        arguments={"order_id": "12345", "amount": 19.99},
                        result={"ok": True},
                        latency_ms=120.5,
                        events=["refund_issued"],
                    )
                ],
                latency_ms=850.0,
            ),
            Turn(index=2, speaker="caller", text="Спасибо", end="hangup"),
        ],
        "end_reason": EndReason.CALLER_HANGUP,
        "events": [
            DomainEvent(name="refund_issued", turn=1, tool="issue_refund", args={"amount": 19.99})
        ],
        "initial_state": {"orders": [{"id": "12345"}]},
        "final_state": {"refunds": [{"order_id": "12345"}]},
        "clock_ms": 4200.0,
        "usage": {
            "agent": Usage(input_tokens=120, output_tokens=40, calls=2, estimated=True),
            "caller": Usage(input_tokens=80, output_tokens=20, cached_tokens=10, calls=2),
        },
        "models": {"agent": "offline:demo", "caller": "offline:rules"},
    }
    values.update(changes)
    return Conversation(**values)


ASSERTIONS = [
    AssertionResult(name="refund_once", expression="count(refund_issued) == 1", status="pass"),
    AssertionResult(
        name="no_transfer",
        expression="end_reason != 'transfer'",
        status="fail",
        message="transferred at turn 5",
        turn=5,
        answered_by="offline-heuristic",
    ),
]


def make_judgment(
    conversation_id: str = "conv-1",
    rubric: str = "v1",
    judge: str = "offline-heuristic",
    composite: float | None = 71.25,
) -> Judgment:
    return Judgment(
        conversation_id=conversation_id,
        rubric_version=rubric,
        judge_model=judge,
        repeats=3,
        raw=[
            {"goal_completion": 4, "safety_compliance": "n/a", "notes": "цитата «вернём деньги»"},
            {"goal_completion": 5, "safety_compliance": None},
            {"goal_completion": 4.0, "nested": {"list": [1, 2.5, None, True]}},
        ],
        criteria=[
            CriterionScore(criterion="goal_completion", score=4.0, evidence="Оформляю возврат."),
            CriterionScore(criterion="factuality", score=None, status="unreadable"),
            CriterionScore(
                criterion="persona_tone", score=1.0, status="missing", unsupported_evidence=True
            ),
        ],
        composite=composite,
        partial=True,
        not_scored=["factuality"],
        gates=[GateHit(gate="forbidden_phrase", turn=1, detail="'guarantee' in agent speech")],
        verdict="fail",
    )


PROBES = [
    ProbeAnswer(
        conversation_id="conv-1",
        probe_id="confirms_amount",
        wording_hash="h1",
        polarity="wanted",
        answer="yes",
        evidence="turn 1",
    ),
    ProbeAnswer(
        conversation_id="conv-1",
        probe_id="promises_refund_time",
        wording_hash="h2",
        polarity="guardrail",
        answer="na",
    ),
    ProbeAnswer(
        conversation_id="conv-2",
        probe_id="confirms_amount",
        wording_hash="h1",
        polarity="wanted",
        answer="no",
        answered_by="openai:gpt-4o-mini",
    ),
]


def count_rows(repository: Repository, table: str) -> int:
    with repository.engine.connect() as connection:
        return int(connection.execute(sa.text(f"SELECT COUNT(*) FROM {table}")).scalar_one())


def rows_as_text(repository: Repository, table: str, where: str = "1=1") -> list[tuple[Any, ...]]:
    """Every column cast to text: what the database actually stores, byte for byte."""
    columns = ", ".join(f"CAST({c.name} AS TEXT)" for c in metadata.tables[table].columns)
    query = f"SELECT {columns} FROM {table} WHERE {where} ORDER BY id"
    with repository.engine.connect() as connection:
        return [tuple(row) for row in connection.execute(sa.text(query))]


@pytest.fixture()
def fail_on_insert(repo: Repository) -> Iterator[Callable[[str, int], None]]:
    """Make the n-th INSERT into a table raise inside the repository's transaction."""
    listeners: list[Callable[..., None]] = []

    def arm(table: str, nth: int) -> None:
        seen = {"count": 0}

        def before(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
            if statement.lstrip().upper().startswith(f"INSERT INTO {table.upper()} "):
                seen["count"] += 1
                if seen["count"] == nth:
                    raise RuntimeError("forced failure mid-transaction")

        sa.event.listen(repo.engine, "before_cursor_execute", before)
        listeners.append(before)

    yield arm
    for listener in listeners:
        sa.event.remove(repo.engine, "before_cursor_execute", listener)


# -- schema -----------------------------------------------------------------------------------


def test_upgrade_creates_every_table(db_url: str) -> None:
    with Repository(db_url) as repository:
        assert repository.is_empty()
        assert repository.needs_upgrade()
        assert repository.current_revision() is None
        repository.upgrade()
        inspector = sa.inspect(repository.engine)
        assert set(TABLE_NAMES) | {VERSION_TABLE} <= set(inspector.get_table_names())
        uniques = {
            table: {tuple(u["column_names"]) for u in inspector.get_unique_constraints(table)}
            for table in TABLE_NAMES
        }
        assert ("run_id", "conversation_id") in uniques["polygon_conversation"]
        assert ("run_id", "conversation_id", "rubric_version", "judge_model") in uniques[
            "polygon_judgment"
        ]
        assert ("run_id", "conversation_id", "probe_id", "wording_hash", "answered_by") in uniques[
            "polygon_probe_answer"
        ]
        for table in TABLE_NAMES[1:]:
            (fk,) = inspector.get_foreign_keys(table)
            assert fk["referred_table"] == "polygon_run"
            assert fk["options"].get("ondelete", "").upper() == "CASCADE"
        assert not repository.is_empty()
        assert not repository.needs_upgrade()
        assert repository.current_revision() == head_revision()


def test_upgrade_twice_is_a_no_op(repo: Repository) -> None:
    repo.save_run(make_run())
    before = {t: rows_as_text(repo, t) if t != "polygon_run" else None for t in TABLE_NAMES}
    run_before = repo.get_run(make_run().id)
    repo.upgrade()
    repo.upgrade()
    assert repo.current_revision() == head_revision()
    assert repo.get_run(make_run().id) == run_before
    assert {t: rows_as_text(repo, t) if t != "polygon_run" else None for t in TABLE_NAMES} == before
    with repo.engine.connect() as connection:
        assert connection.execute(sa.text(f"SELECT COUNT(*) FROM {VERSION_TABLE}")).scalar() == 1


def test_migrations_match_the_table_models(repo: Repository) -> None:
    with repo.engine.connect() as connection:
        context = MigrationContext.configure(
            connection, opts={"compare_type": True, "version_table": VERSION_TABLE}
        )
        assert compare_metadata(context, metadata) == []


def test_unmigrated_database_gives_a_clear_error(db_url: str) -> None:
    with Repository(db_url) as repository:
        with pytest.raises(DatabaseNotReadyError, match="polygon db upgrade"):
            repository.list_runs()
        with pytest.raises(DatabaseNotReadyError, match="polygon db upgrade"):
            repository.save_run(make_run())


def test_ensure_database(db_url: str) -> None:
    if db_url.startswith("sqlite"):
        with ensure_database(db_url) as repository:  # folder and file created, then migrated
            assert not repository.needs_upgrade()
            repository.save_run(make_run())
        with ensure_database(db_url) as repository:  # second open: nothing to do
            assert repository.get_run(make_run().id) == make_run()
        return
    with pytest.raises(DatabaseNotReadyError, match="polygon db upgrade"):
        ensure_database(db_url)
    with Repository(db_url) as repository:
        assert repository.is_empty()  # ensure_database never migrates Postgres by itself
        repository.upgrade()
    with ensure_database(db_url) as repository:
        assert repository.list_runs() == []


def test_a_new_sqlite_file_busy_in_another_connection_still_opens_in_wal(tmp_path: Path) -> None:
    # Switching a file to WAL needs it alone, and SQLite refuses that at once (no busy wait)
    # while another connection is mid-transaction: two webhook receivers opening one new file
    # together once got "database is locked". The switch now waits for the other to finish.
    import sqlite3

    path = tmp_path / "new.db"
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    other.execute("CREATE TABLE t (x INTEGER)")  # holds the write lock until the commit below
    timer = threading.Timer(0.3, other.execute, args=("COMMIT",))
    timer.start()
    engine = make_engine(f"sqlite:///{path}")
    try:
        with engine.connect() as connection:
            assert connection.exec_driver_sql("PRAGMA journal_mode").scalar_one() == "wal"
    finally:
        timer.join()
        engine.dispose()
        other.close()


def test_unknown_newer_revision_is_reported(repo: Repository) -> None:
    with repo.engine.begin() as connection:
        connection.execute(sa.text(f"UPDATE {VERSION_TABLE} SET version_num = '9999_future'"))
    with pytest.raises(DatabaseNotReadyError, match="9999_future"):
        repo.needs_upgrade()


def test_repository_from_settings(tmp_path: Path) -> None:
    settings = PolygonSettings(home=tmp_path / "home")
    with repository_from_settings(settings) as repository:
        assert repository.dialect == "sqlite"
        assert not repository.needs_upgrade()
    assert (tmp_path / "home" / "polygon.db").is_file()


def test_plain_postgres_urls_mean_psycopg() -> None:
    assert normalise_url("postgresql://u@h/db").drivername == "postgresql+psycopg"
    assert normalise_url("postgres://u@h/db").drivername == "postgresql+psycopg"
    assert normalise_url("sqlite:///x.db").drivername == "sqlite"


def test_repr_hides_the_password() -> None:
    repository = Repository("postgresql+psycopg://user:hunter2@127.0.0.1:1/db")
    assert "hunter2" not in repr(repository) and "hunter2" not in repository.url


def test_domain_never_imports_the_sdks() -> None:
    code = (
        "import sys, polygon_core, polygon_core.models; "
        "bad = [m for m in ('sqlalchemy', 'sqlmodel', 'alembic', 'boto3', 'psycopg') "
        "if m in sys.modules]; assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parents[2])


# -- runs -------------------------------------------------------------------------------------


def test_run_round_trip(repo: Repository) -> None:
    run = make_run()
    assert repo.save_run(run) == run
    assert repo.get_run(run.id) == run
    assert repo.get_run("no-such-run") is None


def test_save_run_sets_created_at_and_keeps_it(repo: Repository) -> None:
    stored = repo.save_run(make_run(created_at=None))
    assert stored.created_at is not None and stored.created_at.endswith("+00:00")
    again = repo.save_run(make_run(created_at=None, status="complete"))
    assert again.created_at == stored.created_at
    assert again.status == "complete"


def test_resaving_a_run_keeps_summary_and_report(repo: Repository) -> None:
    run = repo.save_run(make_run())
    repo.set_run_status(run.id, "complete", summary={"pass_rate": 0.75}, report_uri="s3://b/r.html")
    repo.save_run(run.model_copy(update={"models": {"agent": "openai:gpt-4o"}}))
    assert repo.get_run_summary(run.id) == {"pass_rate": 0.75}
    assert repo.get_run_report_uri(run.id) == "s3://b/r.html"
    stored = repo.get_run(run.id)
    assert stored is not None and stored.models == {"agent": "openai:gpt-4o"}


def test_set_run_status(repo: Repository) -> None:
    run = repo.save_run(make_run())
    assert repo.get_run_summary(run.id) is None
    summary = {"composite": {"mean": 71.2, "ci": [65.0, 77.4]}, "verdicts": {"pass": 3, "fail": 1}}
    repo.set_run_status(run.id, "complete", summary=summary, report_uri="file:///tmp/r.html")
    stored = repo.get_run(run.id)
    assert stored is not None and stored.status == "complete"
    assert repo.get_run_summary(run.id) == summary
    assert repo.get_run_summary(run.id[:8]) == summary  # prefixes work here too
    repo.set_run_status(run.id, "failed")  # None leaves summary and report alone
    assert repo.get_run_summary(run.id) == summary
    assert repo.get_run_report_uri(run.id) == "file:///tmp/r.html"
    with pytest.raises(ValueError, match="finished"):
        repo.set_run_status(run.id, "finished")
    with pytest.raises(RunNotFoundError):
        repo.set_run_status("no-such-run", "complete")


def test_run_prefix_lookup(repo: Repository) -> None:
    for run_id in ("run-aaa111", "run-aab222", "run-b%_x", "RUN-ccc"):
        repo.save_run(make_run(run_id))
    found = repo.get_run("run-aaa")
    assert found is not None and found.id == "run-aaa111"
    assert repo.get_run("run-aaa111") == make_run("run-aaa111")
    with pytest.raises(ValueError, match="ambiguous") as error:
        repo.get_run("run-aa")
    assert "run-aaa111" in str(error.value) and "run-aab222" in str(error.value)
    found = repo.get_run("run-b%")  # LIKE wildcards are plain characters here
    assert found is not None and found.id == "run-b%_x"
    assert repo.get_run("run-%") is None
    found = repo.get_run("run-c")  # case-sensitive on every backend
    assert found is None
    assert repo.get_run("zzz") is None
    assert repo.get_run("") is None
    assert repo.get_run("run-aaa", exact=True) is None  # existence checks must not match prefixes
    assert repo.get_run("run-aaa111", exact=True) == make_run("run-aaa111")


def test_list_runs_newest_first(repo: Repository) -> None:
    for run_id, created in [
        ("r-old", "2024-01-01T09:00:00+00:00"),
        ("r-new", "2024-03-01T09:00:00+00:00"),
        ("r-mid", "2024-02-01T09:00:00+00:00"),
        ("r-mid2", "2024-02-01T09:00:00+00:00"),
    ]:
        repo.save_run(make_run(run_id, created_at=created))
    assert [r.id for r in repo.list_runs()] == ["r-new", "r-mid2", "r-mid", "r-old"]
    assert [r.id for r in repo.list_runs(limit=2)] == ["r-new", "r-mid2"]
    assert len(repo.list_runs(limit=None)) == 4


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
