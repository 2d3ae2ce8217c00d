"""Rubric v3: assertions marked `gate: true` fail the call; v1 and v2 keep their meaning, and
judgments stored before revision 0003 read exactly as they were written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sqlalchemy as sa

from polygon_core.files import FileErrors, load_scenario
from polygon_core.models import AssertionResult, Judgment, Run
from polygon_core.scoring import Aggregate, assertion_gate_hits, compute_gates, get_rubric

from ._files import scenario, write_suite

SCENARIO = scenario(gate=True, extra='  polite: said("hello")\n')

AGENT = """\
name: chatty
prompt: Help the caller.
callable: tests.verdicts.test_rubric_v3:never_looks_up
"""


def never_looks_up(request):  # type: ignore[no-untyped-def]
    """Talks politely, never calls the tool, so the gating assertion fails."""
    from polygon_core.conversation import AgentAction

    if request.turn == 0:
        return AgentAction(say="Hello, how can I help?")
    return AgentAction(say="I understand. Thanks for calling, goodbye.", end="end")


def _load(text: str, tmp_path: Path):  # type: ignore[no-untyped-def]
    path = tmp_path / "check.yaml"
    path.write_text(text, encoding="utf-8")
    return load_scenario(path)


def test_gate_true_is_parsed_into_gating_assertions(tmp_path: Path) -> None:
    scenario = _load(SCENARIO, tmp_path)
    assert scenario.assertions == {"goal_met": "happened(lookup_account)", "polite": 'said("hello")'}
    assert scenario.gating_assertions == ["goal_met"]


@pytest.mark.parametrize(("text", "message"), [
    (SCENARIO.replace('gate: true}', 'gate: yes please}'), "`gate` must be true or false"),
    (SCENARIO.replace('{expr: ', '{expression: '), "unknown keys: expression"),
])
def test_a_bad_gated_assertion_names_it(text: str, message: str, tmp_path: Path) -> None:
    with pytest.raises(FileErrors) as caught:
        _load(text, tmp_path)
    (error,) = caught.value.errors
    assert "check.yaml" in str(error) and message in str(error)


def test_assertion_gate_fires_on_fail_only() -> None:
    results = [AssertionResult(name="goal_met", expression="x", status="fail", message="never happened",
                               turn=2, gate=True),
               AssertionResult(name="other", expression="y", status="fail", gate=False),
               AssertionResult(name="broken", expression="z", status="error", gate=True)]
    (hit,) = assertion_gate_hits(results)
    assert (hit.gate, hit.turn, hit.detail) == ("assertion", 2, "gating assertion 'goal_met' failed: never happened")
    agg = Aggregate(composite=90.0)
    assert [h.gate for h in compute_gates([], get_rubric("v3"), agg, [], results)] == ["assertion"]
    assert compute_gates([], get_rubric("v2"), agg, [], results) == []  # v2 has no such gate


def test_v3_fails_a_call_whose_gating_assertion_failed_and_v1_v2_do_not_apply_it(
        polygon_home: Path, tmp_path: Path) -> None:
    from polygon import usecases

    suite, agent = write_suite(tmp_path, SCENARIO, AGENT)
    stores = usecases.open_stores()
    _config, _prompt, version = usecases.agent_identity(str(agent), str(suite))
    run = Run(id="gated", suite="s", agent_name="chatty", agent_version=version, rubric_version="v1", seeds=[0])
    usecases.create_run(stores, run, suite_path=str(suite), agent_path=str(agent))
    (plan,) = usecases.plan_conversations(str(suite), [0])
    cid = usecases.simulate(stores, run.id, str(suite), str(agent), *plan)
    by_version = {v: usecases.judge(stores, run.id, cid, suite_path=str(suite), agent_path=str(agent),
                                    rubric_version=v) for v in ("v1", "v2", "v3")}
    assert [g.gate for g in by_version["v3"].gates] == ["assertion"]
    assert by_version["v3"].verdict == "fail"
    assert by_version["v1"].gates == by_version["v2"].gates == []
    # Same criteria and composite under every version: only the gate differs.
    assert by_version["v1"].composite == by_version["v2"].composite == by_version["v3"].composite
    (rec,) = stores.repo.list_conversations(run.id)
    assert [(a.name, a.status, a.gate) for a in rec.assertions] == [("goal_met", "fail", True),
                                                                     ("polite", "pass", False)]


def test_judgments_stored_before_revision_0003_read_as_they_were(tmp_path: Path) -> None:
    """A database at revision 0002 with a v1 and a v2 judgment, upgraded: same rows, status judged."""
    from polygon_core.adapters.storage import Repository
    from polygon_core.adapters.storage._migrate import upgrade

    url = f"sqlite:///{tmp_path / 'old.db'}"
    engine = sa.create_engine(url)
    upgrade(engine, "0002")
    rows = []
    with engine.begin() as conn:
        conn.execute(sa.text(
            "INSERT INTO polygon_run (id, suite, agent_name, agent_version, rubric_version, seeds, models, status,"
            " source, created_at) VALUES ('old', 's', 'a', 'v', 'v1', '[0]', '{}', 'complete', 'synthetic',"
            " '2026-01-01T00:00:00')"))
        for seq, (version, composite, verdict, gates) in enumerate(
                [("v1", 92.5, "pass", []), ("v2", 92.5, "fail", [{"gate": "invalid_tool_call", "turn": 0,
                                                                 "detail": "invalid call"}])], start=1):
            criteria = [{"criterion": "goal_completion", "score": 5.0, "status": "scored", "evidence": "ok",
                         "unsupported_evidence": False}]
            rows.append((version, composite, verdict))
            conn.execute(sa.text(
                "INSERT INTO polygon_judgment (run_id, conversation_id, rubric_version, judge_model, repeats,"
                " composite, partial, verdict, not_scored, criteria, gates, raw, seq) VALUES ('old', 'c1', :v,"
                " 'offline-heuristic', 1, :c, 0, :verdict, '[]', :criteria, :gates, '[]', :seq)"),
                {"v": version, "c": composite, "verdict": verdict, "criteria": json.dumps(criteria),
                 "gates": json.dumps(gates), "seq": seq})
    engine.dispose()
    with Repository(url) as repo:
        repo.upgrade()
        read = repo.judgments("old")
    assert [(j.rubric_version, j.composite, j.verdict) for j in read] == rows
    assert [(j.status, j.reason) for j in read] == [("judged", None), ("judged", None)]
    assert [g.gate for g in read[1].gates] == ["invalid_tool_call"]
    assert isinstance(read[0], Judgment)


def _card(label: str, **kw: object):  # type: ignore[no-untyped-def]
    from polygon_core.compare import Scorecard

    base = {"label": label, "run_id": label, "agent_version": "v", "rubric_version": "v1",
            "judge_model": "offline-heuristic", "conversations": 2, "scored": 2, "mean_composite": 80.0}
    return Scorecard.model_validate({**base, **kw})


def test_compare_blocks_a_candidate_with_nothing_scored_and_any_judge_error() -> None:
    from polygon_core.compare._comparison import ci_verdict

    clean = ci_verdict("a", [], {"a": [], "b": []}, [_card("a"), _card("b")])
    assert (clean.exit_code, clean.reasons) == (0, [])
    broken = ci_verdict("a", [], {"a": [], "b": []},
                        [_card("a"), _card("b", scored=0, mean_composite=None, agent_failures=2)])
    assert (broken.exit_code, broken.reasons) == (1, [
        "b: no scored conversation (2 conversations, 2 broken, 0 judge errors, 0 provider or simulator errors)"])
    judged = ci_verdict("a", [], {"a": [], "b": []},
                        [_card("a", judge_errors=1, scored=1, judge_error_reason="timed out after 60 s"), _card("b")])
    assert (judged.exit_code, judged.reasons) == (1, [
        "a: judge offline-heuristic failed on 1 of 2 conversations: timed out after 60 s"])
