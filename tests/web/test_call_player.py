"""A call on the conversation page, in a real browser (Playwright driving Debian's Chromium).

The call is built by hand (tests/web/_call_helpers.py: a voice conversation with timed turns and
metrics, its timeline, a six-second stereo WAV of tones) and stored the way a run stores one. The
page plays it: the player's duration is the WAV's, a click on a turn seeks there, the turn being
heard is highlighted, the timeline is drawn as SVG (segments per lane, interruptions, silences,
conditions) and the metrics panel shows the call's numbers. Every wait polls; nothing is timed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.fakes.served import serving

from ._call_helpers import DURATION_MS, TURNS, seed_call_run
from .test_browser import ARGS, CHROMIUM, PHONE, SHOTS, WIDE, _free_port

RUN = "run-call"

pytestmark = [
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed at /usr/bin/chromium "
                                                     "(apt-get install -y chromium; .ci/run does it)"),
]


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    import uvicorn

    from polygon.web import create_app
    from polygon_core.adapters.settings import load_settings

    home = tmp_path_factory.mktemp("call-page") / ".polygon"
    assert seed_call_run(home, RUN) == ("call-1", "text-1")
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(load_settings(home=home)), host="127.0.0.1", port=port,
                                           log_level="warning"))
    with serving(server):
        yield f"http://127.0.0.1:{port}"


@pytest.fixture(scope="module")
def page(base_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")), executable_path=str(CHROMIUM),
            args=[*ARGS, "--autoplay-policy=no-user-gesture-required"], headless=True, viewport=WIDE)
        tab = context.new_page()
        outside: list[str] = []
        errors: list[str] = []
        tab.on("request", lambda r: outside.append(r.url) if not r.url.startswith(base_url) else None)
        tab.on("pageerror", lambda e: errors.append(str(e)))
        yield tab
        context.close()
        assert outside == []
        assert errors == []


def open_call(page: Any, base_url: str, conversation: str = "call-1") -> None:
    page.goto(f"{base_url}/runs/{RUN}/conversations/{conversation}")
    page.wait_for_selector("body[data-ready]", state="attached")


def current_time(page: Any) -> float:
    return float(page.evaluate("() => document.getElementById('call-audio').currentTime"))


def test_the_player_plays_the_stored_wav(page: Any, base_url: str) -> None:
    statuses: list[int] = []
    page.on("response", lambda r: statuses.append(r.status) if r.url.endswith("/call-1/audio") else None)
    open_call(page, base_url)
    audio = page.locator("audio#call-audio")
    expect(audio).to_have_attribute("src", f"/api/runs/{RUN}/conversations/call-1/audio")
    page.wait_for_function("() => document.getElementById('call-audio').readyState >= 1")  # metadata loaded
    assert page.evaluate("() => document.getElementById('call-audio').duration") == pytest.approx(DURATION_MS / 1000, abs=0.01)
    # Chromium fetches media with a Range header: the API answers the part it asked for.
    page.wait_for_function("() => document.getElementById('call-audio').seekable.length === 1")
    assert 206 in statuses
    assert page.evaluate("() => document.getElementById('call-audio').seekable.end(0)") == pytest.approx(
        DURATION_MS / 1000, abs=0.01)


def test_a_click_on_a_turn_seeks_there_and_highlights_it(page: Any, base_url: str) -> None:
    open_call(page, base_url)
    page.wait_for_function("() => document.getElementById('call-audio').readyState >= 1")
    start = TURNS[2][3]
    page.click("#turn-2 .said")
    page.wait_for_function(f"() => Math.abs(document.getElementById('call-audio').currentTime - {start / 1000}) < 0.01")
    expect(page.locator("#turn-2")).to_have_class(re.compile(r"\bplaying\b"))
    expect(page.locator(".turn.playing")).to_have_count(1)
    # Its segment on the timeline is marked too.
    expect(page.locator("svg.call-timeline rect.seg.current")).to_have_count(1)
    assert page.locator("svg.call-timeline rect.seg.current").get_attribute("data-turn") == "2"
    page.click("#turn-0 .said")
    page.wait_for_function("() => document.getElementById('call-audio').currentTime === 0")
    expect(page.locator("#turn-0")).to_have_class(re.compile(r"\bplaying\b"))
    expect(page.locator(".turn.playing")).to_have_count(1)


def test_the_turn_heard_follows_the_audio(page: Any, base_url: str) -> None:
    open_call(page, base_url)
    page.wait_for_function("() => document.getElementById('call-audio').readyState >= 1")
    set_time = "t => { document.getElementById('call-audio').currentTime = t; }"
    page.evaluate(set_time, 5.2)  # inside turn 3 (4.9-5.8 s)
    expect(page.locator("#turn-3")).to_have_class(re.compile(r"\bplaying\b"))
    page.evaluate(set_time, 4.5)  # the silence between turns 2 and 3: no turn is being heard
    expect(page.locator(".turn.playing")).to_have_count(0)
    page.evaluate(set_time, 3.4)  # the barge-in: turn 1 still sounds, turn 2 (started last) is current
    expect(page.locator("#turn-2")).to_have_class(re.compile(r"\bplaying\b"))
    expect(page.locator(".turn.playing")).to_have_count(1)
    # Playing (muted: a headless browser has no speakers to spare) moves the highlight with the sound.
    page.evaluate(set_time, 0.2)
    page.evaluate("() => { const a = document.getElementById('call-audio'); a.muted = true; return a.play(); }")
    page.wait_for_function("() => document.getElementById('call-audio').currentTime > 0.5")
    expect(page.locator("#turn-0")).to_have_class(re.compile(r"\bplaying\b"))
    page.evaluate("() => document.getElementById('call-audio').pause()")


def test_the_timeline_draws_both_lanes_and_the_events(page: Any, base_url: str) -> None:
    open_call(page, base_url)
    chart = page.locator("svg.call-timeline")
    expect(page.locator("figure#call-timeline")).to_have_attribute("data-drawn", "5")
    assert chart.locator("rect.seg[data-side=caller]").count() == 3
    assert chart.locator("rect.seg[data-side=agent]").count() == 2
    assert chart.locator("rect.seg[data-kind=backchannel]").count() == 1
    assert chart.locator("rect.seg.interrupted").count() == 1
    assert chart.locator("rect.seg.interrupted").get_attribute("data-turn") == "1"
    assert chart.locator("g.interruption[data-event=barge_in]").count() == 1
    assert chart.locator("g.interruption[data-event=yield]").count() == 1
    # Silences: 1.5-2.1 s, 4.2-4.9 s and 5.8-6.0 s (no one speaks for a tick or more), and the stored silence event.
    assert chart.locator("rect.silence.gap").count() == 3
    assert sorted(chart.locator("rect.ev").evaluate_all("rs => rs.map(r => r.dataset.event)")) == [
        "burst", "frame_drop", "noise", "silence"]
    legend = page.locator("ul.call-legend").inner_text()
    for label in ("speech", "backchannel", "vocal tic", "non directed", "hello", "barge-in", "yield", "silence",
                  "noise", "burst", "muffle", "frame drop"):
        assert label in legend
    # A click on the chart plays from there: the middle of the plot is about the middle of the call.
    box = chart.bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + box["width"] * (70 + (1000 - 84) / 2) / 1000, box["y"] + box["height"] * 0.25)
    page.wait_for_function("() => Math.abs(document.getElementById('call-audio').currentTime - 3) < 0.05")


def test_the_metrics_panel_shows_the_calls_numbers(page: Any, base_url: str) -> None:
    open_call(page, base_url)
    rows = page.locator("table.call-metrics tbody tr")
    expect(rows).to_have_count(11)
    shown = {r["metric"]: (r["value"], r["count"]) for r in rows.evaluate_all(
        "rs => rs.map(r => ({metric: r.dataset.metric, value: r.querySelector('.value').innerText, "
        "count: r.querySelector('.count').innerText}))")}
    assert shown == {
        "response_latency": ("0.65 s", "2"), "yield_latency": ("0.20 s", "1"), "response_rate": ("100%", "2"),
        "yield_rate": ("100%", "1"), "agent_interruption_rate": ("0%", "2"), "selectivity_backchannel": ("100%", "1"),
        "selectivity_vocal_tic": ("—", "0"), "selectivity_non_directed": ("—", "0"),
        "time_to_first_audio": ("2.10 s", "1"), "longest_silence": ("0.70 s", "1"), "word_error_rate": ("25%", "8"),
    }
    assert "conditions street" in page.locator("p.call-about").inner_text()
    assert page.locator("#turn-1").inner_text().count("cut short") == 1
    assert "the caller heard: I can help with that." in page.locator("#turn-1").inner_text()
    assert "heard: it is fifty" in page.locator("#turn-2").inner_text()


def test_the_call_page_fits_a_phone(page: Any, base_url: str) -> None:
    for size in (WIDE, PHONE):
        page.set_viewport_size(size)
        open_call(page, base_url)
        expect(page.locator("figure#call-timeline")).to_have_attribute("data-drawn", "5")
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= size["width"], f"the call page is {width} px wide at {size['width']} px"
        page.screenshot(path=str(SHOTS / f"call-{size['width']}x{size['height']}.png"), full_page=True)
    page.set_viewport_size(WIDE)


def test_a_text_conversation_page_has_no_player(page: Any, base_url: str) -> None:
    open_call(page, base_url, "text-1")
    expect(page.locator("h1")).to_have_text("text-1")
    expect(page.locator(".turn")).to_have_count(len(TURNS))
    assert page.locator("audio, #call-timeline, table.call-metrics, .turn.timed, .turn .at").count() == 0
    page.click("#turn-2 .said")  # nothing to seek: nothing breaks (the page fixture fails on a script error)
    assert page.locator(".turn.playing").count() == 0
