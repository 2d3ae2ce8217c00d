"""Schemathesis against the web app's own OpenAPI schema, in process (ASGI transport, no network).

Every operation of `/openapi.json`, with tokens configured (admin and read-only tokens, and none)
and without (a loopback client), over a database holding two real demo runs: no response is a
server error (5xx), and every response conforms to the schema (documented status code, content
type and body). Examples per operation are bounded so the whole file takes well under a minute.
Hostile path values and signed deep bodies, which few random examples never reach, are sent to
every operation and webhook too (issue #32 item 7: each was a 500).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from polygon.web import _webhooks, create_app
from polygon_core.adapters.settings import load_settings
from polygon_core.demo import demo_dir

CHECKS = [schemathesis.checks.not_a_server_error, status_code_conformance, content_type_conformance,
          response_schema_conformance]
EXAMPLES = max(1, int(8 * float(os.environ.get("POLYGON_FUZZ_EXAMPLES", "1"))))
TOKENS = "viewer:r3ad-t0ken:read,ops:adm1n-t0ken:admin"
LOOPBACK = ("127.0.0.1", 50123)


class _FromLoopback:
    """ASGI wrapper: the in-process client's address becomes a loopback one (as `polygon serve`
    sees a local browser), so the no-token mode serves it instead of refusing every request."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket"):
            scope = {**scope, "client": LOOPBACK}
        await self.app(scope, receive, send)


def _operations() -> list[str]:
    """'METHOD path' of every operation the schema documents (built without touching a database)."""
    app = create_app(load_settings(home=Path("/nonexistent/polygon-schema-only")))
    return [f"{method.upper()} {path}" for path, item in app.openapi()["paths"].items() for method in item]


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A POLYGON_HOME with two complete demo runs, made with the pipeline directly (no Prefect)."""
    from polygon import usecases

    home = tmp_path_factory.mktemp("schemathesis") / ".polygon"
    stores = usecases.open_stores(load_settings(home=home))
    suite = str(demo_dir() / "suite")
    for run_id, agent_file in (("st-v1", "agent_v1.yaml"), ("st-v2", "agent_v2.yaml")):
        agent = str(demo_dir() / "agents" / agent_file)
        run = usecases.new_run(agent, suite, seeds=[0], run_id=run_id)
        usecases.create_run(stores, run, suite_path=suite, agent_path=agent)
        for scenario_id, seed in usecases.plan_conversations(suite, [0]):
            cid = usecases.simulate(stores, run.id, suite, agent, scenario_id, seed)
            usecases.judge(stores, run.id, cid, suite_path=suite, agent_path=agent, rubric_version="v1")
            usecases.probe(stores, run.id, cid, suite_path=suite, agent_path=agent)
        usecases.finish_run(stores, run.id)
    return home


@pytest.fixture(scope="module", autouse=True)
def no_events() -> Iterator[None]:
    """A webhook that gets through (it cannot: no valid signature is generated) emits nothing real."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_webhooks, "send_event", lambda **kw: SimpleNamespace(id=kw["id"]))
        yield


@pytest.fixture(scope="module")
def schemas(home: Path) -> dict[str, Any]:
    """The schema of each access mode, loaded from the app's own `/openapi.json` through ASGI."""
    tokened = create_app(load_settings(home=home, api_tokens=TOKENS, webhook_secret="st-secret"))
    open_app = _FromLoopback(create_app(load_settings(home=home, webhook_secret="st-secret")))
    admin = {"Authorization": "Bearer adm1n-t0ken"}
    return {"tokens": schemathesis.openapi.from_asgi("/openapi.json", tokened, headers=admin),
            "loopback": schemathesis.openapi.from_asgi("/openapi.json", open_app)}


MODES = {  # mode → (schema, headers sent)
    "admin token": ("tokens", {"Authorization": "Bearer adm1n-t0ken"}),
    "read token": ("tokens", {"Authorization": "Bearer r3ad-t0ken"}),
    "no token": ("tokens", {}),
    "no tokens configured, loopback": ("loopback", {}),
}


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("operation", _operations())
def test_no_server_error_and_no_schema_violation(schemas: dict[str, Any], mode: str, operation: str) -> None:
    method, path = operation.split(" ", 1)
    which, headers = MODES[mode]
    api_operation = schemas[which][path][method]

    @given(case=api_operation.as_strategy())
    @settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
              phases=[Phase.explicit, Phase.generate],
              suppress_health_check=list(HealthCheck))
    def check(case: Any) -> None:
        case.call_and_validate(headers=headers, checks=CHECKS)

    check()


def _real(operation: str) -> bool:
    return "{run_id}" in operation


@pytest.mark.parametrize("mode", ["admin token", "no tokens configured, loopback"])
@pytest.mark.parametrize("operation", [o for o in _operations() if _real(o)])
def test_real_runs_with_generated_parameters(schemas: dict[str, Any], home: Path, mode: str,
                                             operation: str) -> None:
    """The same checks on stored runs and conversations (random ids mostly meet a 404 first)."""
    from polygon import usecases

    method, path = operation.split(" ", 1)
    which, headers = MODES[mode]
    stores = usecases.open_stores(load_settings(home=home))
    conversation = sorted(stores.repo.conversation_ids("st-v2"))[0]
    api_operation = schemas[which][path][method]

    @given(case=api_operation.as_strategy())
    @settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
              phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck))
    def check(case: Any) -> None:
        case.path_parameters = {**case.path_parameters, "run_id": "st-v2"}
        if "conversation_id" in case.path_parameters:
            case.path_parameters["conversation_id"] = conversation
        case.call_and_validate(headers=headers, checks=CHECKS)

    check()


#: Path values the generator rarely draws with few examples, each once a 500 somewhere (issue #32
#: item 7: a backslash or NUL became the artifact store's refused key): every path parameter of
#: every operation gets each of them, so none comes back.
HOSTILE = ["a\\b", "a\x00b", "..", "%", "a/b", "C:x", "x" * 300, "é\u202e"]


@pytest.mark.parametrize("mode", ["admin token", "no tokens configured, loopback"])
@pytest.mark.parametrize("operation", [o for o in _operations() if "{" in o])
def test_hostile_path_parameters(schemas: dict[str, Any], mode: str, operation: str) -> None:
    method, path = operation.split(" ", 1)
    which, headers = MODES[mode]
    api_operation = schemas[which][path][method]
    names = [p.name for p in api_operation.path_parameters]
    for value in HOSTILE:
        case = api_operation.Case(path_parameters=dict.fromkeys(names, value))
        case.call_and_validate(headers=headers, checks=CHECKS)


def test_a_signed_deep_body_on_every_webhook_is_422(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Signatures are never generated, so the fuzzing above stops every webhook at 401: each webhook
    the schema documents gets a correctly signed body nested 100,000 levels deep (a 500 before)."""
    from fastapi.testclient import TestClient

    from polygon.web import sign

    sources = tmp_path / "sources.yaml"
    sources.write_text("sources:\n  vline:\n    platform: vapi\n    secret_env: ST_VAPI_SECRET\n", encoding="utf-8")
    monkeypatch.setenv("ST_VAPI_SECRET", "st-vapi")
    client = TestClient(create_app(load_settings(
        home=tmp_path / ".polygon", webhook_secret="st-secret", webhook_max_body_bytes=1_000_000,
        webhook_roots=[tmp_path], sources=str(sources))))
    deep = b"[" * 100_000 + b"]" * 100_000
    hooks = [o.split(" ", 1)[1] for o in _operations() if o.startswith("POST /webhooks/")]
    assert hooks == ["/webhooks/prompt-commit", "/webhooks/sweep", "/webhooks/calls/{source}",
                     "/webhooks/calls/{source}/s3"]
    for hook in hooks:
        response = client.post(hook.replace("{source}", "vline"), content=deep, headers={
            "Content-Type": "application/json", "X-Hub-Signature-256": sign("st-secret", deep),
            "X-Polygon-Delivery": hook, "X-Vapi-Signature": "st-vapi"})
        assert (hook, response.status_code, response.json()) == (
            hook, 422, {"detail": "body is nested more than 64 levels deep"})
