"""The prompt analysis beside results: markdown for the re-evaluation report, HTML with highlights."""

from __future__ import annotations

from polygon_core.analysis import analyze_prompt
from polygon_core.demo import PROMPT_V2
from polygon_core.reports import analysis_html, analysis_markdown


def test_markdown_section_lists_every_axis_with_its_score() -> None:
    analysis = analyze_prompt(PROMPT_V2, max_tier=3).to_json()
    text = analysis_markdown(analysis)
    for axis, body in analysis["axes"].items():
        assert f"| {axis} | {body['score']:.2f} |" in text
    assert analysis["prompt_hash"] in text


def test_html_section_marks_each_highlight_on_the_prompt_text() -> None:
    prompt = "Always refund at once. Never refund at once. Maybe be somewhat quick, if possible."
    analysis = analyze_prompt(prompt, max_tier=3).to_json()
    html = analysis_html(analysis, prompt)
    highlights = [h for body in analysis["axes"].values() for h in body["highlights"]]
    assert highlights, "the planted conflict and vague wording give highlights"
    first = min(highlights, key=lambda h: h["start"])
    assert f">{prompt[first['start']:first['end']]}</mark>" in html
    assert "http://" not in html and "https://" not in html
