"""Whole runs with model roles on local OpenAI/Anthropic wire-format servers (pipeline steps, no Prefect)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from polygon import usecases
from polygon_core.adapters.providers import run_usage
from tests.fakes.llm_server import AGENT_LINES, CALLER_LINES, FakeLLMServer

from .conftest import fast_settings, model_agent, run_pipeline


def _ends(stores: usecases.Stores, run_id: str) -> list[str]:
    return [c.end_reason for c in stores.repo.list_conversations(run_id)]


def _usage(stores: usecases.Stores, run_id: str) -> dict:
    convs = [{k: v.model_dump() for k, v in (c.usage or {}).items()}
             for c in stores.repo.list_conversations(run_id)]
    return run_usage(stores.artifacts, run_id, convs)


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_agent_on_local_server_with_offline_caller_and_judge(tmp_path: Path, server: FakeLLMServer,
                                                             provider: str) -> None:
    url = server.openai_url if provider == "openai" else server.anthropic_url
    name = f"{provider}:gpt-4o-mini@{url}" if provider == "openai" else f"{provider}:claude-3-5-haiku-latest@{url}"
    agent = model_agent(tmp_path, name)
    stores, run = run_pipeline(fast_settings(tmp_path / "home"), agent, {}, seeds=[0], run_id=f"r-{provider}")
    recs = stores.repo.list_conversations(run.id)
    assert len(recs) == 6
    assert "provider_error" not in _ends(stores, run.id)
    conv = usecases.load_conversation(stores, run.id, recs[0].conversation_id)
    agent_turns = [t.text for t in conv.turns if t.speaker == "agent"]
    # Four lines, then goodbye through the built-in end_call tool (unless the caller hung up first).
    assert agent_turns[:4] == AGENT_LINES[:4]
    assert conv.end_reason in ("agent_end", "caller_hangup")
    assert conv.models == {"agent": name, "caller": "offline"}
    assert all(j.composite is not None for j in stores.repo.judgments(run.id, "v1"))
    usage = _usage(stores, run.id)
    agent_use = usage["roles"]["agent"]
    assert agent_use["models"] == [name] and agent_use["calls"] == sum(
        len([t for t in usecases.load_conversation(stores, run.id, r.conversation_id).turns
             if t.speaker == "agent"]) for r in recs)
    assert agent_use["cached_tokens"] == 8 * agent_use["calls"]
    assert agent_use["tokens_estimated"] is False and agent_use["cost_usd"] > 0
    assert usage["roles"]["caller"]["tokens_estimated"] is True  # the offline caller's estimate


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_every_role_on_local_server(tmp_path: Path, server: FakeLLMServer, provider: str) -> None:
    url = server.openai_url if provider == "openai" else server.anthropic_url
    name = f"openai:gpt-4o-mini@{url}" if provider == "openai" else f"anthropic:claude-3-5-haiku-latest@{url}"
    agent = model_agent(tmp_path, name)
    models = {"caller": name, "judge": name, "probe": name}
    stores, run = run_pipeline(fast_settings(tmp_path / "home"), agent, models, seeds=[0], run_id="r-all")
    recs = stores.repo.list_conversations(run.id)
    assert _ends(stores, run.id) == ["caller_hangup"] * 6
    conv = usecases.load_conversation(stores, run.id, recs[0].conversation_id)
    callers = [t.text for t in conv.turns if t.speaker == "caller"]
    # Two lines, then the goodbye; the end signal is never spoken to the agent.
    assert callers == [CALLER_LINES[0], CALLER_LINES[1], "Okay, thanks, goodbye."]
    judgments = stores.repo.judgments(run.id, "v1")
    assert len(judgments) == 6 and {j.judge_model for j in judgments} == {name}
    assert {j.composite for j in judgments} == {100.0}  # the fake judge gives every criterion 5
    answers = stores.repo.probe_answers(run.id)
    assert answers and {a.answered_by for a in answers} == {name}
    usage = _usage(stores, run.id)
    assert sorted(usage["roles"]) == ["agent", "caller", "judge", "probe"]
    assert usage["roles"]["judge"]["calls"] == 6 and usage["roles"]["probe"]["calls"] == 6
    assert all(r["cost_usd"] > 0 for r in usage["roles"].values())
    assert usage["prices_read_on"] == "2025-08-15" and usage["cost_estimated"] is True


def test_429_third_500_tenth_every_conversation_completes(tmp_path: Path, server: FakeLLMServer) -> None:
    server.behaviour.fault_for = lambda n: "429" if n % 3 == 0 else ("500" if n % 10 == 1 else None)
    name = f"openai:gpt-4o-mini@{server.openai_url}"
    agent = model_agent(tmp_path, name)
    seeds = list(range(9))  # 6 scenarios × 9 seeds = 54 conversations
    # A generous timeout: on a loaded machine a 0.5 s timeout adds retries the server never caused,
    # and this test pins retries to exactly the server's 429s and 500s.
    stores, run = run_pipeline(fast_settings(tmp_path / "home", model_timeout=15.0), agent,
                               {"caller": name, "judge": name, "probe": name}, seeds=seeds, run_id="r-faults")
    ends = _ends(stores, run.id)
    assert len(ends) == 54 and set(ends) == {"caller_hangup"}
    judgments = stores.repo.judgments(run.id, "v1")
    assert len(judgments) == 54 and all(j.composite == 100.0 for j in judgments)
    usage = _usage(stores, run.id)
    assert server.statuses[429] > 0 and server.statuses[500] > 0
    assert usage["retries"] == server.statuses[429] + server.statuses[500]
    assert sum(r["failures"] for r in usage["roles"].values()) == 0


def test_always_failing_server_ends_every_conversation_provider_error(tmp_path: Path,
                                                                     server: FakeLLMServer) -> None:
    server.behaviour.fault_for = lambda n: "500"
    name = f"anthropic:claude-3-5-haiku-latest@{server.anthropic_url}"
    agent = model_agent(tmp_path, name)
    stores, run = run_pipeline(fast_settings(tmp_path / "home", model_max_attempts=3), agent,
                               {"judge": name}, seeds=[0], run_id="r-down")
    assert _ends(stores, run.id) == ["provider_error"] * 6
    assert stores.repo.judgments(run.id, "v1") == []  # zero composite scores recorded
    conv = usecases.load_conversation(stores, run.id, stores.repo.list_conversations(run.id)[0].conversation_id)
    assert conv.end_detail == (f"{name}: gave up after 3 attempts: HTTP 500: fake fault 500")
    assert server.requests == 6 * 3  # three attempts per conversation, then no judge call at all
    card = usecases.scorecard(stores, run.id)
    assert card.provider_errors == 6


def test_record_stop_replay_gives_identical_transcripts_and_scores(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with FakeLLMServer() as srv:
        name = f"openai:gpt-4o-mini@{srv.openai_url}"
        agent = model_agent(tmp_path, name)
        models = {"caller": name, "judge": name, "probe": name}
        stores, first = run_pipeline(fast_settings(home, model_cache="record"), agent, models, seeds=[0, 1],
                                     run_id="r-record")
        recorded = srv.requests
    assert recorded > 0  # the server is stopped now: any live call would fail
    stores2, second = run_pipeline(fast_settings(home, model_cache="replay", model_max_attempts=1), agent,
                                   models, seeds=[0, 1], run_id="r-replay")

    def transcripts(s: usecases.Stores, rid: str) -> dict[str, str]:
        return {r.conversation_id: usecases.fingerprint(usecases.load_conversation(s, rid, r.conversation_id)
                                                        .model_dump(mode="json"))
                for r in s.repo.list_conversations(rid)}

    assert transcripts(stores, first.id) == transcripts(stores2, second.id)
    def scores(s: Any, rid: str) -> dict[str, Any]:
        return {j.conversation_id: (j.composite, j.verdict) for j in s.repo.judgments(rid, "v1")}

    assert scores(stores, first.id) == scores(stores2, second.id) and len(scores(stores, first.id)) == 12
    assert "provider_error" not in _ends(stores2, second.id)


def test_replay_miss_is_an_error_not_a_live_call(tmp_path: Path, server: FakeLLMServer) -> None:
    agent = model_agent(tmp_path, f"openai:gpt-4o-mini@{server.openai_url}")
    stores, run = run_pipeline(fast_settings(tmp_path / "home", model_cache="replay"), agent, {}, seeds=[0],
                               run_id="r-miss")
    assert _ends(stores, run.id) == ["provider_error"] * 6
    assert server.requests == 0
    conv = usecases.load_conversation(stores, run.id, stores.repo.list_conversations(run.id)[0].conversation_id)
    assert "no recorded reply" in (conv.end_detail or "")


def test_secrets_never_stored_or_logged(tmp_path: Path, server: FakeLLMServer,
                                        caplog: pytest.LogCaptureFixture) -> None:
    import logging

    caplog.set_level(logging.DEBUG)
    home = tmp_path / "home"
    name = f"openai:gpt-4o-mini@{server.openai_url}"
    agent = model_agent(tmp_path, name)
    server.behaviour.fault_for = lambda n: "401" if n >= 30 else None
    run_pipeline(fast_settings(home), agent, {"caller": name, "judge": name, "probe": name}, seeds=[0],
                 run_id="r-secret")
    from .conftest import FAKE_KEY

    # The key did reach the server (so the test means something)…
    assert any({k.lower(): v for k, v in h.items()}.get("authorization") == f"Bearer {FAKE_KEY}"
               for h in server.headers_seen)
    # …and appears in no stored byte, no artifact and no log line.
    files = [p for p in home.rglob("*") if p.is_file()]
    assert any(p.name == "polygon.db" for p in files) and any(p.suffix == ".json" for p in files)
    for path in files:
        assert FAKE_KEY.encode() not in path.read_bytes(), path
    assert FAKE_KEY not in caplog.text
