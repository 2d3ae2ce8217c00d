"""The web app in a real browser: Playwright driving Debian's Chromium (never a downloaded one).

The app is served by uvicorn in a thread on a free loopback port, over the demo results. Screenshots
go to test-artifacts/web/ (gitignored) for a human to look at.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import Demo

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--no-first-run", "--disable-sync"]
SHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "web"

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
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def page(base_url: str) -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        tab = context.new_page()
        outside: list[str] = []
        # Everything must come from the app itself: record any request to another origin.
        tab.on("request", lambda r: outside.append(r.url) if not r.url.startswith(base_url) else None)
        yield tab
        browser.close()
        assert outside == []


def test_runs_page_lists_the_demo_runs(page, base_url: str, demo: Demo) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{base_url}/runs")
    page.wait_for_selector("table.runs tbody tr")
    assert sorted(page.locator("table.runs tbody tr").evaluate_all("rows => rows.map(r => r.dataset.run)")) == \
        sorted([demo.v1, demo.v2])
    page.screenshot(path=str(SHOTS / "runs.png"), full_page=True)


def test_comparison_screen_marks_the_divergence_turn(page, base_url: str, demo: Demo) -> None:  # type: ignore[no-untyped-def]
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
    page.screenshot(path=str(SHOTS / "compare.png"), full_page=True)


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
    page.screenshot(path=str(SHOTS / "conversation.png"), full_page=True)


def test_refusal_and_empty_states(page, base_url: str, demo: Demo) -> None:  # type: ignore[no-untyped-def]
    from polygon.usecases import open_stores
    from polygon_core.adapters.settings import load_settings
    from polygon_core.models import Run

    open_stores(load_settings(home=demo.home)).repo.save_run(Run(
        id="run-judged-v2", suite="demo", agent_name="x", agent_version="y", rubric_version="v2", seeds=[0]))
    page.goto(f"{base_url}/compare?runs={demo.v1}&runs=run-judged-v2")
    refused = page.wait_for_selector("#refused")
    assert refused.inner_text().startswith("Refused: cannot compare runs judged under different rubric versions")
    page.goto(f"{base_url}/sweeps")
    assert page.wait_for_selector("#no-sweeps").inner_text().startswith("No sweeps yet")
    page.goto(f"{base_url}/probes")
    page.wait_for_selector("svg.trend line.range", state="attached")
    assert page.locator("svg.trend").count() >= 3
    page.screenshot(path=str(SHOTS / "probes.png"), full_page=True)


def test_prompt_analysis_and_personas_pages(page, base_url: str, demo: Demo) -> None:  # type: ignore[no-untyped-def]
    from polygon.usecases import open_stores
    from polygon_core.adapters.analysis_store import analyze_and_store
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
    page.goto(f"{base_url}/analyses/{new.prompt_hash}")
    page.wait_for_selector("div.prompt")
    highlights = sum(len(a.highlights) for a in analysis.axes.values())
    marks = page.locator("div.prompt mark").count()
    assert highlights > 0 and 1 <= marks <= highlights  # overlapping spans of two axes show once
    assert page.locator("div.prompt").inner_text().strip() == new.prompt_text.strip()
    assert page.get_by_text(f"Change since the previous version ({old.prompt_hash})").count() == 1
    page.screenshot(path=str(SHOTS / "analysis.png"), full_page=True)

    personas = PersonaStore(stores.artifacts)
    persona = Persona(goal="dispute a charge", type="busy", difficulty=3)
    personas.save(PersonaRecord(id="busy-old", agent="northwind-billing", prompt_hash=old.prompt_hash,
                                status="stale", persona=persona))
    personas.save(PersonaRecord(id="busy-new", agent="northwind-billing", prompt_hash=new.prompt_hash,
                                persona=persona))
    page.goto(f"{base_url}/personas")
    page.wait_for_selector("section h2")
    stale = page.locator("section", has_text="busy-old")
    assert stale.locator(".badge.stale").count() == 2  # the group and the persona
    assert page.locator("section", has_text="busy-new").locator(".badge.stale").count() == 0
