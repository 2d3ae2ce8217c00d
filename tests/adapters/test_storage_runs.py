"""Repository runs: round trips, status and summary, prefix lookup, listing (SQLite and PostgreSQL)."""

from __future__ import annotations

import pytest

from polygon_core.adapters.storage import Repository, RunNotFoundError

from ._storage_helpers import make_run

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
