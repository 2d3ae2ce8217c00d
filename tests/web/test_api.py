"""The web app's JSON API and access rules, through FastAPI's TestClient (no browser)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from polygon.web import create_app
from polygon.web._auth import TokenConfigError, access_notice, parse_tokens
from polygon.web._views import distortion_spans, locate_quote, probe_series
from polygon_core.adapters.settings import load_settings
from polygon_core.compare import ProbeRate
from polygon_core.models import Distortion, Run, Turn

from .conftest import LOOPBACK, Demo

pytestmark = [pytest.mark.prefect]


def _client(demo: Demo, tokens: str | None = None, host: tuple[str, int] = LOOPBACK) -> TestClient:
    settings = load_settings(home=demo.home, api_tokens=tokens)
    return TestClient(create_app(settings), client=host)


@pytest.fixture(scope="module")
def client(demo: Demo) -> TestClient:
    return _client(demo)


# -- runs and conversations ----------------------------------------------------------------------


def test_runs_list_filters_sorts_and_paginates(client: TestClient, demo: Demo) -> None:
    page = client.get("/api/runs").json()
    assert page["total"] == 2 and page["offset"] == 0 and page["limit"] == 50
    by_id = {r["id"]: r for r in page["items"]}
    v1, v2 = by_id[demo.v1], by_id[demo.v2]
    assert v1["conversations"] == v2["conversations"] == 6
    assert v1["verdicts"] == {"pass": 6, "warn": 0, "fail": 0}
    assert v1["models"] == {"agent": "callable:polygon_core.demo:DemoAgentV1", "caller": "offline",
                            "judge": "offline-heuristic", "probe": "offline-heuristic"}
    assert v1["rubric_version"] == "v1" and v1["cost_usd"] is None
    best = client.get("/api/runs", params={"sort": "-mean_composite", "limit": 1}).json()
    assert best["total"] == 2 and [r["id"] for r in best["items"]] == [demo.v1]
    worst = client.get("/api/runs", params={"sort": "mean_composite", "offset": 0, "limit": 1}).json()
    assert [r["id"] for r in worst["items"]] == [demo.v2]
    assert client.get("/api/runs", params={"q": demo.v2[-6:]}).json()["total"] == 1
    assert client.get("/api/runs", params={"agent": "nobody"}).json() == {"total": 0, "offset": 0,
                                                                           "limit": 50, "items": []}
    assert client.get("/api/runs", params={"sort": "bogus"}).status_code == 422


def test_conversations_paginated_and_filtered(client: TestClient, demo: Demo) -> None:
    first = client.get(f"/api/runs/{demo.v2}/conversations", params={"limit": 4}).json()
    second = client.get(f"/api/runs/{demo.v2}/conversations", params={"limit": 4, "offset": 4}).json()
    assert first["total"] == second["total"] == 6
    ids = [c["conversation_id"] for c in first["items"] + second["items"]]
    assert len(ids) == 6 and ids == sorted(ids)
    failed = client.get(f"/api/runs/{demo.v2}/conversations", params={"verdict": "fail"}).json()
    run = client.get(f"/api/runs/{demo.v2}").json()
    assert failed["total"] == run["scorecard"]["verdicts"]["fail"] >= 2
    assert all(c["verdict"] == "fail" for c in failed["items"])
    worst = client.get(f"/api/runs/{demo.v2}/conversations", params={"sort": "composite", "limit": 1}).json()
    assert worst["items"][0]["composite"] == min(c["composite"] for c in first["items"] + second["items"])
    assert client.get("/api/runs/no-such-run/conversations").status_code == 404


def test_conversation_view_places_evidence_gates_and_assertions(client: TestClient, demo: Demo) -> None:
    items = client.get(f"/api/runs/{demo.v2}/conversations", params={"scenario": "billing-dispute-v3"}).json()
    (row,) = items["items"]
    assert row["assertions_failed"] == ["no_policy_breach"] and row["gates"] == ["safety"]
    view = client.get(f"/api/runs/{demo.v2}/conversations/{row['conversation_id']}").json()
    turn4 = view["turns"][4]
    assert turn4["speaker"] == "agent" and turn4["assertions"] == ["no_policy_breach"]
    refund = next(c for c in turn4["tool_calls"] if c["name"] == "issue_refund")
    assert refund["valid"] is True and refund["arguments"]["amount"] == 49.0 and refund["error"] is None
    assert isinstance(refund["latency_ms"], float)
    safety = next(c for c in view["judgments"][0]["criteria"] if c["criterion"] == "safety_compliance")
    assert safety["score"] == 1.0 and safety["evidence_at"] == {"turn": 4, "start": 0, "end": len(turn4["text"])}
    assert {"criterion": "safety_compliance", "score": 1.0, "start": 0, "end": len(turn4["text"])} in turn4["evidence"]
    # The safety gate is a judgment of the whole call (no turn): listed on the conversation.
    assert view["gates"] == [{"gate": "safety", "turn": None, "detail": "safety_compliance aggregated to 1"}]
    assert view["conversation"]["end_reason"] == row["end_reason"]
    assert {a["name"]: (a["status"], a["turn"]) for a in view["assertions"]}["no_policy_breach"] == ("fail", 4)
    assert len(view["probes"]) > 0 and all(p["conversation_id"] == row["conversation_id"] for p in view["probes"])
    missing = client.get(f"/api/runs/{demo.v2}/conversations/nope")
    assert missing.status_code == 404 and "no conversation 'nope'" in missing.json()["detail"]


def test_judgments_and_probes(client: TestClient, demo: Demo) -> None:
    page = client.get(f"/api/runs/{demo.v1}/judgments", params={"limit": 2}).json()
    assert page["total"] == 6 and len(page["items"]) == 2
    assert page["items"][0]["rubric_version"] == "v1" and "raw" not in page["items"][0]
    probes = client.get(f"/api/runs/{demo.v1}/probes").json()["items"]
    assert probes and all(0.0 <= (p["low"] or 0) <= (p["high"] or 1) <= 1.0 for p in probes)
    trends = client.get("/api/probes/trends").json()
    assert [r["id"] for r in trends["runs"]] == [demo.v1, demo.v2]
    series = trends["series"][0]
    assert [p["run_id"] for seg in series["segments"] for p in seg["points"]] == [demo.v1, demo.v2]


# -- comparisons -----------------------------------------------------------------------------------


def test_compare_orders_matrix_by_spread_and_aligns_pair(client: TestClient, demo: Demo) -> None:
    cmp = client.get("/api/compare", params={"runs": f"{demo.v1},{demo.v2}"}).json()
    matrix = cmp["matrix"]
    spreads = [r["spread"] for r in matrix]
    assert spreads == sorted(spreads, reverse=True) and matrix[0]["scenario_id"] == "late-fee-demand"
    assert [c["run_id"] for c in cmp["cards"]] == [demo.v1, demo.v2]
    assert cmp["prose"] and "rows" not in cmp
    pair = client.get("/api/compare/pair", params={"a": demo.v1, "b": demo.v2, "scenario": "late-fee-demand"}).json()
    assert pair["divergence"] == {"turn": 2, "reasons": ["wording"]}
    assert pair["consequential"] == {"turn": 4, "reasons": ["tool_calls"]}
    assert [r["index"] for r in pair["rows"] if r["divergence"]] == [2]
    assert pair["seeds"] == [0] and pair["runs"]["a"]["id"] == demo.v1


def test_compare_refuses_mixed_rubric_versions(client: TestClient, demo: Demo) -> None:
    from polygon.usecases import open_stores

    stores = open_stores(load_settings(home=demo.home))
    stores.repo.save_run(Run(id="run-v2-rubric", suite="demo", agent_name="northwind-billing",
                             agent_version="abc", rubric_version="v2", seeds=[0]))
    refused = client.get("/api/compare", params={"runs": [demo.v1, "run-v2-rubric"]})
    assert refused.status_code == 422
    assert refused.json()["detail"].startswith("cannot compare runs judged under different rubric versions (v1 and v2)")
    assert client.get("/api/compare", params={"runs": demo.v1}).status_code == 422  # one run only
    assert client.get("/api/compare", params={"runs": [demo.v1, "nope"]}).status_code == 404


# -- sweeps, personas, analyses ------------------------------------------------------------------


def test_sweeps_empty_state_then_a_leaderboard(client: TestClient, demo: Demo) -> None:
    assert client.get("/api/sweeps").json() == {"total": 0, "items": []}
    assert client.get("/api/sweeps/none").status_code == 404
    from polygon.usecases import open_stores, sweep_key

    stores = open_stores(load_settings(home=demo.home))
    point = {"profile": "p1", "label": "temperature=0.2", "run_id": demo.v1, "mean_composite": 91.0}
    report = {"sweep": "temp", "leaderboard": [point],
              "refused": [{"label": "temperature=1.5", "reason": "over the token budget"}], "stopped_early": None}
    stores.artifacts.put_text(sweep_key("temp"), json.dumps(report))
    listed = client.get("/api/sweeps").json()
    assert listed["total"] == 1 and listed["items"][0]["leader"]["label"] == "temperature=0.2"
    detail = client.get("/api/sweeps/temp").json()
    assert detail["refused"] == [{"label": "temperature=1.5", "reason": "over the token budget"}]


def test_personas_grouped_with_stale_marked(client: TestClient, demo: Demo) -> None:
    from polygon.usecases import open_stores
    from polygon_core.adapters.persona_store import PersonaStore
    from polygon_core.models import Persona
    from polygon_core.personas._types import PersonaRecord

    store = PersonaStore(open_stores(load_settings(home=demo.home)).artifacts)
    persona = Persona(goal="dispute a charge", type="busy", difficulty=3)
    store.save(PersonaRecord(id="busy-1", agent="northwind", prompt_hash="old1", status="stale", persona=persona))
    store.save(PersonaRecord(id="busy-2", agent="northwind", prompt_hash="new2", persona=persona))
    data = client.get("/api/personas").json()
    assert data["total"] == 2
    assert [(g["agent"], g["prompt_hash"], g["stale"]) for g in data["groups"]] == [
        ("northwind", "new2", False), ("northwind", "old1", True)]
    assert data["groups"][1]["personas"][0] == {
        "id": "busy-1", "status": "stale", "stale": True, "task": None, "generator": "offline", "error": None,
        "type": "busy", "intended_outcome": "success", "difficulty": 3, "name": None}


def test_prompt_analysis_with_change_since_previous_version(client: TestClient, demo: Demo) -> None:
    from polygon.usecases import analyze_and_store, open_stores
    from polygon_core.files import load_agent

    from .conftest import V1, V2

    stores = open_stores(load_settings(home=demo.home))
    old, new = load_agent(V1), load_agent(V2)
    analyze_and_store(stores.artifacts, old.prompt_text, max_tier=1)
    analyze_and_store(stores.artifacts, new.prompt_text, max_tier=1)
    listed = client.get("/api/analyses").json()
    assert listed["total"] == 2
    assert {a["prompt_hash"]: a["agents"] for a in listed["items"]} == {
        old.prompt_hash: ["northwind-billing"], new.prompt_hash: ["northwind-billing"]}
    view = client.get(f"/api/analyses/{new.prompt_hash}").json()
    assert view["prompt"] == new.prompt_text and set(view["axes"]) == {
        "overload", "attention_dilution", "conflict", "ambiguity", "redundancy"}
    for axis in view["axes"].values():
        for h in axis["highlights"]:
            assert 0 <= h["start"] < h["end"] <= len(view["prompt"])
    assert view["previous"]["prompt_hash"] == old.prompt_hash
    change = view["previous"]["axes"]["overload"]
    assert change["delta"] == round(change["after"] - change["before"], 4)
    first = client.get(f"/api/analyses/{old.prompt_hash}").json()
    assert first["previous"] is None
    assert client.get("/api/analyses/0000").status_code == 404


def test_openapi_is_published(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    paths = schema["paths"]
    assert {"/api/runs", "/api/compare", "/api/runs/{run_id}/conversations/{conversation_id}",
            "/api/sweeps", "/api/personas", "/api/analyses/{prompt_hash}"} <= set(paths)
    # Every payload is documented by a model, not an untyped object (bytes, a call's WAV, as binary).
    def binary(op: dict[str, Any]) -> bool:
        content = op["responses"].get("200", {}).get("content", {})
        return bool(content) and all(c.get("schema", {}).get("format") == "binary" for c in content.values())

    untyped = [f"{method.upper()} {path}" for path, item in paths.items() for method, op in item.items()
               if path.startswith("/api/") and "$ref" not in json.dumps(op["responses"].get("200", {}))
               and not binary(op)]
    assert untyped == []
    assert binary(paths["/api/runs/{run_id}/conversations/{conversation_id}/audio"]["get"])
    ok = paths["/api/runs/{run_id}/distributions"]["get"]["responses"]["200"]["content"]["application/json"]
    assert ok["schema"] == {"$ref": "#/components/schemas/RunDistributions"}
    assert {"composite", "criteria", "calibration"} <= set(schema["components"]["schemas"]["RunDistributions"]["required"])


# -- charts, filters and trends --------------------------------------------------------------------


def test_distributions_count_each_judged_conversation_once(client: TestClient, demo: Demo) -> None:
    dist = client.get(f"/api/runs/{demo.v2}/distributions").json()
    assert [(b["start"], b["count"]) for b in dist["composite"] if b["count"]] == [(50, 2), (60, 2), (90, 2)]
    assert (dist["judged"], dist["composites"], dist["judge_model"], dist["rubric_version"]) == (
        6, 6, "offline-heuristic", "v1")
    safety = next(c for c in dist["criteria"] if c["criterion"] == "safety_compliance")
    assert sum(k["count"] for k in safety["counts"]) + safety["not_scored"] == 6
    assert dist["calibration"]["line"] == "judge offline-heuristic, rubric v1: not calibrated"


def test_conversation_filters_by_gate_assertion_and_search(client: TestClient, demo: Demo) -> None:
    facets = client.get(f"/api/runs/{demo.v2}/facets").json()
    assert facets["gate"] == [{"value": "safety", "count": 3}]
    assert facets["assertion"] == [{"value": "no_policy_breach", "count": 3}, {"value": "no_refund_of_valid_fee", "count": 1}]
    assert facets["verdict"] == [{"value": "fail", "count": 3}, {"value": "pass", "count": 2}, {"value": "warn", "count": 1}]
    url = f"/api/runs/{demo.v2}/conversations"
    gated = client.get(url, params={"gate": "safety", "limit": 2}).json()
    assert gated["total"] == 3 and len(gated["items"]) == 2 and all("safety" in c["gates"] for c in gated["items"])
    fee = client.get(url, params={"assertion": "no_refund_of_valid_fee"}).json()
    assert [c["scenario_id"] for c in fee["items"]] == ["late-fee-demand"]
    found = client.get(url, params={"q": "BILLING"}).json()
    assert [c["scenario_id"] for c in found["items"]] == ["billing-dispute-v3"]


def test_trends_of_one_agent_and_suite_split_by_source(client: TestClient, demo: Demo) -> None:
    v1 = client.get(f"/api/runs/{demo.v1}").json()
    mine = {"agent": v1["agent_name"], "suite": v1["suite"]}
    trend = client.get("/api/trends", params=mine).json()
    assert (trend["agent"], trend["runs"]) == ("northwind-billing", 2)
    # The two agent versions are two lines (issue #32, item 13), each named agent@version.
    first, second = trend["series"]
    assert (first["rubric_version"], first["source"], first["judge_model"]) == ("v1", "synthetic", "offline-heuristic")
    assert first["points"][0]["run_id"] == demo.v1 and first["points"][0]["value"] == v1["mean_composite"]
    assert first["label"] == f"northwind-billing@{v1['agent_version']}"
    assert [p["run_id"] for p in second["points"]] == [demo.v2]
    assert first["calibration"]["calibrated"] is False
    assert client.get("/api/trends", params={**mine, "source": "production"}).json()["series"] == []
    assert client.get("/api/trends", params={"metric": "nope"}).status_code == 422
    safety = client.get("/api/trends", params={**mine, "metric": "criterion:safety_compliance"}).json()
    assert [p["value"] for s in safety["series"] for p in s["points"]] == [5.0, 3.0]


def test_divergences_paged_from_the_cached_comparison(client: TestClient, demo: Demo) -> None:
    params = {"runs": [demo.v1, demo.v2]}
    whole = client.get("/api/compare", params=params).json()
    everything = whole["divergence_sets"][0]
    page = client.get("/api/compare/divergences", params={**params, "limit": 2, "offset": 1}).json()
    assert (page["total"], page["items"]) == (everything["total"], everything["items"][1:3])
    parted = client.get("/api/compare/divergences", params={**params, "diverged": True}).json()
    assert parted["total"] == sum(d["turn"] is not None for d in everything["items"]) == 4
    assert client.get("/api/compare/divergences", params={**params, "candidate": "nobody"}).status_code == 404


# -- access ----------------------------------------------------------------------------------------


def test_without_token_only_loopback_is_served(demo: Demo) -> None:
    outside = _client(demo, host=("203.0.113.7", 40000))
    refused = outside.get("/api/runs")
    assert refused.status_code == 403 and "only loopback clients are served" in refused.json()["detail"]
    assert outside.get("/runs").status_code == 403
    assert _client(demo, host=("testclient", 50000)).get("/api/runs").status_code == 403
    assert _client(demo, host=("::1", 40000)).get("/api/runs").status_code == 200
    # Webhooks are not behind these rules: they check their own signatures (401 unsigned, not 403).
    assert outside.get("/healthz").status_code == 200


def test_tokens_read_only_gets_403_on_admin_endpoints(demo: Demo) -> None:
    client = _client(demo, tokens="viewer:r3ad-only:read, ops:adm1n-t0ken:admin", host=("203.0.113.7", 40000))
    assert client.get("/api/runs").status_code == 401
    assert client.get("/api/runs", headers={"Authorization": "Bearer wrong"}).status_code == 401
    read = {"Authorization": "Bearer r3ad-only"}
    admin = {"Authorization": "Bearer adm1n-t0ken"}
    assert client.get("/api/runs", headers=read).status_code == 200
    assert client.get("/api/access", headers=read).json() == {"mode": "token", "name": "viewer", "scope": "read"}
    for path in (f"/api/runs/{demo.v1}/rescore", f"/api/runs/{demo.v1}/reprobe"):
        body = {"rubric_version": "v2"} if path.endswith("rescore") else {}
        denied = client.post(path, json=body, headers=read)
        assert denied.status_code == 403 and denied.json()["detail"] == \
            "token 'viewer' is read-only; this needs the admin scope"
    done = client.post(f"/api/runs/{demo.v1}/rescore", json={"rubric_version": "v2"}, headers=admin)
    assert done.status_code == 200 and done.json()["added"] == 6 and done.json()["rubric_version"] == "v2"
    # Re-scoring adds v2 judgments beside the v1 ones; the run's own verdicts are untouched.
    judged = client.get(f"/api/runs/{demo.v1}/judgments", params={"rubric_version": "v1"}, headers=read).json()
    assert judged["total"] == 6


def test_page_token_becomes_a_cookie(demo: Demo) -> None:
    client = _client(demo, tokens="viewer:r3ad-only:read", host=("203.0.113.7", 40000))
    login = client.get("/runs")
    assert login.status_code == 401 and 'name="token"' in login.text
    opened = client.get("/runs?token=r3ad-only&x=1", follow_redirects=False)
    assert opened.status_code == 303 and opened.headers["location"] == "/runs?x=1"
    assert "httponly" in opened.headers["set-cookie"].lower()
    assert client.get("/api/runs").status_code == 200  # the cookie now rides along


def test_pages_and_static_files_reference_nothing_outside(client: TestClient, demo: Demo) -> None:
    for path in ("/runs", f"/runs/{demo.v1}", "/compare", "/trends", "/probes", "/analyses", "/sweeps", "/personas"):
        page = client.get(path)
        assert page.status_code == 200 and '<script src="/static/app.js?v=' in page.text
        assert "http://" not in page.text and "https://" not in page.text
    for name in ("app.js", "charts.js", "call.js", "app.css"):
        text = client.get(f"/static/{name}").text
        assert len(text) > 1000 and "http://" not in text and "https://" not in text and "//cdn" not in text
    assert client.get("/static/../_api.py").status_code == 404


# -- pure view helpers ---------------------------------------------------------------------------


def test_tokens_parse_and_notice() -> None:
    tokens = parse_tokens(" a:t1:read ,b:t2:admin")
    assert [(t.name, t.token, t.scope) for t in tokens] == [("a", "t1", "read"), ("b", "t2", "admin")]
    assert parse_tokens("") == [] and parse_tokens(None) == []
    with pytest.raises(TokenConfigError, match="entry 1: expected name:token:scope"):
        parse_tokens("secret-without-name")
    with pytest.raises(TokenConfigError, match=r"entry 1 \(a\): scope must be read or admin, not 'root'"):
        parse_tokens("a:t:root")
    assert access_notice(load_settings(api_tokens="a:t1:read")) == (
        "web app: 1 API token(s) configured (0 admin, 1 read-only); every page and API call needs one")
    assert "only loopback clients" in access_notice(load_settings(api_tokens=None))


def test_distortion_spans_and_quotes() -> None:
    text = "I was charged forty nine pounds, twice."
    spans = distortion_spans(text, [
        Distortion(kind="digits", original="forty nine", replacement="four nine", position=3),
        Distortion(kind="homophone", original="twice", replacement="tries", position=6),
        Distortion(kind="filler", original="", replacement="um", position=0)])
    assert [(s["kind"], text[s["start"]:s["end"]], s["inserted"]) for s in spans] == [
        ("filler", "", "um"), ("digits", "forty nine", None), ("homophone", "twice.", None)]
    turns = [Turn(index=0, speaker="caller", text="Refund me now."),
             Turn(index=1, speaker="agent", text="Done, I've issued your REFUND of 49.00.")]
    assert locate_quote(turns, "“refund of 49.00”") == {"turn": 1, "start": 23, "end": 38}
    assert locate_quote(turns, "not said") is None and locate_quote(turns, None) is None


def test_probe_series_breaks_where_wording_changes() -> None:
    runs = [Run(id=f"r{i}", suite="s", agent_name="a", agent_version="v", rubric_version="v1", seeds=[0])
            for i in range(3)]
    def rate(h: str, k: int) -> ProbeRate:
        return ProbeRate(probe_id="p", wording_hash=h, polarity="wanted", k=k, n=4, rate=k / 4, low=0.1, high=0.9)

    (series,) = probe_series([(runs[0], [rate("w1", 3)]), (runs[1], [rate("w1", 4)]), (runs[2], [rate("w2", 1)])])
    assert [(s["wording_hash"], [p["run_id"] for p in s["points"]]) for s in series["segments"]] == [
        ("w1", ["r0", "r1"]), ("w2", ["r2"])]


def test_web_app_module_files_ship_in_the_package() -> None:
    import polygon.web

    root = Path(polygon.web.__file__).parent / "static"
    assert sorted(p.name for p in root.iterdir() if p.suffix in (".js", ".css")) == ["app.css", "app.js", "call.js", "charts.js"]
    vendor = sorted(p.name for p in (root / "vendor").iterdir())
    assert vendor == ["README.md", "vega-embed.LICENSE.txt", "vega-embed.min.js", "vega-lite.LICENSE.txt",
                      "vega-lite.min.js", "vega.LICENSE.txt", "vega.min.js"]


def test_serve_binds_loopback_only_without_tokens() -> None:
    from polygon.web import access_token_configured

    assert access_token_configured(load_settings(api_tokens="ops:t0k:admin")) is True
    assert access_token_configured(load_settings(api_tokens="")) is False
