"""The bot's tools (issue 30, item 3): a conversation's stubs served over HTTP and MCP on loopback.

Real requests through httpx and the `mcp` SDK's own streamable-HTTP client against a real server;
the callback is the engine's `ToolEnvironment`, so results, faults and invalid calls are the
engine's own records of them.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import AsyncIterator

import httpx
import pytest
import yaml
from mcp import Client
from mcp.shared.exceptions import MCPError
from openapi_spec_validator import validate as validate_openapi

from polygon_core.adapters.stub_server import (
    OPENAPI_VERSION,
    StubCall,
    StubRoute,
    StubServer,
    StubServerError,
    openapi_document,
)
from polygon_core.models import ToolCall, ToolLibrary
from polygon_core.stubs import ToolEnvironment
from tests.conftest import REPO

LIBRARY = ToolLibrary.model_validate(yaml.safe_load("""
tools:
  lookup_account:
    description: Look up a customer's account by its number.
    parameters:
      type: object
      properties:
        account_id: {type: string, pattern: "^[0-9]{4,8}$"}
      required: [account_id]
      additionalProperties: false
    kind: rules
    rules:
      - when: "args['account_id'] == '1234'"
        response: {verified: true, name: "Ana Ruiz", balance: 12.5}
      - when: "True"
        response: {verified: false}
  issue_refund:
    description: Refund a charge to the customer's card.
    parameters:
      type: object
      properties:
        amount: {type: number, exclusiveMinimum: 0}
        reason: {type: string}
      required: [amount]
      additionalProperties: false
    kind: state
    state: {op: append, path: refunds, record: {amount: "{{ args.amount }}"}}
    events: [refund_issued]
  charge_card:
    description: Charge the card on file.
    parameters: {type: object, properties: {amount: {type: number}}, required: [amount]}
    response: {charged: true}
    errors: {rate: 1.0, kind: server_error}
  check_status:
    description: The status of an order.
    parameters: {type: object, properties: {order: {type: string}}}
    response: {status: shipped}
    errors: {rate: 1.0, kind: timeout}
  pay_invoice:
    description: Pay an invoice.
    parameters: {type: object, properties: {invoice: {type: string}}}
    response: {paid: true}
    errors: {rate: 1.0, kind: custom, payload: {error: card_declined, status: 402, retry: false}}
  hold_music:
    description: Play hold music.
    parameters: {type: object, properties: {}}
    response: null
    errors: {rate: 1.0, kind: custom, payload: line busy}
"""))

CONVERSATION = "refund-s1-0a1b2c3d"


class Answerer:
    """The conversation's callback: the engine's tool environment answers, every call is kept."""

    def __init__(self) -> None:
        self.env = ToolEnvironment(LIBRARY.tools, {"refunds": []}, conversation_id=CONVERSATION, seed=1)
        self.seen: list[StubCall] = []

    async def __call__(self, call: StubCall) -> ToolCall:
        self.seen.append(call)
        return self.env.call(call.tool, call.arguments, turn=1)


@pytest.fixture
async def server() -> AsyncIterator[StubServer]:
    async with StubServer() as running:
        yield running


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(trust_env=False) as client:
        yield client


def _open(server: StubServer, answerer: Answerer, conversation_id: str = CONVERSATION) -> StubRoute:
    return server.open(conversation_id, answerer.env.schemas(), answerer)


# -- the HTTP door ------------------------------------------------------------------------------


async def test_a_tool_call_reaches_the_callback_and_its_result_comes_back(
        server: StubServer, http: httpx.AsyncClient) -> None:
    answerer = Answerer()
    route = _open(server, answerer)
    assert route.base_url == f"http://127.0.0.1:{server.port}/conversations/{CONVERSATION}~1"
    assert route.tool_url("lookup_account") == route.base_url + "/tools/lookup_account"

    found = await http.post(route.tool_url("lookup_account"), json={"account_id": "1234"})
    missed = await http.post(route.tool_url("lookup_account"), json={"account_id": "9999"})
    refund = await http.post(route.tool_url("issue_refund"), json={"amount": 49, "reason": "double charge"})

    assert (found.status_code, found.json()) == (200, {"verified": True, "name": "Ana Ruiz", "balance": 12.5})
    assert (missed.status_code, missed.json()) == (200, {"verified": False})
    assert refund.status_code == 200
    assert answerer.seen == [
        StubCall(CONVERSATION, "lookup_account", {"account_id": "1234"}, "http-1", "http"),
        StubCall(CONVERSATION, "lookup_account", {"account_id": "9999"}, "http-2", "http"),
        StubCall(CONVERSATION, "issue_refund", {"amount": 49, "reason": "double charge"}, "http-3", "http"),
    ]
    # The engine ran the stubs: its trace, state and events are what the calls did.
    assert [(c.name, c.valid) for c in answerer.env.calls] == [
        ("lookup_account", True), ("lookup_account", True), ("issue_refund", True)]
    assert answerer.env.state["refunds"] == [{"amount": 49}]
    assert [e.name for e in answerer.env.events] == ["refund_issued"]


async def test_an_empty_body_is_no_arguments(server: StubServer, http: httpx.AsyncClient) -> None:
    answerer = Answerer()
    route = _open(server, answerer)
    answer = await http.post(route.tool_url("issue_refund"))
    assert answer.status_code == 422
    assert answer.json() == {"error": "invalid_arguments", "detail": "$: 'amount' is a required property"}
    assert answerer.seen[0].arguments == {}


async def test_injected_faults_are_http_errors_with_the_faults_body(
        server: StubServer, http: httpx.AsyncClient) -> None:
    answerer = Answerer()
    route = _open(server, answerer)
    answers = [await http.post(route.tool_url(name), json=args) for name, args in [
        ("charge_card", {"amount": 10}), ("check_status", {"order": "A1"}), ("pay_invoice", {"invoice": "I-7"}),
        ("hold_music", {})]]
    assert [(a.status_code, a.json()) for a in answers] == [
        (500, {"error": "server_error", "status": 500}),
        (504, {"error": "timeout"}),
        (402, {"error": "card_declined", "status": 402, "retry": False}),  # the payload names its status
        (500, "line busy"),
    ]
    assert [c.error for c in answerer.env.calls] == ["server_error", "timeout", "custom", "custom"]


async def test_invalid_arguments_reach_the_callback_and_are_a_422_with_the_schema_error(
        server: StubServer, http: httpx.AsyncClient) -> None:
    answerer = Answerer()
    route = _open(server, answerer)
    wrong_type = await http.post(route.tool_url("issue_refund"), json={"amount": "ten"})
    not_an_object = await http.post(route.tool_url("issue_refund"), json=[49])
    assert (wrong_type.status_code, wrong_type.json()) == (
        422, {"error": "invalid_arguments", "detail": "$.amount: 'ten' is not of type 'number'"})
    assert (not_an_object.status_code, not_an_object.json()) == (
        422, {"error": "invalid_arguments", "detail": "$: arguments must be a JSON object, got list"})
    # Recorded as invalid calls, as for a text agent: the v2 invalid-argument gate counts them.
    assert [c.arguments for c in answerer.seen] == [{"amount": "ten"}, [49]]
    assert [(c.name, c.valid) for c in answerer.env.calls] == [("issue_refund", False), ("issue_refund", False)]


async def test_unknown_conversations_and_tools_are_404_and_reach_no_callback(
        server: StubServer, http: httpx.AsyncClient) -> None:
    answerer = Answerer()
    route = _open(server, answerer)
    no_tool = await http.post(route.base_url + "/tools/delete_account", json={})
    no_conversation = await http.post(f"{server.base_url}/conversations/nobody~7/tools/lookup_account", json={})
    no_document = await http.get(f"{server.base_url}/conversations/nobody~7/openapi.json")
    assert (no_tool.status_code, no_tool.json()) == (404, {
        "error": "unknown_tool",
        "detail": f"conversation {CONVERSATION!r} has no tool 'delete_account' (tools: lookup_account, "
                  "issue_refund, charge_card, check_status, pay_invoice, hold_music)"})
    unknown = {"error": "unknown_conversation", "detail": "no conversation is served at 'nobody~7'"}
    assert (no_conversation.status_code, no_conversation.json()) == (404, unknown)
    assert (no_document.status_code, no_document.json()) == (404, unknown)
    assert answerer.seen == []


async def test_a_body_that_is_not_json_is_a_400(server: StubServer, http: httpx.AsyncClient) -> None:
    answerer = Answerer()
    route = _open(server, answerer)
    answer = await http.post(route.tool_url("lookup_account"), content=b"account 1234")
    assert answer.status_code == 400
    assert answer.json()["error"] == "invalid_json"
    assert answer.json()["detail"].startswith("the body of a call to 'lookup_account' is not JSON: ")
    assert answerer.seen == []


async def test_a_call_after_the_call_ended_is_a_410(server: StubServer, http: httpx.AsyncClient) -> None:
    answerer = Answerer()
    with _open(server, answerer) as route:
        assert (await http.post(route.tool_url("lookup_account"), json={"account_id": "1234"})).status_code == 200
    assert route.closed
    ended = {"error": "call_ended", "detail": f"the call of conversation {CONVERSATION!r} has ended"}
    late_call = await http.post(route.tool_url("lookup_account"), json={"account_id": "1234"})
    late_document = await http.get(route.openapi_url)
    late_mcp = await http.post(route.mcp_url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert [(a.status_code, a.json()) for a in (late_call, late_document, late_mcp)] == [(410, ended)] * 3
    assert len(answerer.seen) == 1


async def test_a_call_running_when_the_call_ends_is_answered_410(
        server: StubServer, http: httpx.AsyncClient) -> None:
    started, outcome = asyncio.Event(), []

    async def never_answers(call: StubCall) -> ToolCall:
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            outcome.append("cancelled")
            raise
        raise AssertionError("unreachable")

    route = server.open(CONVERSATION, Answerer().env.schemas(), never_answers)
    request = asyncio.create_task(http.post(route.tool_url("lookup_account"), json={"account_id": "1234"}))
    await started.wait()
    route.close()
    answer = await request
    assert (answer.status_code, answer.json()) == (410, {
        "error": "call_ended",
        "detail": f"the call of conversation {CONVERSATION!r} ended while 'lookup_account' was running"})
    assert outcome == ["cancelled"]


async def test_a_failing_callback_is_a_500_that_names_the_failure(
        server: StubServer, http: httpx.AsyncClient) -> None:
    async def broken(call: StubCall) -> ToolCall:
        raise RuntimeError("the stub's template does not compile")

    route = server.open(CONVERSATION, Answerer().env.schemas(), broken)
    answer = await http.post(route.tool_url("lookup_account"), json={"account_id": "1234"})
    assert (answer.status_code, answer.json()) == (500, {
        "error": "stub_failed", "detail": "RuntimeError: the stub's template does not compile"})


async def test_each_conversation_has_its_own_url_even_with_the_same_id(
        server: StubServer, http: httpx.AsyncClient) -> None:
    first, second = Answerer(), Answerer()
    route_1, route_2 = _open(server, first), _open(server, second, conversation_id=CONVERSATION)
    assert (route_1.key, route_2.key) == (f"{CONVERSATION}~1", f"{CONVERSATION}~2")
    route_1.close()  # the first call ended; a stale bot of it cannot reach the second
    assert (await http.post(route_1.tool_url("issue_refund"), json={"amount": 5})).status_code == 410
    assert (await http.post(route_2.tool_url("issue_refund"), json={"amount": 7})).status_code == 200
    assert (first.seen, [c.arguments for c in second.seen]) == ([], [{"amount": 7}])


async def test_a_conversation_id_is_made_url_safe_in_its_key(server: StubServer, http: httpx.AsyncClient) -> None:
    answerer = Answerer()
    route = _open(server, answerer, conversation_id="run 7/refund?s=1")
    assert route.key == "run_7_refund_s_1~1"
    assert (await http.post(route.tool_url("lookup_account"), json={"account_id": "1234"})).status_code == 200
    assert answerer.seen[0].conversation_id == "run 7/refund?s=1"


# -- the OpenAPI document -----------------------------------------------------------------------


async def test_the_openapi_document_is_openapi_3_1_with_each_tools_schema_as_its_body(
        server: StubServer, http: httpx.AsyncClient) -> None:
    answerer = Answerer()
    route = _open(server, answerer)
    answer = await http.get(route.openapi_url)
    assert answer.status_code == 200
    document = answer.json()
    validate_openapi(document)  # raises on any structural error (the OpenAPI 3.1 meta-schema and more)
    assert document["openapi"] == OPENAPI_VERSION == "3.1.0"
    assert document["servers"] == [{"url": route.base_url}]
    names = list(LIBRARY.tools)
    assert list(document["paths"]) == [f"/tools/{name}" for name in names]
    operations = [document["paths"][f"/tools/{name}"] for name in names]
    assert [list(op) for op in operations] == [["post"]] * len(names)
    # The request bodies are the tool library's JSON Schemas, exactly.
    assert [op["post"]["requestBody"] for op in operations] == [
        {"required": True, "content": {"application/json": {"schema": LIBRARY.tools[n].parameters}}} for n in names]
    assert [(op["post"]["operationId"], op["post"]["description"]) for op in operations] == [
        (n, LIBRARY.tools[n].description) for n in names]
    assert [sorted(op["post"]["responses"]) for op in operations] == [
        ["200", "400", "404", "410", "422", "500", "504", "default"]] * len(names)
    # Every URL the document names answers: each tool's endpoint is where the route says it is.
    assert [document["servers"][0]["url"] + path for path in document["paths"]] == [
        route.tool_url(n) for n in names]


def test_the_document_lists_only_the_tools_given_in_their_order() -> None:
    env = Answerer().env
    document = openapi_document(env.schemas(["issue_refund", "lookup_account"]), "http://127.0.0.1:1/c")
    validate_openapi(document)
    assert list(document["paths"]) == ["/tools/issue_refund", "/tools/lookup_account"]
    assert openapi_document([{"name": "a b/c", "description": "", "parameters": {"type": "object"}}],
                            "http://x")["paths"].keys() == {"/tools/a%20b%2Fc"}


# -- the MCP door -------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["auto", "legacy"])  # the 2026 protocol (discover) and the initialize handshake
async def test_mcp_lists_the_same_tools_and_calls_reach_the_callback(server: StubServer, mode: str) -> None:
    answerer = Answerer()
    route = _open(server, answerer)
    async with Client(route.mcp_url, mode=mode) as client:
        listed = await client.list_tools()
        found = await client.call_tool("lookup_account", {"account_id": "1234"})
        failed = await client.call_tool("charge_card", {"amount": 10})
        invalid = await client.call_tool("issue_refund", {"amount": "ten"})
    assert [(t.name, t.description, t.input_schema) for t in listed.tools] == [
        (s["name"], s["description"], s["parameters"]) for s in answerer.env.schemas()]
    assert (found.is_error, found.structured_content) == (False, {"verified": True, "name": "Ana Ruiz",
                                                                  "balance": 12.5})
    assert [c.model_dump(include={"type", "text"}) for c in found.content] == [
        {"type": "text", "text": '{"verified": true, "name": "Ana Ruiz", "balance": 12.5}'}]
    assert (failed.is_error, failed.structured_content) == (True, {"error": "server_error", "status": 500})
    assert (invalid.is_error, invalid.structured_content) == (
        True, {"error": "invalid_arguments", "detail": "$.amount: 'ten' is not of type 'number'"})
    assert answerer.seen == [
        StubCall(CONVERSATION, "lookup_account", {"account_id": "1234"}, "mcp-1", "mcp"),
        StubCall(CONVERSATION, "charge_card", {"amount": 10}, "mcp-2", "mcp"),
        StubCall(CONVERSATION, "issue_refund", {"amount": "ten"}, "mcp-3", "mcp"),
    ]
    assert [(c.name, c.valid, c.error) for c in answerer.env.calls] == [
        ("lookup_account", True, None), ("charge_card", True, "server_error"), ("issue_refund", False, None)]


async def test_mcp_refuses_an_unknown_tool_without_calling_the_stubs(server: StubServer) -> None:
    answerer = Answerer()
    route = _open(server, answerer)
    async with Client(route.mcp_url) as client:
        with pytest.raises(MCPError) as raised:
            await client.call_tool("delete_account", {})
    assert raised.value.message == (f"conversation {CONVERSATION!r} has no tool 'delete_account' (tools: "
                                    "lookup_account, issue_refund, charge_card, check_status, pay_invoice, hold_music)")
    assert answerer.seen == []


async def test_mcp_on_an_unknown_conversation_is_a_404(server: StubServer, http: httpx.AsyncClient) -> None:
    answer = await http.post(f"{server.base_url}/conversations/nobody~3/mcp",
                             json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert (answer.status_code, answer.json()) == (
        404, {"error": "unknown_conversation", "detail": "no conversation is served at 'nobody~3'"})


async def test_a_failing_callback_is_an_mcp_internal_error(server: StubServer) -> None:
    async def broken(call: StubCall) -> ToolCall:
        raise RuntimeError("the stub's template does not compile")

    route = server.open(CONVERSATION, Answerer().env.schemas(), broken)
    async with Client(route.mcp_url) as client:
        with pytest.raises(MCPError) as raised:
            await client.call_tool("lookup_account", {"account_id": "1234"})
    assert (raised.value.code, raised.value.message) == (
        -32603, "the stub failed: RuntimeError: the stub's template does not compile")


async def test_an_mcp_call_running_when_the_call_ends_is_an_error(server: StubServer) -> None:
    started = asyncio.Event()

    async def never_answers(call: StubCall) -> ToolCall:
        started.set()
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    route = server.open(CONVERSATION, Answerer().env.schemas(), never_answers)
    async with Client(route.mcp_url) as client:
        call = asyncio.create_task(client.call_tool("lookup_account", {"account_id": "1234"}))
        await started.wait()
        route.close()
        with pytest.raises(MCPError) as raised:
            await call
    assert raised.value.message == f"the call of conversation {CONVERSATION!r} ended while 'lookup_account' was running"


# -- life -----------------------------------------------------------------------------------------


async def test_start_and_stop_print_nothing_and_leave_no_task(capfd: pytest.CaptureFixture[str]) -> None:
    before = asyncio.all_tasks()
    server = StubServer()
    await server.start()
    answerer = Answerer()
    route = _open(server, answerer)
    async with httpx.AsyncClient(trust_env=False) as http:
        assert (await http.post(route.tool_url("lookup_account"), json={"account_id": "1234"})).status_code == 200
        async with Client(route.mcp_url) as client:
            assert (await client.call_tool("lookup_account", {"account_id": "1234"})).is_error is False
        await server.stop()
        assert (server.running, route.closed) == (False, True)
        with pytest.raises(httpx.ConnectError):
            await http.post(route.tool_url("lookup_account"), json={"account_id": "1234"})
    assert asyncio.all_tasks() == before
    with pytest.raises(StubServerError, match=r"the stub server is not running: start\(\) it first"):
        server.open(CONVERSATION, [], answerer)
    assert capfd.readouterr().out == ""
    with pytest.raises(StubServerError, match="a stub server starts once: make a new one"):
        await server.start()


def test_a_server_that_is_not_running_has_no_urls() -> None:
    with pytest.raises(StubServerError, match=r"the stub server is not running: start\(\) it first"):
        StubServer().open(CONVERSATION, [], Answerer())


async def test_a_server_without_mcp_serves_the_post_endpoints_only(http: httpx.AsyncClient) -> None:
    async with StubServer(mcp=False) as server:
        answerer = Answerer()
        route = _open(server, answerer)
        assert (await http.post(route.tool_url("lookup_account"), json={"account_id": "1234"})).status_code == 200
        assert (await http.post(route.mcp_url, json={})).status_code == 404


def test_importing_the_stub_server_does_not_import_the_mcp_sdk() -> None:
    code = ("import sys, polygon_core.adapters.stub_server\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('mcp', 'mcp_types')))")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


async def test_bad_tool_lists_are_refused_with_one_line(server: StubServer) -> None:
    answerer = Answerer()
    with pytest.raises(ValueError, match=r"^tool 'a' is listed twice$"):
        server.open(CONVERSATION, [{"name": "a", "parameters": {}}, {"name": "a", "parameters": {}}], answerer)
    with pytest.raises(ValueError, match=r"^tool 'a': expected 'parameters' to be a JSON Schema object$"):
        server.open(CONVERSATION, [{"name": "a", "parameters": None}], answerer)
    with pytest.raises(ValueError, match=r"^tool #1: expected a non-empty string 'name', got None$"):
        server.open(CONVERSATION, [{"parameters": {}}], answerer)



async def test_the_tools_url_lists_the_tools_as_function_definitions(
        server: StubServer, http: httpx.AsyncClient) -> None:
    route = _open(server, Answerer())
    assert route.tools_url == f"{route.base_url}/tools"
    answer = await http.get(route.tools_url)
    assert answer.status_code == 200
    assert answer.json() == [{"type": "function", "function": {"name": n, "description": LIBRARY.tools[n].description,
                                                               "parameters": LIBRARY.tools[n].parameters}}
                             for n in LIBRARY.tools]
    route.close()
    assert (await http.get(route.tools_url)).status_code in (404, 410)
