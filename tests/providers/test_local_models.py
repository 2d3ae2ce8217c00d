"""Real local models: an output cap on every request, runaway replies cut, per-role timeouts and attempts,
and one-line failure reasons (timeout, 401, refused connection), against the fake server."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest

from polygon.usecases import analyze_and_store, generate_for_agent
from polygon_core.adapters.providers import make_chat_model
from polygon_core.adapters.providers._openai import OpenAIAdapter
from polygon_core.conversation import ProviderFailure
from polygon_core.judging import read_judge_reply
from polygon_core.judging._prompt import UNPARSEABLE_REPLY, UNPARSEABLE_TEXT
from polygon_core.providers import ChatMessage, ChatRequest, ChatResponse
from polygon_core.scoring import get_rubric
from tests.fakes.llm_modes import refused_url
from tests.fakes.llm_server import AGENT_LINES, FakeLLMServer

from .conftest import FAKE_KEY, SCHEMA, fast_settings, model_agent, run_pipeline, served_model

CAP_MESSAGE = "reply cut at the output cap of 1024 tokens (raise POLYGON_JUDGE_MAX_TOKENS)"


def _ask(model: Any, request: ChatRequest) -> ChatResponse:
    async def go() -> ChatResponse:
        try:
            return await model.chat(request)
        finally:
            await model.aclose()

    return asyncio.run(go())


def _req(role: str = "judge", **kw: Any) -> ChatRequest:
    return ChatRequest(messages=[ChatMessage(role="system", content="be brief"),
                                 ChatMessage(role="user", content="hello")], role=role, **kw)


def _role_of(body: dict[str, Any]) -> str:
    name = ((body.get("response_format") or {}).get("json_schema") or {}).get("name")
    if name:
        return {"judgment": "judge", "probe_answers": "probe", "persona": "persona",
                "prompt_analysis": "analysis"}[name]
    system = " ".join(str(m.get("content")) for m in body["messages"] if m["role"] == "system")
    return "caller" if "[END:" in system else "agent"


def test_every_role_sends_its_cap(tmp_path: Path, server: FakeLLMServer) -> None:
    name = served_model(server, "openai")
    settings = fast_settings(tmp_path / "home", caller_max_tokens=111, judge_max_tokens=333, probe_max_tokens=222)
    agent = model_agent(tmp_path, name)
    run_pipeline(settings, agent, {"caller": name, "judge": name, "probe": name}, seeds=[0], run_id="caps")
    generate_for_agent(agent, count=1, model=name, settings=settings)
    analyze_and_store(None, "You are Northwind's billing line. Verify the account first.",
                      judge_model=make_chat_model(name, settings))
    caps: dict[str, set[int]] = {}
    for body in server.behaviour.seen:
        caps.setdefault(_role_of(body), set()).add(body.get("max_tokens"))
    # The agent's sampling names no cap: the agent default; analysis asks as the judge.
    assert caps == {"agent": {512}, "caller": {111}, "judge": {333}, "probe": {222}, "persona": {1024},
                    "analysis": {333}}
    assert all(body["stream"] is True and "max_completion_tokens" not in body for body in server.behaviour.seen)


def test_the_agents_own_max_tokens_wins(tmp_path: Path, server: FakeLLMServer) -> None:
    model = make_chat_model(served_model(server, "openai"), fast_settings(tmp_path, agent_max_tokens=50))
    _ask(model, _req("agent", max_tokens=64))
    _ask(model, _req("agent"))
    assert [b["max_tokens"] for b in server.behaviour.seen] == [64, 50]


def test_openai_own_api_gets_max_completion_tokens() -> None:
    own = OpenAIAdapter("gpt-5-mini", api_key=FAKE_KEY, base_url=None, timeout=5)
    local = OpenAIAdapter("qwen", api_key=None, base_url="http://127.0.0.1:8080/v1", timeout=5)
    assert own._params(_req(max_tokens=9))["max_completion_tokens"] == 9
    assert "max_tokens" not in own._params(_req(max_tokens=9))
    assert local._params(_req(max_tokens=9))["max_tokens"] == 9


def test_anthropic_request_carries_the_role_cap(tmp_path: Path, server: FakeLLMServer) -> None:
    _ask(make_chat_model(served_model(server, "anthropic"), fast_settings(tmp_path, probe_max_tokens=77)),
         _req("probe"))
    assert server.behaviour.seen[0]["max_tokens"] == 77


@pytest.mark.parametrize("streamed", [True, False])
def test_runaway_judge_reply_is_cut_at_the_cap(tmp_path: Path, server: FakeLLMServer, streamed: bool) -> None:
    server.behaviour.runaway_tokens = 20_000  # ignores max_tokens
    server.behaviour.stream = streamed
    # The bound that matters is what was read: at most the cap, from one request, not the 20,000 words.
    reply = _ask(make_chat_model(served_model(server, "openai"), fast_settings(tmp_path, model_timeout=20)),
                 _req(response_schema=SCHEMA))
    assert (reply.cut, reply.unparseable, reply.parsed, reply.parse_error) == (True, True, None, CAP_MESSAGE)
    assert len(reply.text) <= 8 * 1024 + 16 and reply.retries == 0 and server.requests == 1
    if streamed:
        # Reading stopped at the cap (the opening brace and 1023 words) and the connection was closed.
        assert reply.text.count("word") == 1023
        deadline = time.monotonic() + 5
        while server.streams_cut_short == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server.streams_cut_short == 1
    assert read_judge_reply(reply, get_rubric("v1")) == {UNPARSEABLE_REPLY: CAP_MESSAGE,
                                                         UNPARSEABLE_TEXT: reply.text[:2000]}


def test_runaway_anthropic_reply_is_cut_at_the_cap(tmp_path: Path, server: FakeLLMServer) -> None:
    server.behaviour.runaway_tokens = 20_000  # a Messages-compatible server that ignored max_tokens
    reply = _ask(make_chat_model(served_model(server, "anthropic"), fast_settings(tmp_path)),
                 _req(response_schema=SCHEMA))
    assert (reply.cut, reply.unparseable, reply.parsed, reply.parse_error) == (True, True, None, CAP_MESSAGE)
    assert len(reply.text) == 4 * 1024


def test_runaway_text_reply_keeps_its_start(tmp_path: Path, server: FakeLLMServer) -> None:
    server.behaviour.runaway_tokens = 20_000
    reply = _ask(make_chat_model(served_model(server, "openai"), fast_settings(tmp_path, caller_max_tokens=10)),
                 _req("caller"))
    assert reply.cut is True and reply.unparseable is False
    assert reply.text == "".join(f"word{i % 10} " for i in range(10))


def test_streamed_reply_reads_like_a_whole_one(tmp_path: Path, server: FakeLLMServer) -> None:
    server.behaviour.tool_call = True
    from polygon_core.providers import ChatTool

    model = make_chat_model(served_model(server, "openai"), fast_settings(tmp_path))
    reply = _ask(model, _req("agent", tools=[ChatTool(name="lookup_account")]))
    assert [(c.name, c.arguments) for c in reply.tool_calls] == [("lookup_account", {"account_id": "4417"})]
    assert reply.cut is False and reply.usage.cached_tokens == 8 and not reply.usage.estimated
    server.behaviour.tool_call = False
    text = _ask(make_chat_model(served_model(server, "openai"), fast_settings(tmp_path)), _req("agent"))
    assert text.text == AGENT_LINES[0] and text.usage.output_tokens == len(AGENT_LINES[0]) // 4


def test_timeout_names_the_roles_variable(tmp_path: Path, server: FakeLLMServer) -> None:
    server.behaviour.fault_for = lambda n: "slow"
    server.behaviour.slow_seconds = 1.0
    settings = fast_settings(tmp_path, judge_timeout=0.2, judge_max_attempts=2, model_max_attempts=6)
    with pytest.raises(ProviderFailure) as info:
        _ask(make_chat_model(served_model(server, "openai"), settings), _req(response_schema=SCHEMA))
    assert str(info.value) == ("timed out after 0.2 s on each of 2 attempts (raise POLYGON_JUDGE_TIMEOUT or "
                               "POLYGON_MODEL_TIMEOUT for a slow local model)")
    assert server.requests == 2


def test_a_trickling_reply_meets_the_deadline(tmp_path: Path, server: FakeLLMServer) -> None:
    # Every event comes fast enough for a read timeout, but the whole reply is too slow.
    server.behaviour.runaway_tokens = 200
    server.behaviour.token_delay = 0.02
    settings = fast_settings(tmp_path, probe_timeout=0.5, probe_max_attempts=1)
    with pytest.raises(ProviderFailure) as info:
        _ask(make_chat_model(served_model(server, "openai"), settings), _req("probe"))
    assert str(info.value) == ("timed out after 0.5 s (raise POLYGON_PROBE_TIMEOUT or POLYGON_MODEL_TIMEOUT "
                               "for a slow local model)")


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_401_is_one_line_naming_the_key_variable(tmp_path: Path, server: FakeLLMServer, provider: str) -> None:
    server.behaviour.fault_for = lambda n: "401"
    url = server.openai_url if provider == "openai" else server.anthropic_url
    name = f"{provider}:qwen@{url}"
    with pytest.raises(ProviderFailure) as info:
        _ask(make_chat_model(name, fast_settings(tmp_path)), _req())
    variable = "OPENAI_API_KEY" if provider == "openai" else "ANTHROPIC_API_KEY"
    assert str(info.value) == f"401 Unauthorized from {provider}:qwen at {url}: check {variable}"
    assert FAKE_KEY not in str(info.value) and server.requests == 1


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_refused_connection_is_one_line(tmp_path: Path, provider: str) -> None:
    url = refused_url()
    if provider == "anthropic":
        url = url.removesuffix("/v1")
    settings = fast_settings(tmp_path, model_max_attempts=2)
    with pytest.raises(ProviderFailure) as info:
        _ask(make_chat_model(f"{provider}:qwen@{url}", settings), _req())
    assert str(info.value) == f"cannot connect to {url}: is the server running?"


def test_role_settings_default_to_the_model_settings(tmp_path: Path) -> None:
    model = make_chat_model("openai:qwen@http://127.0.0.1:9/v1",
                            fast_settings(tmp_path, model_timeout=7, model_max_attempts=3, caller_timeout=30))
    judge, caller = model.budget("judge"), model.budget("caller")
    assert (judge.timeout, judge.max_attempts, judge.max_tokens) == (7, 3, 1024)
    assert (caller.timeout, caller.max_attempts, caller.max_tokens) == (30, 3, 256)
    assert model.budget("persona_generator").group == "persona" and model.budget("analysis").group == "judge"


def test_an_over_long_quote_is_cut_and_the_score_stands() -> None:
    from polygon_core.adapters.providers import read_structured
    from polygon_core.judging import judge_response_schema

    rubric = get_rubric("v1")
    schema = judge_response_schema(rubric)
    value = {name: {"score": 4, "evidence": "q" * 500} for name in rubric.criterion_names}
    parsed, bad, error = read_structured(value, schema)
    assert bad is True and error is not None and "is too long" in error  # the schema's maxLength
    reply = ChatResponse(parsed=parsed, unparseable=bad, parse_error=error, provider="openai", model="qwen")
    assert read_judge_reply(reply, rubric) == {name: {"score": 4, "evidence": "q" * 300}
                                               for name in rubric.criterion_names}


def test_a_cut_probe_reply_says_why(tmp_path: Path, server: FakeLLMServer) -> None:
    from polygon_core.judging._prompt import reply_problem

    server.behaviour.runaway_tokens = 20_000
    reply = _ask(make_chat_model(served_model(server, "openai"), fast_settings(tmp_path, probe_max_tokens=64)),
                 _req("probe", response_schema=SCHEMA))
    assert reply_problem(reply) == "reply cut at the output cap of 64 tokens (raise POLYGON_PROBE_MAX_TOKENS)"
    assert reply_problem(ChatResponse(parsed={"score": 5}, provider="openai", model="qwen")) is None


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_connection_closed_before_the_reply_is_a_dropped_connection_not_a_timeout(
        tmp_path: Path, server: FakeLLMServer, provider: str) -> None:
    # The SDKs' aiohttp transport hands this to the SDK as a connect timeout; Polygon reads the
    # aiohttp error it was raised from.
    server.behaviour.fault_for = lambda n: "drop"  # every attempt: read the request, close without a reply
    url = server.openai_url if provider == "openai" else server.anthropic_url
    with pytest.raises(ProviderFailure) as info:
        _ask(make_chat_model(f"{provider}:qwen@{url}", fast_settings(tmp_path, model_max_attempts=2)), _req())
    assert str(info.value) == (f"{provider}:qwen@{url}: gave up after 2 attempts: "
                               f"the connection to {url} dropped (ServerDisconnectedError)")
    assert server.requests == 2  # two attempts, each read in full and dropped


def test_prompt_analysis_with_a_judge_model_closes_its_clients(tmp_path: Path, server: FakeLLMServer) -> None:
    # On its own event loop: clients left open there are kept (with their loop) until the process
    # ends, and aiohttp then reports "Unclosed client session" on stderr.
    from polygon_core.adapters.providers import _clients

    model = make_chat_model(served_model(server, "openai"), fast_settings(tmp_path))
    loops = len(_clients._BY_LOOP)
    analyze_and_store(None, "You are Northwind's billing line. Verify the account first.", judge_model=model)
    assert server.requests >= 1
    assert len(_clients._BY_LOOP) == loops  # the analysis loop's clients were closed and dropped


@pytest.fixture(scope="module")
def self_signed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A key and a self-signed certificate for 127.0.0.1 (made once for the module)."""
    import subprocess

    folder = tmp_path_factory.mktemp("tls")
    key, cert = folder / "key.pem", folder / "cert.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out",
                    str(cert), "-days", "1", "-subj", "/CN=127.0.0.1"], check=True, capture_output=True)
    return key, cert


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_certificate_that_does_not_verify_is_final_at_once_with_its_reason(
        tmp_path: Path, provider: str, self_signed: tuple[Path, Path]) -> None:
    import socket
    import ssl
    import threading

    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(self_signed[1], self_signed[0])
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(10)

    def serve() -> None:  # a TLS handshake with the self-signed certificate, for every connection
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            try:
                with context.wrap_socket(conn, server_side=True):
                    pass
            except (ssl.SSLError, OSError):
                pass  # the client refused the certificate

    threading.Thread(target=serve, daemon=True).start()
    url = f"https://127.0.0.1:{listener.getsockname()[1]}" + ("/v1" if provider == "openai" else "")
    try:
        with pytest.raises(ProviderFailure) as info:
            _ask(make_chat_model(f"{provider}:qwen@{url}", fast_settings(tmp_path, model_max_attempts=3)), _req())
    finally:
        listener.close()
    # Final at once: a retried failure would read "...: gave up after 3 attempts: ...".
    assert str(info.value).startswith(f"TLS failed for {url}: [SSL: CERTIFICATE_VERIFY_FAILED] ")
    assert str(info.value).endswith("(is the URL's scheme, host and certificate right? a private CA goes in "
                                    "SSL_CERT_FILE)")
