"""storage.scorecard_reads on SQLite and a real Postgres: the columns a result row needs, one judge's
judgment joined in SQL, probe answers counted with GROUP BY, judges ordered by their last judgment."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from polygon_core.adapters.storage import Repository, ensure_database, scorecard_reads
from polygon_core.models import (
    AssertionResult,
    Conversation,
    CriterionScore,
    GateHit,
    Judgment,
    ProbeAnswer,
    Run,
    Turn,
    Usage,
)


@pytest.fixture(params=["sqlite", "postgres"])
def repo(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Repository]:
    url = f"sqlite:///{tmp_path / 'p.db'}" if request.param == "sqlite" else request.getfixturevalue("postgres_url")
    if request.param == "postgres":
        Repository(url).upgrade()  # Postgres' migrations are an explicit step
    repository = ensure_database(url)
    yield repository
    repository.close()


def _store(repo: Repository) -> None:
    repo.save_run(Run(id="r1", suite="s", agent_name="a", agent_version="v", rubric_version="v1", seeds=[0]))
    for cid, scenario in (("c2", "beta"), ("c1", "alpha")):
        conv = Conversation(id=cid, scenario_id=scenario, seed=0, agent_name="a", agent_version="v", persona_hash="p",
                            caller_type="cooperative", difficulty=2, end_reason="agent_end",
                            turns=[Turn(index=0, speaker="agent", text="hi", latency_ms=5.0)],
                            usage={"agent": Usage(input_tokens=10, output_tokens=4, calls=1)})
        repo.save_conversation("r1", conv, artifact_uri=f"runs/r1/conversations/{cid}.json", assertions=[
            AssertionResult(name="verified", expression="verify_before(refund)", status="fail", turn=3)])
    for judge, composite in (("judge-a", 61.5), ("judge-b", 70.0)):
        repo.save_judgment("r1", Judgment(conversation_id="c1", rubric_version="v1", judge_model=judge,
                                          criteria=[CriterionScore(criterion="goal_completion", score=4)],
                                          composite=composite, verdict="warn",
                                          gates=[GateHit(gate="safety", turn=2, detail="refund")]))
    repo.save_judgment("r1", Judgment(conversation_id="c2", rubric_version="v1", judge_model="judge-a",
                                      composite=80.0, verdict="pass"))
    repo.save_probe_answers("r1", [
        ProbeAnswer(conversation_id="c1", probe_id="asks", wording_hash="w", polarity="wanted", answer="yes"),
        ProbeAnswer(conversation_id="c2", probe_id="asks", wording_hash="w", polarity="wanted", answer="yes"),
        ProbeAnswer(conversation_id="c2", probe_id="pii", wording_hash="w", polarity="guardrail", answer="error",
                    evidence="timed out")])


def test_result_facts_join_one_judges_judgment_and_parse_the_json_columns(repo: Repository) -> None:
    _store(repo)
    facts = list(scorecard_reads.result_facts(repo.engine, "r1", "v1", "judge-a"))
    assert [f["conversation_id"] for f in facts] == ["c1", "c2"]
    c1 = facts[0]
    assert (c1["scenario_id"], c1["composite"], c1["verdict"], c1["status"]) == ("alpha", 61.5, "warn", "judged")
    assert c1["criteria"][0]["criterion"] == "goal_completion" and c1["criteria"][0]["score"] == 4
    assert c1["gates"] == [{"gate": "safety", "turn": 2, "detail": "refund"}]
    assert c1["assertions"][0]["turn"] == 3 and c1["usage"]["agent"]["input_tokens"] == 10
    page = list(scorecard_reads.result_facts(repo.engine, "r1", "v1", "judge-b", offset=1, limit=1))
    assert [(f["conversation_id"], f["composite"], f["status"], f["gates"]) for f in page] == [("c2", None, None, None)]


def test_judges_counts_and_pairing_keys(repo: Repository) -> None:
    _store(repo)
    assert scorecard_reads.judges_by_recency(repo.engine, "r1", "v1") == ["judge-b", "judge-a"]  # c2 by a was last
    assert scorecard_reads.conversation_count(repo.engine, "r1") == 2
    assert scorecard_reads.probe_answer_counts(repo.engine, "r1", "offline-heuristic") == [
        ("asks", "w", "wanted", "yes", 2), ("pii", "w", "guardrail", "error", 1)]
    assert scorecard_reads.probe_errors(repo.engine, "r1", "offline-heuristic") == [
        ("c2", "pii", "w", "guardrail", "timed out")]
    assert list(scorecard_reads.pairing_keys(repo.engine, "r1")) == [("alpha", 0, "c1"), ("beta", 0, "c2")]


def test_probe_answers_are_counted_per_answerer_and_answerers_ordered_by_their_last_answer(
        repo: Repository) -> None:
    _store(repo)  # offline-heuristic: asks yes on c1 and c2, pii error on c2
    repo.save_probe_answers("r1", [
        ProbeAnswer(conversation_id=c, probe_id="asks", wording_hash="w", polarity="wanted", answer="no",
                    answered_by="openai:good") for c in ("c1", "c2")])
    repo.save_probe_answers("r1", [
        ProbeAnswer(conversation_id="c1", probe_id="pii", wording_hash="w", polarity="guardrail", answer="error",
                    evidence="unreadable reply", answered_by="openai:bad")])
    assert scorecard_reads.probe_answerers_by_recency(repo.engine, "r1") == [
        "offline-heuristic", "openai:good", "openai:bad"]
    # Two answerers on one conversation are not two conversations.
    assert scorecard_reads.probe_answer_counts(repo.engine, "r1", "offline-heuristic") == [
        ("asks", "w", "wanted", "yes", 2), ("pii", "w", "guardrail", "error", 1)]
    assert scorecard_reads.probe_answer_counts(repo.engine, "r1", "openai:good") == [("asks", "w", "wanted", "no", 2)]
    assert scorecard_reads.probe_errors(repo.engine, "r1", "openai:good") == []
    assert scorecard_reads.probe_errors(repo.engine, "r1", "openai:bad") == [
        ("c1", "pii", "w", "guardrail", "unreadable reply")]
    assert scorecard_reads.probe_answerers_by_recency(repo.engine, "nope") == []


def test_result_facts_read_a_calls_metrics_and_none_for_text(repo: Repository) -> None:
    from polygon_core.checks import run_checks
    from polygon_core.models import InteractionMetric, VoiceCall

    repo.save_run(Run(id="r2", suite="s", agent_name="a", agent_version="v", rubric_version="v1", seeds=[0]))
    text = Conversation(id="t", scenario_id="alpha", seed=0, agent_name="a", agent_version="v", persona_hash="p",
                        caller_type="busy", difficulty=2, end_reason="agent_end",
                        turns=[Turn(index=0, speaker="agent", text="hi")])
    call = text.model_copy(update={"id": "v", "channel": "voice", "voice": VoiceCall(stack={"vad": "webrtc:20ms"}, metrics={
        "response_latency": InteractionMetric(value=1.25, count=4), "yield_rate": InteractionMetric()})})
    # A call stored before its stack was kept: its metrics without `voice_stack`.
    older = call.model_copy(update={"id": "w"})
    for conv in (text, call, older):
        metrics = run_checks(conv, None).metrics.model_dump(mode="json", exclude={"voice_stack"} if conv is older
                                                             else None)
        repo.save_conversation("r2", conv, artifact_uri=f"runs/r2/conversations/{conv.id}.json", assertions=[],
                               metrics=metrics)
    facts = {f["conversation_id"]: f for f in scorecard_reads.result_facts(repo.engine, "r2", "v1", "judge-a")}
    assert facts["t"]["voice"] is None and facts["t"]["voice_stack"] is None
    assert facts["v"]["voice"] == {"response_latency": {"value": 1.25, "count": 4},
                                   "yield_rate": {"value": None, "count": 0}}
    assert facts["v"]["voice_stack"] == {"vad": "webrtc:20ms", "conditions": "clean@0.5",
                                         "cascade": "yields, barge-in 600 ms, endpoint 600 ms"}
    assert facts["w"]["voice_stack"] is None and facts["w"]["voice"] == facts["v"]["voice"]
