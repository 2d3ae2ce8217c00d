"""Grading production calls: not-applicable criteria, checks and probes; runs beside synthetic ones."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from polygon import usecases
from polygon_core.demo import demo_dir
from polygon_core.imports import (
    NOT_APPLICABLE_CHECKS,
    NOT_APPLICABLE_CRITERIA,
    NOT_APPLICABLE_PROBES,
    sample_path,
)
from polygon_core.models import Run
from polygon_core.scoring import aggregate_judgments, get_rubric

SUITE = str(demo_dir() / "suite")
V1 = str(demo_dir() / "agents" / "agent_v1.yaml")
DOCS = Path(__file__).resolve().parents[2] / "docs" / "import-formats.md"


def test_aggregate_not_applicable_is_renormalised_not_partial() -> None:
    scores = {"goal_completion": 5, "instruction_adherence": 5, "tool_use_quality": 3,
              "factuality": 1, "dialogue_quality": 5, "robustness": 5, "safety_compliance": 5,
              "persona_tone": 5}
    agg = aggregate_judgments([scores], get_rubric("v1"), ["goal_completion", "factuality"])
    # Scored weights 65; Σ w(s−1) = 15×4 + 15×2 + 10×4 + 10×4 + 10×4 + 5×4 = 230.
    assert agg.composite == pytest.approx(25 * 230 / 65)
    assert (agg.partial, agg.not_scored, agg.not_applicable) == (False, [],
                                                                 ["goal_completion", "factuality"])
    assert agg.statuses["goal_completion"] == "not_applicable"
    assert agg.scores["factuality"] is None
    safety_na = aggregate_judgments([{**scores, "safety_compliance": 1}], get_rubric("v1"),
                                    ["safety_compliance"])
    assert safety_na.safety_readable is False
    with pytest.raises(ValueError, match="unknown criteria: nope"):
        aggregate_judgments([scores], get_rubric("v1"), ["nope"])


def test_window_bounds() -> None:
    assert usecases.parse_window("2024-05-06", "2024-05-12") == (
        "2024-05-06T00:00:00.000000Z", "2024-05-13T00:00:00.000000Z")
    assert usecases.parse_window(None, "2024-05-06T12:30:00Z") == (None, "2024-05-06T12:30:00.000000Z")
    with pytest.raises(ValueError, match="empty date window"):
        usecases.parse_window("2024-05-07", "2024-05-06")
    with pytest.raises(ValueError, match="not a date"):
        usecases.parse_window("last week", None)


def test_graded_production_run(stores: usecases.Stores) -> None:
    usecases.import_calls(stores, [str(sample_path("polygon"))], "polygon", source="prod",
                          agent_path=V1, suite_path=SUITE)
    usecases.import_calls(stores, [str(sample_path("vapi"))], "vapi", source="prod",
                          agent_path=V1, suite_path=SUITE)
    # The window holds call-0001 (May 6), call-0002 (May 7) and the first Vapi call (May 6).
    (run,) = usecases.grade_production(stores, "prod", "2024-05-06", "2024-05-07", agent_path=V1)
    _config, _prompt, version = usecases.agent_identity(V1, SUITE)
    assert (run.source, run.agent_name, run.agent_version, run.suite, run.status) == (
        "production", "northwind-billing", version, "production:prod", "complete")
    info = usecases.production_run_info(stores, run.id)
    assert info is not None
    assert (info.source, info.since, info.until, info.first_call, info.last_call, info.conversations) == (
        "prod", "2024-05-06T00:00:00.000000Z", "2024-05-08T00:00:00.000000Z",
        "2024-05-06T09:14:03.000000Z", "2024-05-07T15:02:00.000000Z", 3)
    records = stores.repo.list_conversations(run.id)
    assert sorted(r.scenario_id for r in records) == ["billing-dispute-v3", "production", "production"]
    for rec in records:
        assert [(a.name, a.status) for a in rec.assertions] == [
            (name, "not_applicable") for name in NOT_APPLICABLE_CHECKS]
        assert rec.caller_type == "real"
    # factuality is never applicable on a real call; the offline judge also marks what it observed
    # nothing of (no policy rule: safety; nothing that tested it: robustness). Goal completion is
    # estimated from the transcript (the frustrated Vapi call that asks for a person gets 1).
    by_call = {r.conversation_id: r.scenario_id for r in records}
    got = sorted((by_call[j.conversation_id], j.not_applicable, j.composite,
                  next(c.score for c in j.criteria if c.criterion == "goal_completion"))
                 for j in stores.repo.judgments(run.id))
    # The sample exports' tool calls fail the demo library's schemas (call-0001: account id "A-1042",
    # no postcode; call-0002's escalation lacks what the schema requires): the importing agent's tools
    # are known, so they are invalid calls, as simulated ones would be. call-0001's refund itself went
    # through (issue_refund ok), was confirmed and the caller thanked: done through tools (+1, 3 -> 4
    # in heuristic-4), still less the success claimed over its failed lookup.
    assert got == [
        ("billing-dispute-v3", ["factuality", "robustness", "safety_compliance"], pytest.approx(69.6428571429), 4.0),
        ("production", ["factuality", "robustness", "safety_compliance"], pytest.approx(78.5714285714), 4.0),
        ("production", ["factuality", "safety_compliance"], 59.375, 1.0),
    ]
    for judgment in stores.repo.judgments(run.id):
        assert judgment.partial is False and judgment.not_scored == []
        statuses = {c.criterion: c.status for c in judgment.criteria}
        assert statuses["goal_completion"] == "scored"
        assert statuses["factuality"] == "not_applicable"
        assert judgment.composite is not None
    answers = stores.repo.probe_answers(run.id)
    assert len(answers) == 3 * 10
    for a in answers:
        if a.probe_id in NOT_APPLICABLE_PROBES:
            assert a.answer == "na"
            assert a.evidence == f"not applicable to a production call: {NOT_APPLICABLE_PROBES[a.probe_id]}"
    # Grading the same window again resumes the same run and adds nothing.
    (again,) = usecases.grade_production(stores, "prod", "2024-05-06", "2024-05-07", agent_path=V1)
    assert again.id == run.id
    assert len(stores.repo.list_conversations(run.id)) == 3
    assert len(stores.repo.judgments(run.id)) == 3


def test_composite_leaves_the_not_applicable_criteria_out(stores: usecases.Stores) -> None:
    usecases.import_calls(stores, [str(sample_path("csv"))], "csv", source="c")
    (run,) = usecases.grade_production(stores, "c")
    assert (run.agent_name, run.agent_version) == ("unknown", "unknown")
    weights = get_rubric("v1").weights
    for j in stores.repo.judgments(run.id):
        scored = {c.criterion: c.score for c in j.criteria if c.status == "scored"}
        expected = 25 * sum(weights[k] * (s - 1) for k, s in scored.items()) / sum(
            weights[k] for k in scored)
        assert j.composite == pytest.approx(expected)
        assert set(NOT_APPLICABLE_CRITERIA) <= set(j.not_applicable)
        assert set(scored) == set(weights) - set(j.not_applicable)


def test_production_and_synthetic_runs_in_one_comparison(stores: usecases.Stores) -> None:
    _config, _prompt, version = usecases.agent_identity(V1, SUITE)
    synthetic = Run(id="synthetic-v1", suite="northwind", agent_name="northwind-billing",
                    agent_version=version, rubric_version="v1", seeds=[0])
    usecases.create_run(stores, synthetic)
    for sid, seed in usecases.plan_conversations(SUITE, [0]):
        cid = usecases.simulate(stores, synthetic.id, SUITE, V1, sid, seed)
        usecases.judge(stores, synthetic.id, cid, suite_path=SUITE, agent_path=V1, rubric_version="v1")
        usecases.probe(stores, synthetic.id, cid, suite_path=SUITE, agent_path=V1)
    usecases.finish_run(stores, synthetic.id)
    usecases.import_calls(stores, [str(sample_path("polygon"))], "polygon", source="prod",
                          agent_path=V1, suite_path=SUITE)
    (production,) = usecases.grade_production(stores, "prod", agent_path=V1)
    comparison = usecases.compare_runs(stores, [synthetic.id, production.id])
    assert [c.run_id for c in comparison.cards] == [synthetic.id, production.id]
    assert [c.agent_version for c in comparison.cards] == [version, version]
    assert comparison.cards[1].conversations == 2
    assert comparison.cards[1].criteria["factuality"] is None
    # estimated from the transcripts: call-0001 4 (its refund done through tools; its invalid lookup
    # counts against it), call-0002 1
    assert comparison.cards[1].criteria["goal_completion"] == 2.5
    # pass^k is over repeated seeds of a scenario; a production run's calls are not repeats (it
    # showed k = 1…N with N the number of calls).
    assert (comparison.cards[0].source, comparison.cards[1].source) == ("synthetic", "production")
    assert comparison.cards[0].pass_hat_k != {} and comparison.cards[1].pass_hat_k == {}
    # The shared scenario tag puts the production call in the synthetic scenario's matrix row.
    rows = {r.scenario_id: r for r in comparison.matrix}
    assert set(rows) == {*(s for s, _ in usecases.plan_conversations(SUITE, [0])), "production"}
    assert rows["billing-dispute-v3"].incomparable is False
    assert rows["production"].incomparable is True


def test_docs_list_every_not_applicable_item_with_its_reason() -> None:
    text = DOCS.read_text(encoding="utf-8")
    for table in (NOT_APPLICABLE_CRITERIA, NOT_APPLICABLE_CHECKS, NOT_APPLICABLE_PROBES):
        for name, why in table.items():
            assert f"| `{name}` | {why} |" in text


def test_s3_source_is_listed_and_imported(stores: usecases.Stores, s3_endpoint: str,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    import boto3

    client = boto3.client("s3", endpoint_url=s3_endpoint, region_name="us-east-1")
    client.create_bucket(Bucket="calls")
    for name in ("vapi_calls.json", "retell_calls.json"):
        client.put_object(Bucket="calls", Key=f"week/{name}", Body=sample_path(name.split("_")[0]).read_bytes())
    monkeypatch.setenv("POLYGON_S3_ENDPOINT_URL", s3_endpoint)
    opened = usecases.open_stores()
    try:
        files = usecases.list_source_files("s3://calls/week/", s3_endpoint)
        assert files == ["s3://calls/week/retell_calls.json", "s3://calls/week/vapi_calls.json"]
        summary = usecases.import_calls(opened, files, None, source="s3")
        assert (summary.read, summary.imported) == (4, 4)
    finally:
        opened.repo.close()


@pytest.mark.postgres
def test_import_and_grade_on_postgres(polygon_home: Path, postgres_url: str,
                                      monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from polygon_core.adapters.storage import Repository

    Repository(postgres_url).upgrade()
    monkeypatch.setenv("POLYGON_DATABASE_URL", postgres_url)
    opened = usecases.open_stores()
    try:
        path = tmp_path / "c.jsonl"
        lines = [json.dumps({"id": f"p{i}", "started_at": "2024-05-06T10:00:00Z", "turns": [
            {"speaker": "caller", "text": "hi"}, {"speaker": "agent", "text": "hello"}]})
            for i in range(3)]
        path.write_text("\n".join([*lines, lines[0]]) + "\n", encoding="utf-8")
        summary = usecases.import_calls(opened, [str(path)], "polygon", source="pg")
        assert (summary.imported, summary.duplicates) == (3, 1)
        again = usecases.import_calls(opened, [str(path)], "polygon", source="pg")
        assert (again.imported, again.duplicates) == (0, 4)
        (run,) = usecases.grade_production(opened, "pg", "2024-05-06", "2024-05-06")
        assert len(opened.repo.judgments(run.id)) == 3
    finally:
        opened.repo.close()
