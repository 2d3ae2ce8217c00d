"""`polygon rescore` and `polygon probe` on stored runs: judgments are added, never rewritten."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from polygon.cli import app
from polygon_core.conversation import AgentAction, AgentRequest, ToolRequest
from polygon_core.models import Run

runner = CliRunner()

TOOLS = """\
tools:
  lookup_account:
    description: Look up an account.
    parameters:
      type: object
      properties:
        account_id: {type: string, pattern: "^[0-9]{4}$"}
      required: [account_id]
      additionalProperties: false
    kind: fixed
    response: {found: true}
"""

SCENARIO = """\
id: sloppy-lookup
seed: 7
max_turns: 6
persona:
  goal: check my account
  ground_truth: {account_id: "4821"}
tools: [lookup_account]
assertions:
  goal_met: happened(lookup_account)
forbidden_phrases: [guaranteed]
probes: [made_unkeepable_promise, recovered_after_tool_error, invented_policy]
"""

AGENT = """\
name: sloppy
prompt: Look the account up before answering.
model: offline
callable: tests.cli.test_scoring_cli:InvalidThenSpeaks
"""

PROBES = """\
probes:
  - id: made_unkeepable_promise
    question: Did the agent promise something it could not deliver?
    polarity: guardrail
  - id: said_goodbye
    question: Did the agent say goodbye?
    polarity: wanted
"""


class InvalidThenSpeaks:
    """Sends the lookup with an integer account id (invalid under the schema), speaks, fixes it later."""

    async def act(self, request: AgentRequest) -> AgentAction:
        if request.turn == 0:
            if request.step == 0:
                return AgentAction(tool_calls=[ToolRequest(name="lookup_account",
                                                           arguments={"account_id": 4821})])
            return AgentAction(say="Hello, I can check your account for you.")
        if request.step == 0 and not any(h.tool_call and h.tool_call.valid for h in request.history):
            return AgentAction(tool_calls=[ToolRequest(name="lookup_account",
                                                       arguments={"account_id": "4821"})])
        if request.step > 0:
            return AgentAction(say="Your account 4821 looks fine.")
        return AgentAction(say="Thanks for calling, goodbye.", end="end")


@pytest.fixture
def stored_run(polygon_home: Path, tmp_path: Path) -> tuple[str, Path, Path]:
    """A run made, judged under v1 and probed by the pipeline steps (no Prefect), with a manifest."""
    from polygon import usecases

    suite = tmp_path / "suite"
    (suite / "scenarios").mkdir(parents=True)
    (suite / "tools.yaml").write_text(TOOLS, encoding="utf-8")
    (suite / "scenarios" / "sloppy.yaml").write_text(SCENARIO, encoding="utf-8")
    agent = tmp_path / "agent.yaml"
    agent.write_text(AGENT, encoding="utf-8")
    stores = usecases.open_stores()
    _config, _prompt, version = usecases.agent_identity(str(agent), str(suite))
    run = Run(id="run-sloppy", suite="sloppy", agent_name="sloppy", agent_version=version,
              rubric_version="v1", seeds=[0, 1])
    usecases.create_run(stores, run, suite_path=str(suite), agent_path=str(agent))
    for scenario_id, seed in usecases.plan_conversations(str(suite), [0, 1]):
        cid = usecases.simulate(stores, run.id, str(suite), str(agent), scenario_id, seed)
        usecases.judge(stores, run.id, cid, suite_path=str(suite), agent_path=str(agent),
                       rubric_version="v1")
        usecases.probe(stores, run.id, cid, suite_path=str(suite), agent_path=str(agent))
    usecases.finish_run(stores, run.id)
    return run.id, suite, agent


def _judgments(run_id: str, version: str) -> list[str]:
    from polygon import usecases

    stores = usecases.open_stores()
    return [j.model_dump_json() for j in stores.repo.judgments(run_id, version)]


def test_rescore_v2_adds_the_invalid_call_gate_and_leaves_v1_byte_identical(
        stored_run: tuple[str, Path, Path]) -> None:
    run_id, _suite, _agent = stored_run
    v1_before = _judgments(run_id, "v1")
    assert len(v1_before) == 2
    # v1 has no invalid-call gate. The offline judge: tool_use_quality 3 (the invalid call); the caller
    # had to ask again (instruction_adherence 4, robustness 4) and the agent hung up on that question
    # (dialogue_quality 2); goal (its assertion held), safety and tone 5; factuality not applicable
    # → 25 × (25×4 + 15×3 + 15×2 + 10×1 + 10×3 + 10×4 + 5×4) / 90, a pass
    composite = 25 * (25 * 4 + 15 * 3 + 15 * 2 + 10 * 1 + 10 * 3 + 10 * 4 + 5 * 4) / 90
    assert [(json.loads(j)["composite"], json.loads(j)["verdict"]) for j in v1_before] == [(composite, "pass")] * 2
    assert all(json.loads(j)["gates"] == [] for j in v1_before)

    result = runner.invoke(app, ["rescore", run_id, "--rubric", "v2", "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert (out["rubric_version"], out["judge"], out["added"], out["skipped"]) == (
        "v2", "offline-heuristic", 2, [])
    assert out["verdicts"] == {"pass": 0, "warn": 0, "fail": 2}
    assert out["gates"] == {"invalid_tool_call": 2}

    assert _judgments(run_id, "v1") == v1_before  # byte-identical
    v2 = [json.loads(j) for j in _judgments(run_id, "v2")]
    assert [(g["gate"], g["turn"]) for j in v2 for g in j["gates"]] == [
        ("invalid_tool_call", 0), ("invalid_tool_call", 0)]
    assert [j["composite"] for j in v2] == [composite, composite]  # the same composite, failed by the gate
    assert {j["verdict"] for j in v2} == {"fail"}

    # Again: nothing is rewritten, both conversations are skipped.
    again = runner.invoke(app, ["rescore", run_id, "--rubric", "v2", "--json"])
    assert again.exit_code == 0, again.output
    assert (json.loads(again.stdout)["added"], len(json.loads(again.stdout)["skipped"])) == (0, 2)
    assert [json.loads(j) for j in _judgments(run_id, "v2")] == v2
    assert _judgments(run_id, "v1") == v1_before


def test_show_reads_the_run_version_or_the_one_asked_for(
        stored_run: tuple[str, Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    from polygon.cli import _app

    monkeypatch.setattr(_app.console, "_width", 220)
    run_id, _suite, _agent = stored_run
    assert runner.invoke(app, ["rescore", run_id, "--rubric", "v2"]).exit_code == 0
    v1 = runner.invoke(app, ["show", run_id], terminal_width=220)
    v2 = runner.invoke(app, ["show", run_id, "--rubric", "v2"], terminal_width=220)
    assert v1.exit_code == v2.exit_code == 0, v1.output + v2.output
    assert "invalid_tool_call" not in v1.stdout
    assert v2.stdout.count("invalid_tool_call") >= 2
    bad = runner.invoke(app, ["show", run_id, "--rubric", "v9"])
    assert bad.exit_code == 2
    assert "unknown rubric version 'v9'; known versions: v1, v2" in bad.stderr


def test_rescore_with_repeats_and_errors(stored_run: tuple[str, Path, Path]) -> None:
    run_id, _suite, _agent = stored_run
    r = runner.invoke(app, ["rescore", run_id, "--rubric", "v2", "--repeats", "3", "--json"])
    assert r.exit_code == 0, r.output
    from polygon import usecases

    stored = usecases.open_stores().repo.judgments(run_id, "v2")
    assert [j.repeats for j in stored] == [3, 3]
    for args, message in [
        (["rescore", run_id, "--rubric", "v9"], "unknown rubric version 'v9'"),
        (["rescore", "no-such-run", "--rubric", "v2"], "no run 'no-such-run' is stored"),
        (["rescore", run_id, "--rubric", "v2", "--repeats", "0"], "--repeats must be at least 1"),
        (["rescore", run_id, "--rubric", "v2", "--judge", "nonsense-model"], "nonsense-model"),
    ]:
        bad = runner.invoke(app, args)
        assert bad.exit_code == 2, (args, bad.output)
        assert message in bad.stderr
        assert "Traceback" not in bad.output


def test_rescore_refuses_a_changed_agent(stored_run: tuple[str, Path, Path]) -> None:
    run_id, _suite, agent = stored_run
    agent.write_text(AGENT.replace("Look the account up", "Never look the account up"),
                     encoding="utf-8")
    # No cache to clear: the loaded agent is re-read because its file changed.
    bad = runner.invoke(app, ["rescore", run_id, "--rubric", "v2"])
    assert bad.exit_code == 2
    assert "re-scoring would judge a different agent" in bad.stderr
    assert _judgments(run_id, "v2") == []


def test_probe_adds_answers_with_wording_hashes_and_keeps_judgments(
        stored_run: tuple[str, Path, Path], tmp_path: Path) -> None:
    from polygon import usecases
    from polygon_core.probes import load_probes

    run_id, _suite, _agent = stored_run
    stores = usecases.open_stores()
    v1_before = _judgments(run_id, "v1")
    before = stores.repo.probe_answers(run_id)
    assert sorted({a.probe_id for a in before}) == [
        "invented_policy", "made_unkeepable_promise", "recovered_after_tool_error"]

    probes = tmp_path / "probes.yaml"
    probes.write_text(PROBES, encoding="utf-8")
    result = runner.invoke(app, ["probe", run_id, "--probes", str(probes)])
    assert result.exit_code == 0, result.output
    # the scenario lists its probes: only made_unkeepable_promise applies, once per conversation
    assert f"{run_id}: 2 probe answer(s) by offline-heuristic" in result.stdout
    after = stores.repo.probe_answers(run_id)
    new = after[len(before):]
    reworded = load_probes(probes)[0]
    assert [(a.probe_id, a.wording_hash, a.answer) for a in new] == [
        ("made_unkeepable_promise", reworded.wording_hash, "no")] * 2
    bundled = {a.wording_hash for a in before if a.probe_id == "made_unkeepable_promise"}
    assert bundled and reworded.wording_hash not in bundled  # a new series, the old one kept
    assert after[: len(before)] == before
    assert _judgments(run_id, "v1") == v1_before
    missing = runner.invoke(app, ["probe", run_id, "--probes", str(tmp_path / "nope.yaml")])
    assert missing.exit_code == 2 and "no such probe file" in missing.stderr


def test_probe_unknown_probe_is_recorded_unanswered(stored_run: tuple[str, Path, Path],
                                                    tmp_path: Path) -> None:
    from polygon import usecases
    from polygon.usecases._grade import probe_run
    from polygon_core.probes import conformance

    run_id, suite, _agent = stored_run
    text = SCENARIO.replace("probes: [made_unkeepable_promise, recovered_after_tool_error, invented_policy]",
                            "probes: [said_goodbye]")
    (suite / "scenarios" / "sloppy.yaml").write_text(text, encoding="utf-8")  # seen without a cache clear
    probes = tmp_path / "probes.yaml"
    probes.write_text(PROBES, encoding="utf-8")
    stores = usecases.open_stores()
    result = probe_run(stores, run_id, probes_path=str(probes))
    assert result.added == 2
    answers = [a for a in stores.repo.probe_answers(run_id) if a.probe_id == "said_goodbye"]
    assert [(a.answer, a.evidence) for a in answers] == [("unanswered", "unanswered (no offline signal)")] * 2
    c = conformance(answers, "wanted")
    assert (c.k, c.n, c.rate) == (0, 0, None)


class _FakeJudge:
    """A ChatModel whose replies are scripted: the first is malformed, the rest are fours."""

    name = "fake:judge"

    def __init__(self) -> None:
        self.requests: list[Any] = []

    async def chat(self, request: Any) -> Any:
        from polygon_core.providers import ChatResponse
        from polygon_core.scoring import CRITERIA

        self.requests.append(request)
        parsed = {c: {"score": 4, "evidence": "Hello, I can check your account"} for c in CRITERIA}
        if len(self.requests) == 1:
            parsed["factuality"] = {"score": "four", "evidence": "x"}
        return ChatResponse(parsed=parsed, provider="fake", model="judge")


def test_rescore_with_a_model_judge_is_a_new_judge_beside_the_heuristic(
        stored_run: tuple[str, Path, Path]) -> None:
    from polygon import usecases
    from polygon.usecases._grade import rescore_run

    run_id, _suite, _agent = stored_run
    stores = usecases.open_stores()
    v1_before = _judgments(run_id, "v1")
    fake = _FakeJudge()
    result = rescore_run(stores, run_id, rubric_version="v1", judge_model="fake:judge", model=fake)
    assert (result.added, len(result.failed), result.judge_model) == (1, 1, "fake:judge")  # "four": judge error
    assert [r.role for r in fake.requests] == ["judge", "judge"]
    judged = stores.repo.judgments(run_id, "v1")
    assert [j.model_dump_json() for j in judged[:2]] == v1_before
    first, second = judged[2:]
    assert (first.judge_model, first.status, first.composite, first.partial, first.not_scored, first.reason) == (
        "fake:judge", "judge_error", None, False, ["factuality"], 'factuality: "four" is not an integer 1–5')
    assert (second.composite, second.partial) == (75.0, False)


def _suite_files(tmp_path: Path) -> tuple[Path, Path, Path]:
    suite = tmp_path / "suite"
    (suite / "scenarios").mkdir(parents=True)
    (suite / "tools.yaml").write_text(TOOLS, encoding="utf-8")
    (suite / "scenarios" / "sloppy.yaml").write_text(
        SCENARIO.replace("probes: [made_unkeepable_promise, recovered_after_tool_error, invented_policy]",
                         "probes: [made_unkeepable_promise, said_goodbye]"), encoding="utf-8")
    agent = tmp_path / "agent.yaml"
    agent.write_text(AGENT, encoding="utf-8")
    probes = tmp_path / "probes.yaml"
    probes.write_text(PROBES, encoding="utf-8")
    return suite, agent, probes


def test_run_refuses_a_bad_probe_file_before_running(polygon_home: Path, tmp_path: Path) -> None:
    suite, agent, probes = _suite_files(tmp_path)
    probes.write_text("probes:\n  - id: x\n    question: Q?\n    polarity: sideways\n", encoding="utf-8")
    bad = runner.invoke(app, ["run", str(suite), "--agent", str(agent), "--probes", str(probes)])
    assert bad.exit_code == 2
    assert bad.stderr.splitlines() == [
        f"error: {probes}:4: probes[0].polarity: expected 'wanted' or 'guardrail', got 'sideways'"]
    assert not (polygon_home / "artifacts").exists()


@pytest.mark.prefect
@pytest.mark.usefixtures("prefect_harness")
def test_run_with_a_probe_file(polygon_home: Path, tmp_path: Path) -> None:
    from polygon import usecases
    from polygon_core.probes import load_probes

    suite, agent, probes = _suite_files(tmp_path)
    result = runner.invoke(app, ["run", str(suite), "--agent", str(agent), "--seeds", "1",
                                 "--probes", str(probes), "--json"])
    assert result.exit_code == 0, result.output
    (run,) = json.loads(result.stdout)["runs"]
    answers = usecases.open_stores().repo.probe_answers(run["run_id"])
    hashes = {p.id: p.wording_hash for p in load_probes(probes)}
    assert [(a.probe_id, a.wording_hash, a.answer) for a in answers] == [
        ("made_unkeepable_promise", hashes["made_unkeepable_promise"], "no"),
        ("said_goodbye", hashes["said_goodbye"], "unanswered")]


def test_rescore_with_a_model_judge_through_the_openai_sdk(
        stored_run: tuple[str, Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.fakes.llm_server import FakeLLMServer

    run_id, _suite, _agent = stored_run
    monkeypatch.setenv("OPENAI_API_KEY", "sk-polygon-test-0000")
    monkeypatch.setenv("POLYGON_MODEL_CACHE", "off")
    v1_before = _judgments(run_id, "v1")
    with FakeLLMServer() as server:
        name = f"openai:gpt-4o-mini@{server.openai_url}"
        result = runner.invoke(app, ["rescore", run_id, "--rubric", "v1", "--judge", name,
                                     "--repeats", "2", "--json"])
        assert result.exit_code == 0, result.output
        seen = list(server.behaviour.seen)
    out = json.loads(result.stdout)
    assert (out["judge"], out["added"], out["skipped"], out["failed"]) == (name, 2, [], [])
    assert len(seen) == 4  # 2 conversations × 2 repeats
    judged = [json.loads(j) for j in _judgments(run_id, "v1")]
    assert [json.dumps(j, sort_keys=True) for j in judged[:2]] == [
        json.dumps(json.loads(j), sort_keys=True) for j in v1_before]
    for j in judged[2:]:
        # the fake server answers every score with the schema's maximum and a quote of the transcript
        assert (j["judge_model"], j["composite"], j["repeats"], j["verdict"]) == (name, 100.0, 2, "pass")
        assert {c["unsupported_evidence"] for c in j["criteria"]} == {False}


def test_a_scorecard_shows_one_judge_never_a_mix(stored_run: tuple[str, Path, Path],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Judged offline, then partly re-judged by a model under the same rubric: each card is one judge's."""
    from polygon import usecases
    from polygon.usecases._grade import rescore_run
    from tests.fakes.llm_server import FakeLLMServer

    run_id, _suite, _agent = stored_run
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    stores = usecases.open_stores()
    with FakeLLMServer() as srv:
        srv.behaviour.fault_for = {0: "400"}.get  # the first conversation's judge call fails at once
        judge = f"openai:gpt-4o-mini@{srv.openai_url}"
        result = rescore_run(stores, run_id, rubric_version="v1", judge_model=judge)
    assert (result.added, len(result.failed)) == (1, 1)
    own = usecases.scorecard(stores, run_id)
    by_model = usecases.scorecard(stores, run_id, judge=judge)
    assert (own.judge_model, by_model.judge_model) == ("offline-heuristic", judge)
    # The model's card has one judged conversation; the failed one is unjudged, not filled in by
    # the heuristic judge's verdict.
    assert sum(by_model.verdicts.values()) == 1 and sum(own.verdicts.values()) == 2
    shown = runner.invoke(app, ["show", run_id])
    assert shown.exit_code == 0, shown.output
    assert "offline-heuristic" in shown.stdout and f"also judged under v1 by {judge}" in shown.stdout
    missing = runner.invoke(app, ["show", run_id, "--judge", "openai:nobody"])
    assert missing.exit_code == 2
    assert "has no judgments by 'openai:nobody' under rubric v1; judged by:" in missing.stderr
