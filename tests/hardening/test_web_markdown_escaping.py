"""User text in Prefect markdown artifacts renders as text: agent names, scenario ids, transcript
lines, tool names, sweep labels and webhook-supplied header values never become HTML or links."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from markdown_it import MarkdownIt

from polygon_core.compare import compare_configurations
from polygon_core.reports import analysis_markdown, comparison_markdown, md_code, md_text, scorecard_markdown

from ..core.compare_fixtures import configuration, row

IMG = "<img src=x onerror=alert(1)>"
LINK = "[click](javascript:alert(1))"


def _html(markdown: str) -> str:
    """What a CommonMark renderer with raw HTML allowed (and GFM tables) makes of the text."""
    return MarkdownIt("commonmark").enable("table").render(markdown)



def test_md_text_and_md_code() -> None:
    assert md_text(IMG) == "&lt;img src=x onerror=alert(1)&gt;"
    assert md_text(LINK) == r"\[click\](javascript:alert(1))"
    assert md_text("a|b\nc *d* `e` ~f~ !g _h_") == r"a\|b c \*d\* \`e\` \~f\~ \!g \_h\_"
    assert md_text("one\ntwo", inline=False) == "one\ntwo"
    assert md_code("x`</code><img>") == "`x'</code><img>`"
    assert _html(md_text(IMG)) == "<p>&lt;img src=x onerror=alert(1)&gt;</p>\n"
    assert _html(md_text(LINK)) == "<p>[click](javascript:alert(1))</p>\n"


def test_comparison_and_scorecard_with_hostile_names_render_as_text() -> None:
    scenarios = [LINK, "scn|<b>x</b>"]
    a = configuration(IMG, "run-aaa111", "ver1", [row(s, 0, 100.0) for s in scenarios], hasty=False)
    b = configuration(f"{LINK}2", "run-bbb222", "ver2",
                      [row(s, 0, 60.0, gates=("safety",), safe=False) for s in scenarios], hasty=True)
    comp = compare_configurations((a, b))
    for markdown in (comparison_markdown(comp), scorecard_markdown(a.card), scorecard_markdown(b.card)):
        html = _html(markdown)
        assert "<img" not in html and "<a href" not in html and "<b>" not in html
    md = comparison_markdown(comp)
    assert "| &lt;img src=x onerror=alert(1)&gt; | \\[click\\](javascript:alert(1))2 | spread |" in md
    assert "| \\[click\\](javascript:alert(1)) |" in md and "| scn\\|&lt;b&gt;x&lt;/b&gt; |" in md
    assert scorecard_markdown(a.card).startswith("## &lt;img src=x onerror=alert(1)&gt; (run `run-aaa111`)\n")
    # Tables keep their shape: a `|` in a scenario id stays inside its cell.
    html = _html(md)
    assert "<tr>\n<td>scn|&lt;b&gt;x&lt;/b&gt;</td>\n<td>100.0 (pass 1)</td>" in html
    assert "<td>[click](javascript:alert(1))</td>" in html


def test_analysis_reasons_quoting_the_prompt_render_as_text() -> None:
    analysis = {"prompt_hash": "abc", "tiers_run": ["1"], "axes": {"vagueness": {
        "score": 0.5, "tiers": ["1"], "highlights": [{"start": 0, "end": 3, "reason": f"vague: {IMG} {LINK}"}]}}}
    html = _html(analysis_markdown(analysis))
    assert "<img" not in html and "<a href" not in html
    assert "vague: &amp;lt;img src=x onerror=alert(1)&amp;gt;" not in html  # escaped once, not twice
    assert "vague: &lt;img src=x onerror=alert(1)&gt; [click](javascript:alert(1))" in html


def test_reevaluation_report_header_from_a_webhook_renders_as_text(monkeypatch: pytest.MonkeyPatch,
                                                                   tmp_path: Path) -> None:
    from polygon.tasks import _reevaluate

    published: list[dict[str, Any]] = []
    stores = SimpleNamespace(artifacts=SimpleNamespace(put_text=lambda key, text, content_type: f"mem://{key}"),
                             repo=SimpleNamespace(set_run_status=lambda *a, **k: None))
    monkeypatch.setattr(_reevaluate, "task_stores", lambda: stores)
    monkeypatch.setattr(_reevaluate, "create_markdown_artifact", lambda **kw: published.append(kw))
    _reevaluate.publish_report_task.fn("run-1", {"agent": IMG, "commit": LINK}, "body")
    (artifact,) = published
    assert "- **agent**: &lt;img src=x onerror=alert(1)&gt;" in artifact["markdown"]
    assert "- **commit**: \\[click\\](javascript:alert(1))" in artifact["markdown"]
    html = _html(artifact["markdown"])
    assert "<img" not in html and "<a href" not in html
