"""The batch-judge flow under Prefect: its tasks, their retry policy, and resuming a submitted batch."""

from __future__ import annotations

from pathlib import Path

import pytest

from polygon import usecases
from polygon_core.demo import demo_dir
from tests.fakes.llm_server import FakeLLMServer

pytestmark = [pytest.mark.prefect, pytest.mark.usefixtures("prefect_harness")]
SUITE = demo_dir() / "suite"
AGENT = demo_dir() / "agents" / "agent_v1.yaml"


@pytest.fixture
def stored_run(polygon_home: Path, monkeypatch: pytest.MonkeyPatch) -> usecases.Stores:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("POLYGON_BATCH_POLL_SECONDS", "0.01")
    monkeypatch.setenv("POLYGON_MODEL_RETRY_BASE_DELAY", "0.005")
    stores = usecases.open_stores()
    run = usecases.new_run(str(AGENT), str(SUITE), seeds=[0], run_id="flow-batch", roles={})
    usecases.create_run(stores, run, suite_path=str(SUITE), agent_path=str(AGENT))
    for sid, seed in usecases.plan_conversations(str(SUITE), [0]):
        usecases.simulate(stores, run.id, str(SUITE), str(AGENT), sid, seed)
    return stores


def test_a_batch_that_outlives_the_wait_is_not_retried_and_a_rerun_resumes_it(
        stored_run: usecases.Stores, monkeypatch: pytest.MonkeyPatch) -> None:
    from polygon.flows import batch_judge
    from polygon.tasks import wait_for_batch_task
    from prefect.states import State

    with FakeLLMServer() as srv:
        srv.behaviour.batch_polls = 10**6  # never ends while we are impatient
        spec = usecases.rescore_batch_pass(stored_run, "flow-batch", kind="judge",
                                           model=f"openai:gpt-4o-mini@{srv.openai_url}")
        monkeypatch.setenv("POLYGON_BATCH_MAX_WAIT_HOURS", "0.000001")
        quick = wait_for_batch_task.with_options(retry_delay_seconds=0)
        monkeypatch.setattr("polygon.flows._batch.wait_for_batch_task", quick)
        state: State = batch_judge(spec, return_state=True)
        assert state.is_failed()
        with pytest.raises(usecases.BatchTimeout):
            state.result()
        (batch,) = srv.batches.values()
        assert batch["polls"] == 1  # the timeout was not retried three more times
        # The provider finishes; the same flow, run again, polls the batch it already submitted.
        srv.behaviour.batch_polls = 0
        monkeypatch.setenv("POLYGON_BATCH_MAX_WAIT_HOURS", "1")
        result = batch_judge(spec)
    assert (result.added, result.failed) == (6, [])
    assert len(srv.batches) == 1
    assert {j.judge_model for j in stored_run.repo.judgments("flow-batch", "v1")} == {spec.model}
