"""The web app in a real browser: Playwright driving Debian's Chromium (never a downloaded one).

One uvicorn server (in a thread, on a free loopback port, over the demo results) and one browser
serve the whole module. Each page is checked for its charts (drawn as SVG, with exactly the API's
numbers as their data), its filters (choosing one changes what is listed, to what the API lists
for it), and its width: at 390 px the page itself never scrolls sideways. Screenshots of every
page at 1400×900 and 390×844 go to test-artifacts/screenshots/ (gitignored; CI keeps the folder
as the run's artifacts), or to the folder named by POLYGON_SCREENSHOTS.
"""

from __future__ import annotations

import json
import os
import socket
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import ViewportSize

from tests.fakes.served import serving

from .conftest import Demo

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SHOTS = Path(os.environ.get("POLYGON_SCREENSHOTS")
             or Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots")
WIDE: ViewportSize = {"width": 1400, "height": 900}
PHONE: ViewportSize = {"width": 390, "height": 844}

pytestmark = [
    pytest.mark.prefect,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed at /usr/bin/chromium "
                                                     "(apt-get install -y chromium; .ci/run does it)"),
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def base_url(demo: Demo) -> Iterator[str]:
    import uvicorn

    from polygon.web import create_app
    from polygon_core.adapters.settings import load_settings

    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(load_settings(home=demo.home)), host="127.0.0.1",
                                           port=port, log_level="warning"))
    with serving(server):
        yield f"http://127.0.0.1:{port}"


@pytest.fixture(scope="module")
def page(base_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        # A fresh profile each time: nothing cached or remembered from an earlier run.
        context = p.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")), executable_path=str(CHROMIUM), args=ARGS,
            headless=True, viewport=WIDE)
        tab = context.new_page()
        outside: list[str] = []
        errors: list[str] = []
        # Everything must come from the app itself: record any request to another origin.
        tab.on("request", lambda r: outside.append(r.url) if not r.url.startswith(base_url) else None)
        tab.on("pageerror", lambda e: errors.append(str(e)))
        yield tab
        context.close()
        assert outside == []
        assert errors == []


def api(base_url: str, path: str) -> Any:
    """The JSON API's answer, read the way any script would (loopback, no token configured)."""
    with urllib.request.urlopen(base_url + path, timeout=30) as response:
        return json.load(response)


def settle(page: Any) -> None:
    """Wait until the page has its data and every chart on it is drawn (or failed, which fails)."""
    page.wait_for_selector("body[data-ready]", state="attached")
    page.wait_for_function("() => [...document.querySelectorAll('figure.chart')]"
                           ".every(f => f.dataset.drawn !== undefined || f.dataset.error !== undefined)")
    assert page.locator("figure.chart[data-error]").count() == 0


def chart_points(page: Any, name: str) -> list[dict[str, Any]]:
    """The data a chart draws (its "points" dataset), as plain JSON."""
    return page.evaluate("name => JSON.parse(JSON.stringify(document.querySelector(`[data-chart=\"${name}\"]`)"
                         ".polygonView.data('points')))", name)


def marks(page: Any, name: str, mark: str) -> int:
    """How many SVG marks of a kind (rect, symbol, rule, line) the chart drew."""
    inside = f'[data-chart="{name}"] svg g.mark-{mark}.role-mark'  # not the legend's symbols
    return page.locator(f"{inside} path, {inside} line").count()


def shoot(page: Any, url: str, name: str) -> None:
    """Open `url` at both widths: screenshot each, and check the page never scrolls sideways."""
    for size in (WIDE, PHONE):
        page.set_viewport_size(size)
        page.goto(url)
        settle(page)
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= size["width"], f"{name} is {width} px wide at {size['width']} px"
        page.screenshot(path=str(SHOTS / f"{name}-{size['width']}x{size['height']}.png"), full_page=True)
    page.set_viewport_size(WIDE)


def test_runs_page_lists_the_demo_runs(page, base_url: str, demo: Demo) -> None:  # type: ignore[no-untyped-def]
    shoot(page, f"{base_url}/runs", "runs")
    assert sorted(page.locator("table.runs tbody tr").evaluate_all("rows => rows.map(r => r.dataset.run)")) == \
        sorted([demo.v1, demo.v2])


def test_run_page_draws_its_distributions_and_pass_k(page, base_url: str, demo: Demo) -> None:  # type: ignore[no-untyped-def]
    dist = api(base_url, f"/api/runs/{demo.v2}/distributions")
    card = api(base_url, f"/api/runs/{demo.v2}")["scorecard"]
    shoot(page, f"{base_url}/runs/{demo.v2}", "run")
    assert chart_points(page, "composite") == dist["composite"]
    assert marks(page, "composite", "rect") == 10  # one bar per 10-point bin, empty ones included
    assert sum(b["count"] for b in dist["composite"]) == dist["composites"] > 0
    assert chart_points(page, "criteria") == [{"criterion": c["criterion"], "score": k["score"], "count": k["count"]}
                                              for c in dist["criteria"] for k in c["counts"]]
    assert len(dist["criteria"]) == 8
    assert chart_points(page, "pass-k") == [{"k": int(k), "value": v} for k, v in
                                            sorted(card["pass_hat_k"].items(), key=lambda kv: int(kv[0]))]
    assert marks(page, "pass-k", "symbol") == len(card["pass_hat_k"])
    assert page.locator("p.calibration").inner_text() == f"Judge calibration: {dist['calibration']['line']}"
    # What made the run, as `polygon show` says it (its provenance, from the API).
    made = api(base_url, f"/api/runs/{demo.v2}")["provenance"]
    packages = ", ".join(f"{n} {v}" for n, v in made["packages"].items())
    assert page.locator("p.made-by").inner_text() == (
        f"Made by: Polygon {made['polygon']} ({packages}); formats: transcript 1, judgment 1, report 1")


def test_run_page_filters_change_the_conversations_listed(page, base_url: str, demo: Demo) -> None:  # type: ignore[no-untyped-def]
    facets = api(base_url, f"/api/runs/{demo.v2}/facets")
    page.goto(f"{base_url}/runs/{demo.v2}")
    settle(page)
    listed = "() => [...document.querySelectorAll('table.conversations tbody tr')].map(r => r.dataset.conversation)"
    everything = page.evaluate(listed)
    assert len(everything) == facets["total"]
    for name in ("scenario", "assertion", "end_reason", "caller_type", "verdict", "gate"):
        values = facets[name]
        if not values:
            continue
        value = min(values, key=lambda f: f["count"])["value"]  # the rarest: most likely to narrow the list
        expected = [c["conversation_id"] for c in api(base_url, f"/api/runs/{demo.v2}/conversations?{name}={value}")["items"]]
        assert len(expected) == min(values, key=lambda f: f["count"])["count"]
        page.select_option(f'[data-filter="{name}"] select', value)
        page.wait_for_function(f"() => document.getElementById('conversations').dataset.total === '{len(expected)}'")
        assert page.evaluate(listed) == expected
        page.select_option(f'[data-filter="{name}"] select', "")
        page.wait_for_function(f"() => document.getElementById('conversations').dataset.total === '{facets['total']}'")
    assert facets["assertion"] != []  # the demo's v2 breaks a policy assertion: that filter was exercised
    page.fill('[data-filter="q"] input', "billing")
    page.press('[data-filter="q"] input', "Enter")
    expected = api(base_url, f"/api/runs/{demo.v2}/conversations?q=billing")
    page.wait_for_function(f"() => document.getElementById('conversations').dataset.total === '{expected['total']}'")
    assert 0 < expected["total"] < facets["total"]
    assert page.evaluate(listed) == [c["conversation_id"] for c in expected["items"]]


def test_comparison_screen_at_parity_with_the_report(page, base_url: str, demo: Demo) -> None:  # type: ignore[no-untyped-def]
    cmp = api(base_url, f"/api/compare?runs={demo.v1}&runs={demo.v2}")
    shoot(page, f"{base_url}/compare?runs={demo.v1}&runs={demo.v2}", "compare")
    page.wait_for_selector("table.matrix tbody tr")
    scenarios = [d for d in cmp["differences"] if d["metric"] == "composite" and d["scope"].startswith("scenario:")]
    assert chart_points(page, "deltas-0") == [
        {"scenario": d["scope"].removeprefix("scenario:"), "delta": d["delta"], "low": d["ci_low"],
         "high": d["ci_high"], "label": d["label"], "pairs": d["pairs"]} for d in scenarios]
    assert marks(page, "deltas-0", "symbol") == sum(d["delta"] is not None for d in scenarios) > 0
    assert page.locator("table.differences tbody tr").count() == len(cmp["differences"])
    assert page.locator("table.probe-compare tbody tr").count() == len(cmp["probes"]) > 0
    diverged = [d for d in cmp["divergence_sets"][0]["items"] if d["turn"] is not None]
    page.wait_for_selector("table.divergences tbody tr")
    assert page.locator("table.divergences tbody tr").count() == min(len(diverged), 25)
    assert "CI would" in page.locator("#comparison").inner_text()


def test_comparison_keeps_the_turn_aligned_view(page, base_url: str, demo: Demo) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{base_url}/compare?runs={demo.v1}&runs={demo.v2}")
    page.wait_for_selector("table.matrix tbody tr")
    rows = page.locator("table.matrix tbody tr.scenario")
    assert rows.first.get_attribute("data-scenario") == "late-fee-demand"  # most divergent first
    rows.first.click()
    marked = page.wait_for_selector("table.pair tr.divergence")
    assert marked.get_attribute("data-turn") == "2"
    assert "diverges: wording" in marked.inner_text()
    assert page.locator("table.pair tr.consequential").get_attribute("data-turn") == "4"
    assert marked.evaluate("el => getComputedStyle(el.querySelector('td')).backgroundColor") != "rgba(0, 0, 0, 0)"
    page.screenshot(path=str(SHOTS / "compare-pair-1400x900.png"), full_page=True)
    page.set_viewport_size(PHONE)  # the charts follow the new width (Vega re-lays them out on resize)
    page.wait_for_function(f"() => document.documentElement.scrollWidth <= {PHONE['width']}", timeout=10_000)
    page.screenshot(path=str(SHOTS / "compare-pair-390x844.png"), full_page=True)
    page.set_viewport_size(WIDE)


def test_conversation_viewer_highlights_evidence(page, base_url: str, demo: Demo) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{base_url}/runs/{demo.v2}")
    page.wait_for_selector("text=billing-dispute-v3-s0")
    page.click("a:has-text('billing-dispute-v3-s0')")
    page.wait_for_selector("#turn-4 mark.evidence")
    mark = page.locator("#turn-4 mark.evidence").first
    assert mark.inner_text().startswith("Done, I've issued your refund of 49.00")
    assert "safety_compliance" in (mark.get_attribute("title") or "")
    assert "assertion broke: no_policy_breach" in page.locator("#turn-4").inner_text()
    assert page.locator("#turn-4 table.tool").inner_text().count("issue_refund") == 1
    shoot(page, page.url, "conversation")


def test_trends_page_keeps_series_apart_and_filters(page, base_url: str, demo: Demo) -> None:  # type: ignore[no-untyped-def]
    from polygon.usecases import open_stores
    from polygon_core.adapters.settings import load_settings

    stores = open_stores(load_settings(home=demo.home))
    v1 = stores.repo.get_run(demo.v1)
    assert v1 is not None
    # A production run of the same agent and suite: its own series, never joined to the simulated line.
    prod = stores.repo.save_run(v1.model_copy(update={"id": "run-production-1", "source": "production"}))
    stores.repo.set_run_status(prod.id, "complete", summary=stores.repo.get_run_summary(demo.v1))
    trend = api(base_url, "/api/trends")
    assert trend["suite"] == v1.suite
    # A line per agent version and source (issue #32, item 13): v1, v2, and v1's production calls.
    assert sorted((s["label"], s["source"], len(s["points"])) for s in trend["series"]) == sorted(
        [(f"{v1.agent_name}@{v1.agent_version}", "synthetic", 1),
         (f"calls from production ({v1.agent_name}@{v1.agent_version})", "production", 1),
         (next(s["label"] for s in trend["series"] if s["points"][0]["run_id"] == demo.v2), "synthetic", 1)])
    shoot(page, f"{base_url}/trends", "trends")
    drawn = chart_points(page, "trend-metric")
    assert sorted((p["series"].split(" · ")[1], p["run"], p["value"]) for p in drawn) == sorted(
        (s["source"], p["run_id"], p["value"]) for s in trend["series"] for p in s["points"])
    # Time on the x axis: each point drawn at its run's created_at, each line named by its agent.
    assert sorted((p["run"], p["at"], p["series"].split(" · ")[0]) for p in drawn) == sorted(
        (p["run_id"], p["created_at"], s["label"]) for s in trend["series"] for p in s["points"])
    assert page.locator("section.probe-trend").count() == len({p["probe_id"] for p in trend["probes"]}) >= 3

    page.select_option('[data-filter="source"] select', "production")
    page.wait_for_function("() => document.querySelector('[data-chart=\"trend-metric\"]')?.dataset.drawn === '1'")
    settle(page)
    assert [p["run"] for p in chart_points(page, "trend-metric")] == ["run-production-1"]
    page.select_option('[data-filter="source"] select', "")
    page.wait_for_function("() => document.querySelector('[data-chart=\"trend-metric\"]')?.dataset.drawn === '3'")
    page.select_option('[data-filter="metric"] select', "criterion:safety_compliance")
    safety = api(base_url, "/api/trends?metric=criterion:safety_compliance")
    page.wait_for_function("() => document.querySelector('#trends h2')?.innerText === 'criterion:safety_compliance'")
    settle(page)
    assert sorted(p["value"] for p in chart_points(page, "trend-metric")) == sorted(
        p["value"] for s in safety["series"] for p in s["points"])

    # The page opens on the suite last chosen, though another suite has a newer run.
    v2 = stores.repo.get_run(demo.v2)
    assert v2 is not None
    other = stores.repo.save_run(v2.model_copy(update={"id": "run-other-suite", "suite": "other-suite",
                                                        "created_at": None}))
    stores.repo.set_run_status(other.id, "complete", summary=stores.repo.get_run_summary(demo.v2))
    page.evaluate("() => localStorage.removeItem('polygon.trends.suite')")
    page.goto(f"{base_url}/trends")
    settle(page)
    assert page.locator('[data-filter="suite"] select').input_value() == "other-suite"  # the newest, unchosen
    page.select_option('[data-filter="suite"] select', v1.suite)
    page.wait_for_function("() => document.querySelector('[data-chart=\"trend-metric\"]')?.dataset.drawn")
    page.goto(f"{base_url}/trends")
    settle(page)
    assert page.locator('[data-filter="suite"] select').input_value() == v1.suite
    assert page.evaluate("() => localStorage.getItem('polygon.trends.suite')") == v1.suite


def test_sweep_page_draws_a_curve_per_parameter(page, base_url: str, demo: Demo) -> None:  # type: ignore[no-untyped-def]
    from polygon.usecases import open_stores
    from polygon_core.adapters.settings import load_settings

    page.goto(f"{base_url}/sweeps")
    assert page.wait_for_selector("#no-sweeps").inner_text().startswith("No sweeps yet")
    stores = open_stores(load_settings(home=demo.home))
    point = {"profile": "p", "tokens": 10, "tokens_estimated": True, "cost_usd": None, "spread_across_seeds": 0.0,
             "median_latency_per_turn_ms": None, "conversations": 4, "turns": 20}
    board = [{**point, "label": "base", "run_id": demo.v1, "mean_composite": 70.0, "ci_low": 60.0, "ci_high": 80.0},
             {**point, "label": "noise=0.4", "run_id": demo.v1, "mean_composite": 62.5, "ci_low": 55.0, "ci_high": 70.0},
             {**point, "label": "noise=0.8", "run_id": demo.v1, "mean_composite": 41.0, "ci_low": 30.0, "ci_high": 52.0},
             {**point, "label": "stub_error_rate=0.3", "run_id": demo.v2, "mean_composite": 58.0, "ci_low": 50.0,
              "ci_high": 66.0}]
    stores.artifacts.put_text("sweeps/demo-noise/leaderboard.json",
                              json.dumps({"sweep": "demo-noise", "leaderboard": board, "refused": [], "stopped_early": None}))
    shoot(page, f"{base_url}/sweeps", "sweeps")
    curves = api(base_url, "/api/sweeps/demo-noise/curves")["curves"]
    assert [(c["parameter"], [p["value"] for p in c["points"]]) for c in curves] == [
        ("noise", [0.4, 0.8]), ("stub_error_rate", [0.3])]
    shoot(page, f"{base_url}/sweeps/demo-noise", "sweep")
    assert chart_points(page, "sweep-noise") == [
        {"value": 0.4, "mean": 62.5, "low": 55.0, "high": 70.0, "others": "alone", "label": "noise=0.4"},
        {"value": 0.8, "mean": 41.0, "low": 30.0, "high": 52.0, "others": "alone", "label": "noise=0.8"}]
    assert marks(page, "sweep-noise", "symbol") == 2
    calibration = api(base_url, f"/api/runs/{demo.v1}")["calibration"]["line"]
    assert page.locator("p.calibration").inner_text() == f"Judge calibration: {calibration}"
    assert page.locator('[data-chart="sweep-stub_error_rate"]').count() == 1


def test_refused_comparison(page, base_url: str, demo: Demo) -> None:  # type: ignore[no-untyped-def]
    from polygon.usecases import open_stores
    from polygon_core.adapters.settings import load_settings
    from polygon_core.models import Run

    open_stores(load_settings(home=demo.home)).repo.save_run(Run(
        id="run-judged-v2", suite="demo", agent_name="x", agent_version="y", rubric_version="v2", seeds=[0]))
    page.goto(f"{base_url}/compare?runs={demo.v1}&runs=run-judged-v2")
    refused = page.wait_for_selector("#refused")
    assert refused.inner_text().startswith("Refused: cannot compare runs judged under different rubric versions")


def test_prompt_analysis_and_personas_pages(page, base_url: str, demo: Demo) -> None:  # type: ignore[no-untyped-def]
    from polygon.usecases import analyze_and_store, open_stores
    from polygon_core.adapters.persona_store import PersonaStore
    from polygon_core.adapters.settings import load_settings
    from polygon_core.files import load_agent
    from polygon_core.models import Persona
    from polygon_core.personas._types import PersonaRecord

    from .conftest import V1, V2

    stores = open_stores(load_settings(home=demo.home))
    old, new = load_agent(V1), load_agent(V2)
    analyze_and_store(stores.artifacts, old.prompt_text, max_tier=1)
    analysis = analyze_and_store(stores.artifacts, new.prompt_text, max_tier=1)
    shoot(page, f"{base_url}/analyses", "analyses")
    shoot(page, f"{base_url}/analyses/{new.prompt_hash}", "analysis")
    highlights = sum(len(a.highlights) for a in analysis.axes.values())
    marks_shown = page.locator("div.prompt mark").count()
    assert highlights > 0 and 1 <= marks_shown <= highlights  # overlapping spans of two axes show once
    assert page.locator("div.prompt").inner_text().strip() == new.prompt_text.strip()
    assert page.get_by_text(f"Change since the previous version ({old.prompt_hash})").count() == 1

    personas = PersonaStore(stores.artifacts)
    persona = Persona(goal="dispute a charge", type="busy", difficulty=3)
    personas.save(PersonaRecord(id="busy-old", agent="northwind-billing", prompt_hash=old.prompt_hash,
                                status="stale", persona=persona))
    personas.save(PersonaRecord(id="busy-new", agent="northwind-billing", prompt_hash=new.prompt_hash,
                                persona=persona))
    shoot(page, f"{base_url}/personas", "personas")
    stale = page.locator("section", has_text="busy-old")
    assert stale.locator(".badge.stale").count() == 2  # the group and the persona
    assert page.locator("section", has_text="busy-new").locator(".badge.stale").count() == 0
