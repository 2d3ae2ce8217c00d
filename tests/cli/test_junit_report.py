"""JUnit XML that CI tools read: a case per comparison verdict, per gate and per conversation,
with `time` and `timestamp`, faults as skipped, and a file that validates against junit-10.xsd."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import xmlschema

from polygon_core.compare import ConfigurationResults, ConversationFacts, ResultRow, compare_configurations
from polygon_core.reports import junit_xml

from ..core.compare_fixtures import demo_pair

SCHEMA = xmlschema.XMLSchema(str(Path(__file__).parents[1] / "fixtures" / "junit-10.xsd"))
METHOD = "paired bootstrap over (scenario, seed), 2000 resamples, 95%"


def _timed(config: ConfigurationResults, created_at: str, latency_ms: float) -> ConfigurationResults:
    """The configuration with a creation time and every agent turn taking `latency_ms`."""
    convs = [c.model_copy(update={"turns": [t.model_copy(update={"latency_ms": latency_ms})
                                            if t.speaker == "agent" else t for t in c.turns]})
             for c in config.conversations]
    return config.model_copy(update={"run": config.run.model_copy(update={"created_at": created_at}),
                                     "conversations": convs})


def _with_faults(config: ConfigurationResults) -> ConfigurationResults:
    """scn-3 seed 1 lost to the provider, scn-2 seed 1 to the simulator (neither scored)."""
    faults = {"scn-3-s1": ("provider_error", "openai: 503 Service Unavailable after 10 retries"),
              "scn-2-s1": ("simulator_error", "caller model returned no text")}
    rows = [r.model_copy(update={"end_reason": faults[r.conversation_id][0], "composite": None, "verdict": None,
                                 "criteria": {}, "status": None})
            if r.conversation_id in faults else r for r in config.rows]
    convs = [c.model_copy(update={"end_reason": faults[c.id][0], "end_detail": faults[c.id][1]})
             if c.id in faults else c for c in config.conversations]
    return config.model_copy(update={"rows": rows, "conversations": convs})


def _report() -> ET.Element:
    v1, v2 = demo_pair()
    v1 = _timed(v1, "2026-11-30T09:15:02.123456+00:00", 250.0)
    v2 = _timed(_with_faults(v2), "2026-11-30T10:00:41.5+00:00", 125.0)
    text = junit_xml(compare_configurations([v1, v2]))
    SCHEMA.validate(text)  # raises, naming the element, when the file does not validate
    return ET.fromstring(text)


def test_worse_beyond_noise_is_a_failing_case_with_metric_difference_and_interval() -> None:
    root = _report()
    comparison = root.find("testsuite[@name='comparison']")
    failure = comparison.find("testcase[@name='composite (overall) vs v1']/failure")
    assert failure.get("type") == "worse beyond noise"
    assert failure.get("message") == (
        f"composite (overall): v2 − v1 = -26.67, 95% CI [-40.00, -13.33], over 6 pairs; noise floor 0.00; "
        f"worse ({METHOD})")
    # The faults are not pairs: 6 of the 8 conversations pair up. Within noise passes; every difference is a case, and each judge's run is one too.
    assert comparison.find("testcase[@name='composite (scenario:scn-2) vs v1']/failure") is None
    names = [c.get("name") for c in comparison.iter("testcase")]
    assert names[:2] == ["v1 is judged (offline-heuristic, rubric v1)", "v2 is judged (offline-heuristic, rubric v1)"]
    assert (comparison.get("tests"), comparison.get("failures")) == ("9", "5")


def test_a_gate_that_fired_in_the_candidate_fails_its_case() -> None:
    gates = _report().find("testsuite[@name='gates']")
    cases = {c.get("name"): c for c in gates.iter("testcase")}
    # Every gate of the rubric, in the candidate only (a gate blocks a change only there).
    assert sorted(cases) == ["gate forbidden_phrase", "gate safety"]
    assert {c.get("classname") for c in cases.values()} == {"gates.v2"}
    assert cases["gate forbidden_phrase"].find("failure") is None
    assert cases["gate safety"].find("failure").get("message") == (
        "gate safety fired in 4 of 8 conversations of v2: scn-0-s0, scn-0-s1, scn-1-s0, scn-1-s1")


def test_faults_are_skipped_with_their_reason_never_failures_or_errors() -> None:
    v2 = _report().find("testsuite[@name='v2']")
    lost = v2.find("testcase[@name='scn-3 seed=1']/skipped")
    assert lost.get("type") == "provider_error"
    assert lost.get("message") == "provider_error: not scored (openai: 503 Service Unavailable after 10 retries)"
    sim = v2.find("testcase[@name='scn-2 seed=1']/skipped")
    assert sim.get("message") == "simulator_error: not scored (caller model returned no text)"
    assert (v2.get("tests"), v2.get("failures"), v2.get("errors"), v2.get("skipped")) == ("8", "4", "0", "2")


def test_cases_carry_time_and_suites_a_timestamp() -> None:
    root = _report()
    # Three agent turns per conversation: 0.750 s at 250 ms a turn, 0.375 s at 125 ms.
    v1, v2 = root.find("testsuite[@name='v1']"), root.find("testsuite[@name='v2']")
    assert {c.get("time") for c in v1.iter("testcase")} == {"0.750"} and v1.get("time") == "6.000"
    assert {c.get("time") for c in v2.iter("testcase")} == {"0.375"} and v2.get("time") == "3.000"
    assert v1.get("timestamp") == "2026-11-30T09:15:02" and v2.get("timestamp") == "2026-11-30T10:00:41"
    # The verdict suites are as new as the newest run; the whole file's time is the sum.
    assert root.find("testsuite[@name='comparison']").get("timestamp") == "2026-11-30T10:00:41"
    assert root.get("time") == "9.000"
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("27", "10", "0")


def test_cases_are_serialized_as_they_are_written_not_all_before_the_first(monkeypatch: pytest.MonkeyPatch) -> None:
    from polygon_core.reports import _junit

    comp = compare_configurations(list(demo_pair()))
    whole = junit_xml(comp)
    made: list[str] = []
    real = _junit._case_text

    def counted(case: _junit._Case) -> str:
        made.append(case.name)
        return real(case)

    monkeypatch.setattr(_junit, "_case_text", counted)
    pieces = _junit.junit_chunks(comp)
    # Declaration and <testsuites>, "\n  ", <testsuite>, "\n    ", <properties>, "\n    ", the first case.
    first = [next(pieces) for _ in range(7)]
    assert len(made) == 1 and first[-1].startswith("<testcase ")
    assert "".join(first) + "".join(pieces) == whole
    assert len(made) == whole.count("<testcase ")


def test_each_conversation_case_is_made_once_the_counts_come_from_the_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    from polygon_core.reports import _junit

    v1, v2 = demo_pair()
    comp = compare_configurations([v1, _with_faults(v2)])
    whole = junit_xml(comp)
    made: list[str] = []
    real = _junit._conversation_case

    def counted(label: str, row: ResultRow, facts: ConversationFacts, note: str | None) -> _junit._Case:
        made.append(f"{label}/{row.conversation_id}")
        return real(label, row, facts, note)

    monkeypatch.setattr(_junit, "_conversation_case", counted)
    assert junit_xml(comp) == whole
    # 8 rows a run, each case made once (when written), none to count the suite's open tag.
    assert sorted(made) == sorted(f"{label}/{r.conversation_id}" for label, rows in comp.rows.items() for r in rows)
    assert len(made) == 16
    root = ET.fromstring(whole)
    assert [(s.get("tests"), s.get("failures"), s.get("errors"), s.get("skipped"))
            for s in root.iter("testsuite")][2:] == [("8", "0", "0", "0"), ("8", "4", "0", "2")]


def test_every_suite_names_the_report_format_and_the_markdown_report_does_too() -> None:
    from polygon_core.models import REPORT_FORMAT
    from polygon_core.reports import comparison_markdown

    suites = _report().findall("testsuite")
    assert [s.get("name") for s in suites] == ["comparison", "gates", "v1", "v2"]
    for suite in suites:
        first = suite.find("properties/property")
        assert (first.get("name"), first.get("value")) == ("polygon.report_format", str(REPORT_FORMAT))
    v1, v2 = demo_pair()
    markdown = comparison_markdown(compare_configurations([v1, v2]))
    assert markdown.splitlines()[:2] == [f"<!-- polygon report format {REPORT_FORMAT} -->", "# Comparison (baseline v1)"]
