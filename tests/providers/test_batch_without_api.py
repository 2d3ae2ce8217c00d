"""A batch pass against a server without the Files and Batch APIs (llama.cpp, Ollama, vLLM answer 404):
nothing submitted, every pending conversation stored as a failed judge or answerer with one reason."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from polygon import usecases
from polygon.usecases._grade import rescore_run
from polygon_core.adapters.providers import NoBatchApi, make_chat_model
from polygon_core.providers import ChatMessage, ChatRequest
from tests.fakes.llm_server import FakeLLMServer

from .conftest import fast_settings
from .test_batch_judging import _full_pass, _stored_run

REASON = ("the server has no Batch API at {url} (HTTP 404 on /files): judge without batches (`polygon run` "
          "without --batch-judging, `rescore` or `probe` without --batch)")


def test_submitting_to_a_server_without_batches_is_one_reason(tmp_path: Path) -> None:
    import asyncio

    with FakeLLMServer() as server:
        server.behaviour.batch_api = False
        model: Any = make_chat_model(f"openai:qwen@{server.openai_url}", fast_settings(tmp_path))
        request = ChatRequest(messages=[ChatMessage(role="user", content="hi")], role="judge")

        async def go() -> None:
            try:
                await model.submit_batch({"j0": request})
            finally:
                await model.aclose()

        with pytest.raises(NoBatchApi) as info:
            asyncio.run(go())
    assert str(info.value) == REASON.format(url=server.openai_url)
    assert server.requests == 1  # a 404 is final: not retried


@pytest.mark.parametrize("kind", ["judge", "probe"])
def test_a_batch_pass_without_the_api_stores_failures_a_live_pass_retries(tmp_path: Path, kind: str) -> None:
    stores = _stored_run(fast_settings(tmp_path), "no-batch")
    with FakeLLMServer() as server:
        server.behaviour.batch_api = False
        name = f"openai:qwen@{server.openai_url}"
        reason = REASON.format(url=server.openai_url)
        spec = usecases.rescore_batch_pass(stores, "no-batch", kind=kind, model=name, rubric_version="v1")  # type: ignore[arg-type]
        result = _full_pass(stores, spec)
        assert (result.added, result.failed, sorted(set(result.errors.values()))) == (0, [], [reason])
        assert len(result.errors) == 6 and not server.batches
        job = usecases.load_job(stores, "no-batch", spec.key)
        assert job is not None and (job.state, job.error, job.batch_ids) == ("collected", reason, [])
        if kind == "judge":
            assert [(j.status, j.reason, j.judge_model) for j in stores.repo.judgments("no-batch", "v1")] == [
                ("judge_error", reason, name)] * 6
            live = rescore_run(stores, "no-batch", rubric_version="v1", judge_model=name)
            assert (live.added, live.failed) == (6, [])  # judge errors are not "already judged"
            assert {j.status for j in stores.repo.judgments("no-batch", "v1")} == {"judged"}
        else:
            answers = stores.repo.probe_answers("no-batch")
            assert answers and {(a.answer, a.evidence, a.answered_by) for a in answers} == {("error", reason, name)}
