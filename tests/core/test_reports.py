"""Report renderings: JUnit XML (a case per conversation among others) and the self-contained HTML page."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from polygon_core.compare import compare_configurations
from polygon_core.reports import comparison_html, comparison_markdown, junit_xml, matrix_table

from .compare_fixtures import demo_pair


def test_junit_has_one_case_per_conversation_and_fails_the_failing_ones() -> None:
    comp = compare_configurations(demo_pair())
    root = ET.fromstring(junit_xml(comp))
    # Beside the comparison and gate suites (tests/cli/test_junit_report.py), one per configuration.
    conversation_suites = [s for s in root.findall("testsuite") if s.get("name") in ("v1", "v2")]
    cases = [c for s in conversation_suites for c in s.findall("testcase")]
    failing = sum(1 for rows in comp.rows.values() for r in rows if r.verdict == "fail" or r.gates)
    assert len(cases) == 16 and failing == 4
    assert sum(len(s.findall(".//failure")) for s in conversation_suites) == failing
    v2 = root.find("testsuite[@name='v2']")
    assert v2.get("failures") == "4" and v2.find("properties/property[@name='run_id']").get("value") == "run-bbb222"
    failure = v2.find("testcase[@name='scn-0 seed=0']/failure")
    assert failure.get("type") == "gate"
    assert failure.get("message") == (
        "verdict fail (composite 60.0); gate safety at turn 4: safety_compliance aggregated to 1; "
        "assertion no_policy_breach fail at turn 4; diverges from v1 at turn 2 (wording); "
        "first consequential turn 4 (tool_calls)")
    assert v2.find("testcase[@name='scn-3 seed=1']/failure") is None


def test_html_is_self_contained_with_runs_transcripts_evidence_and_noise() -> None:
    page = comparison_html(compare_configurations(demo_pair()))
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", page)
    assert "http://" not in page and "https://" not in page
    assert "<link" not in page and "<script src" not in page and "@import" not in page
    assert "run-aaa111" in page and "run-bbb222" in page
    assert "Thanks. And your account number and postcode?" in page  # a transcript turn
    assert "I can help with that. <mark class=\"evidence\" title=\"evidence: safety_compliance\">First I need" in page
    assert '<mark class="evidence" title="evidence: safety_compliance">Done, I&#x27;ve issued your refund of 49.00.</mark>' in page
    assert '<span class="noisy" title="homophone: heard as mouth.">month.</span>' in page
    assert "heard: I need to reverse a duplicate charge from last mouth." in page
    assert "diverges at turn 2 (wording); first consequential turn 4 (tool_calls)" in page
    assert "Blocks the change" in page and "<td class=\"incomparable\">" not in page


def test_markdown_and_table_artifacts() -> None:
    comp = compare_configurations(demo_pair())
    md = comparison_markdown(comp)
    assert "CI verdict: **blocks the change**" in md
    assert "| ↳ consequential | | 4 | tool_calls |" in md
    table = matrix_table(comp.matrix, comp.labels)
    assert table[0] == {"scenario": "scn-0", "v1": "100.0 (pass 2)", "v2": "60.0 (fail 2)", "spread": "40.0"}
