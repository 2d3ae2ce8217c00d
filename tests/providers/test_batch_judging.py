"""Batch judging of stored runs: submit, wait, collect through the real SDKs against the fake server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from polygon import usecases
from polygon.usecases._grade import probe_run, rescore_run
from polygon_core.adapters.providers import estimate_cost, run_usage
from polygon_core.demo import demo_dir
from polygon_core.models import Usage
from tests.fakes.llm_server import FakeLLMServer

from .conftest import SUITE, fast_settings, served_model

AGENT = demo_dir() / "agents" / "agent_v1.yaml"


def _stored_run(settings: Any, run_id: str, roles: dict[str, str] | None = None) -> usecases.Stores:
    """A run of the demo suite (offline caller, callable agent), simulated and stored, not yet judged."""
    stores = usecases.open_stores(settings)
    run = usecases.new_run(str(AGENT), str(SUITE), seeds=[0], rubric="v1", run_id=run_id,
                           roles=roles or {}, settings=settings)
    usecases.create_run(stores, run, suite_path=str(SUITE), agent_path=str(AGENT))
    for sid, seed in usecases.plan_conversations(str(SUITE), [0]):
        usecases.simulate(stores, run.id, str(SUITE), str(AGENT), sid, seed)
    return stores



def _full_pass(stores: usecases.Stores, spec: usecases.BatchPass) -> usecases.RescoreResult:
    job = usecases.submit_batch_pass(stores, spec)
    usecases.wait_for_batch_pass(stores, spec.run_id, job.spec.key, sleep=lambda s: None)
    return usecases.collect_batch_pass(stores, spec.run_id, job.spec.key)


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_batch_judge_pass_sends_what_the_live_judge_sends_and_stores_the_same_judgments(
        tmp_path: Path, provider: str) -> None:
    settings = fast_settings(tmp_path)
    stores = _stored_run(settings, "batch-run")
    with FakeLLMServer() as live_server:
        live_server.behaviour.vary = True  # replies differ by conversation: a mix-up would show
        live = rescore_run(stores, "batch-run", rubric_version="v1", judge_model=served_model(live_server, provider),
                           repeats=2)
        # A live request also asks for a stream (read within the cap); a batch item cannot.
        live_bodies = [json.dumps({k: v for k, v in b.items() if k not in ("stream", "stream_options")},
                                  sort_keys=True) for b in live_server.behaviour.seen]
    with FakeLLMServer() as server:
        server.behaviour.batch_polls = 3
        server.behaviour.vary = True
        name = served_model(server, provider)
        spec = usecases.rescore_batch_pass(stores, "batch-run", kind="judge", model=name, rubric_version="v1",
                                           repeats=2)
        result = _full_pass(stores, spec)
        (batch,) = server.batches.values()
        batch_bodies = [json.dumps(b, sort_keys=True) for _cid, b in batch["items"]]
    # The very same request bodies (apart from the model's base URL, which is not in a body).
    assert sorted(batch_bodies) == sorted(live_bodies) and len(batch_bodies) == 12
    assert (result.added, result.failed, result.unscored) == (6, [], [])
    by_judge: dict[str, dict[str, Any]] = {}
    for j in stores.repo.judgments("batch-run", "v1"):
        # Everything but the judge's label: raw repeats, criteria, composite, gates, verdict.
        by_judge.setdefault(j.judge_model, {})[j.conversation_id] = j.model_dump(exclude={"judge_model"})
    assert by_judge[name] == by_judge[live.judge_model] and len(by_judge[name]) == 6
    assert all(v["repeats"] == 2 and v["composite"] is not None for v in by_judge[name].values())
    assert len({v["composite"] for v in by_judge[name].values()}) > 1  # not all alike
    job = usecases.load_job(stores, "batch-run", spec.key)
    assert job is not None and job.state == "collected" and len(job.items) == 12
    assert [s.state for s in job.statuses] == ["ended"]


def test_batch_tokens_cost_half_and_the_saving_is_reported(tmp_path: Path, server: FakeLLMServer) -> None:
    stores = _stored_run(fast_settings(tmp_path), "cost-run")
    name = served_model(server, "openai")
    _full_pass(stores, usecases.rescore_batch_pass(stores, "cost-run", kind="judge", model=name))
    usage = run_usage(stores.artifacts, "cost-run")
    judge = usage["roles"]["judge"]
    # What the fake server billed, read back from its own replies.
    (batch,) = server.batches.values()
    billed = Usage()
    for line in batch["results"]:
        u = line["response"]["body"]["usage"]
        billed = billed.add(Usage(input_tokens=u["prompt_tokens"], output_tokens=u["completion_tokens"],
                                  cached_tokens=u["prompt_tokens_details"]["cached_tokens"], calls=1))
    list_price = estimate_cost("openai:gpt-4o-mini", billed)
    assert (judge["calls"], judge["batch_calls"], judge["input_tokens"]) == (6, 6, billed.input_tokens)
    assert judge["cost_usd"] == pytest.approx(list_price / 2, abs=1e-6)
    assert judge["batch_savings_usd"] == pytest.approx(list_price / 2, abs=1e-6)
    assert usage["batch_savings_usd"] == judge["batch_savings_usd"]


def test_a_resubmitted_pass_reuses_its_batch_and_a_finished_pass_sends_nothing(
        tmp_path: Path, server: FakeLLMServer) -> None:
    stores = _stored_run(fast_settings(tmp_path), "resume-run")
    spec = usecases.rescore_batch_pass(stores, "resume-run", kind="judge", model=served_model(server, "anthropic"))
    first = usecases.submit_batch_pass(stores, spec)
    again = usecases.submit_batch_pass(stores, spec)  # a retried task, or a resumed flow
    assert again.batch_ids == first.batch_ids and len(server.batches) == 1
    result = _full_pass(stores, spec)
    assert result.added == 6 and len(server.batches) == 1
    after = usecases.submit_batch_pass(stores, spec)  # everything judged: nothing to send
    assert (after.batch_ids, after.items, after.state) == ([], {}, "ended")
    assert len(server.batches) == 1


def test_large_passes_split_into_several_batches(tmp_path: Path, server: FakeLLMServer) -> None:
    stores = _stored_run(fast_settings(tmp_path, batch_max_requests=4), "chunk-run")
    spec = usecases.rescore_batch_pass(stores, "chunk-run", kind="judge", model=served_model(server, "openai"))
    result = _full_pass(stores, spec)
    assert [len(b["items"]) for b in server.batches.values()] == [4, 2]
    assert result.added == 6


def test_failed_items_leave_their_conversations_unjudged_and_named(tmp_path: Path,
                                                                   server: FakeLLMServer) -> None:
    stores = _stored_run(fast_settings(tmp_path), "fail-run")
    server.behaviour.batch_item_fault = {"j0000000": "error", "j0000001": "expired"}.get
    spec = usecases.rescore_batch_pass(stores, "fail-run", kind="judge", model=served_model(server, "anthropic"),
                                       repeats=2)
    result = _full_pass(stores, spec)
    job = usecases.load_job(stores, "fail-run", spec.key)
    # Items 0 and 1 are the two repeats of the first conversation: it gets no judgment at all.
    assert job.items["j0000000"] == (job.items["j0000001"][0], 0)
    assert result.failed == [job.items["j0000001"][0]]
    assert result.added == 5
    assert job.items["j0000001"][0] not in {j.conversation_id for j in stores.repo.judgments("fail-run", "v1")}
    # A second pass asks only for what is missing, in a new batch.
    server.behaviour.batch_item_fault = lambda cid: None
    again = _full_pass(stores, spec)
    assert again.added == 1 and len(server.batches) == 2
    assert len(list(server.batches.values())[1]["items"]) == 2


def test_waiting_past_the_limit_keeps_the_job_for_a_later_wait(tmp_path: Path, server: FakeLLMServer) -> None:
    server.behaviour.batch_polls = 3
    impatient = fast_settings(tmp_path, batch_max_wait_hours=1e-9)
    stores = _stored_run(impatient, "slow-run")
    spec = usecases.rescore_batch_pass(stores, "slow-run", kind="judge", model=served_model(server, "openai"))
    job = usecases.submit_batch_pass(stores, spec)
    with pytest.raises(usecases.BatchTimeout, match="still running after"):
        usecases.wait_for_batch_pass(stores, "slow-run", job.spec.key, sleep=lambda s: None)
    with pytest.raises(ValueError, match="has not ended yet"):
        usecases.collect_batch_pass(stores, "slow-run", job.spec.key)
    patient = usecases.open_stores(fast_settings(tmp_path))
    seen: list[list[str]] = []
    usecases.wait_for_batch_pass(patient, "slow-run", job.spec.key, sleep=lambda s: None,
                                 on_status=lambda ss: seen.append([s.provider_status for s in ss]))
    # Polls 2 to 4 (the first was the impatient wait's); the fake batch ends after three.
    assert seen == [["in_progress"], ["in_progress"], ["completed"]]
    assert usecases.collect_batch_pass(patient, "slow-run", job.spec.key).added == 6


def test_probe_pass_by_batch_answers_every_probe_like_the_live_pass(tmp_path: Path,
                                                                   server: FakeLLMServer) -> None:
    server.behaviour.vary = True  # answers depend on the conversation's text, whatever the wire format
    stores = _stored_run(fast_settings(tmp_path), "probe-run")
    name = served_model(server, "openai")
    live = probe_run(stores, "probe-run", probe_model=name)
    live_answers = {(a.conversation_id, a.probe_id): a.answer for a in stores.repo.probe_answers("probe-run")}
    other = served_model(server, "anthropic")  # another answerer, by Message Batches
    result = _full_pass(stores, usecases.rescore_batch_pass(stores, "probe-run", kind="probe", model=other))
    batch_answers = {(a.conversation_id, a.probe_id): a.answer for a in stores.repo.probe_answers("probe-run")
                     if a.answered_by == other}
    assert result.added == live.added > 0
    assert batch_answers == live_answers and len(server.batches) == 1
    assert len(set(live_answers.values())) > 1


def test_record_then_replay_collects_without_the_server(tmp_path: Path) -> None:
    stores = _stored_run(fast_settings(tmp_path, model_cache="record"), "replay-run")
    with FakeLLMServer() as server:
        name = served_model(server, "openai")
        spec = usecases.rescore_batch_pass(stores, "replay-run", kind="judge", model=name, rubric_version="v2")
        _full_pass(stores, spec)
    recorded = {j.conversation_id: j.composite for j in stores.repo.judgments("replay-run", "v2")}
    # Replay into a fresh home: same conversations (re-simulated offline), no server at all.
    home = tmp_path / "replay"
    home.mkdir()
    replay = _stored_run(fast_settings(home, model_cache="replay", model_cache_dir=tmp_path / "model-cache"),
                         "replay-run")
    result = _full_pass(replay, spec)
    assert result.added == 6
    job = usecases.load_job(replay, "replay-run", spec.key)
    assert job.batch_ids == [] and len(job.cached) == 6
    assert {j.conversation_id: j.composite for j in replay.repo.judgments("replay-run", "v2")} == recorded


def test_batch_needs_a_model(tmp_path: Path) -> None:
    stores = _stored_run(fast_settings(tmp_path), "offline-run")
    with pytest.raises(ValueError, match=r"needs a model with a batch API \(openai:… or anthropic:…\)"):
        usecases.rescore_batch_pass(stores, "offline-run", kind="judge", model="offline")


def test_which_passes_go_by_batch(tmp_path: Path) -> None:
    """Model-backed roles only; `enabled=None` leaves it to the suite's `batch_judging`."""
    import shutil

    suite = tmp_path / "suite"
    shutil.copytree(SUITE, suite)
    run = usecases.new_run(str(AGENT), str(suite), seeds=[0], run_id="r",
                           roles={"judge": "openai:gpt-4o-mini", "probe": "offline"},
                           settings=fast_settings(tmp_path))
    args = {"suite_path": str(suite), "agent_path": str(AGENT), "rubric_version": "v2", "repeats": 3}
    assert usecases.batch_passes(run, **args) == []  # the suite does not ask for it
    (only,) = usecases.batch_passes(run, **args, enabled=True)
    assert (only.kind, only.model, only.repeats, only.rubric_version) == ("judge", "openai:gpt-4o-mini", 3, "v2")
    with (suite / "suite.yaml").open("a", encoding="utf-8") as fh:
        fh.write("batch_judging: true\n")
    assert usecases.batch_passes(run, **args) == [only]
    assert usecases.batch_passes(run, **args, enabled=False) == []
