"""Local judges that produce scores (issue 33, item 2): the compact format through a server that
constrains replies to the request's JSON Schema as llama.cpp does (`tests/fakes/llm_grammar.py`),
with the real `openai` SDK.

Judgments and probe answers are read, evidence by turn reference is verified, and a small model that
still quotes the rubric stays a loud judge_error (with the full format, its reason names the compact one).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from polygon.usecases import load_conversation, role_models
from polygon_core.models import Conversation
from tests.fakes.llm_grammar import GrammarModel, check_supported, transcript_turns
from tests.fakes.llm_server import Behaviour, FakeLLMServer

from .conftest import fast_settings, model_agent, run_pipeline

RUBRIC_LINE = "Did the caller's goal get reached (or correctly refused, transferred or called back)?"


def reads_the_call(path: tuple[str, ...], turns: list[dict[str, Any]]) -> Any:
    """A small model that reads the call: the last agent turn, its first words, a 4, and "yes"."""
    agent = [t for t in turns if t["speaker"] == "agent"] or turns
    last = agent[-1]
    return {"turn": last["turn"], "quote": " ".join(last["said"].split()[:6]), "score": 4,
            "answer": "yes"}.get(path[-1] if path else "")


def quotes_the_rubric(path: tuple[str, ...], turns: list[dict[str, Any]]) -> Any:
    """The 0.5B's habit: a 5 everywhere, the rubric as evidence (a full-format judge: `evidence`)."""
    return {"turn": turns[0]["turn"] if turns else 0, "quote": RUBRIC_LINE, "evidence": RUBRIC_LINE,
            "score": 5, "answer": "yes"}.get(path[-1] if path else "")


@pytest.fixture
def small_model() -> GrammarModel:
    return GrammarModel(reads_the_call)


def _server(model: GrammarModel) -> FakeLLMServer:
    return FakeLLMServer(Behaviour(grammar=model))


def _judged(tmp_path: Path, server: FakeLLMServer, judge: str, run_id: str) -> tuple[Any, Any]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    agent = model_agent(tmp_path, f"openai:qwen@{server.openai_url}")
    settings = fast_settings(tmp_path / "home", model_max_attempts=1)
    return run_pipeline(settings, agent, {"judge": judge, "probe": judge}, seeds=[0], run_id=run_id)


def test_a_compact_judge_on_a_constraining_server_scores_with_verified_turns(
        tmp_path: Path, small_model: GrammarModel) -> None:
    with _server(small_model) as server:
        name = f"compact:openai:qwen@{server.openai_url}"
        stores, run = _judged(tmp_path, server, name, "compact")
        seen = [b for b in server.behaviour.seen if b.get("response_format")]
    judgments = stores.repo.judgments(run.id)
    assert len(judgments) == 6 and {j.judge_model for j in judgments} == {name}  # the demo suite's six
    assert [j.status for j in judgments] == ["judged"] * 6
    for judgment in judgments:
        conv: Conversation = load_conversation(stores, run.id, judgment.conversation_id)
        last_agent = max(t.index for t in conv.turns if t.speaker == "agent")
        assert {c.evidence_turn for c in judgment.criteria} == {last_agent}
        assert not any(c.unsupported_evidence for c in judgment.criteria)
        assert {c.score for c in judgment.criteria} == {4.0}
    # What was sent: a schema llama.cpp's converter takes (the grammar checked each), whose turn enum
    # is the conversation's own turn numbers.
    judge_bodies = [b for b in seen if b["response_format"]["json_schema"]["name"] == "judgment"]
    assert len(judge_bodies) == 6 and len(small_model.schemas) == 12  # and six probe passes
    for body in judge_bodies:
        schema = body["response_format"]["json_schema"]["schema"]
        check_supported(schema)
        turns = [t["turn"] for t in transcript_turns(body)]
        assert schema["properties"]["factuality"]["properties"]["turn"] == {"enum": turns}
    answers = stores.repo.probe_answers(run.id)
    assert answers and {a.answer for a in answers} == {"yes"}
    assert all(a.evidence is not None and a.evidence.startswith("turn ") and "(agent): " in a.evidence
               for a in answers)


def test_a_small_model_quoting_the_rubric_stays_a_loud_judge_error(tmp_path: Path) -> None:
    with _server(GrammarModel(quotes_the_rubric)) as server:
        full = f"openai:qwen@{server.openai_url}"
        stores, run = _judged(tmp_path / "full", server, full, "full")
        stores_c, run_c = _judged(tmp_path / "compact", server, f"compact:{full}", "compact")
    for judgment in stores.repo.judgments(run.id):
        assert (judgment.status, judgment.composite) == ("judge_error", None)
        assert judgment.reason == (
            f"none of the judge's 8 evidence quotes is in the transcript (the first: \"{RUBRIC_LINE[:80]}…\"); "
            f"a small local model reads the compact format better: judge with 'compact:{full}' "
            "(docs/local-models.md)")
    for judgment in stores_c.repo.judgments(run_c.id):
        assert (judgment.status, judgment.composite) == ("judge_error", None)
        assert judgment.reason is not None and judgment.reason.startswith(
            "none of the judge's 8 evidence quotes is in the turn it names")


def test_compact_names_judge_and_answer_probes_but_play_no_other_role(tmp_path: Path) -> None:
    settings = fast_settings(tmp_path / "home")
    name = "compact:openai:qwen@http://127.0.0.1:9/v1"

    class Agent:
        model = "offline"

    roles = role_models(settings, None, Agent(), {"judge": name, "probe": name})
    assert (roles["judge"], roles["probe"]) == (name, name)
    with pytest.raises(ValueError, match=r"^caller model \(--caller-model\): 'compact:openai:qwen@http://"
                                         r"127.0.0.1:9/v1' names the compact judge format: it can judge and "
                                         r"answer probes, not play the caller$"):
        role_models(settings, None, Agent(), {"caller": name})
