"""The judge tier: the structured-output request it builds and how it reads the reply."""

from __future__ import annotations

import json

from polygon_core.analysis import (
    AXES,
    analyze_prompt,
    analyze_prompt_with,
    judge_findings,
    judge_request,
)
from polygon_core.analysis._embeddings import embeddings_tier
from polygon_core.analysis._rules import rules_tier
from polygon_core.analysis.patterns import ENGLISH
from polygon_core.conversation import ProviderFailure
from polygon_core.providers import ChatModel, ChatRequest, ChatResponse

TEXT = "Always confirm the amount. Never confirm amounts. Be nice."


def _reply(parsed: object = None, text: str = "", unparseable: bool = False) -> ChatResponse:
    return ChatResponse(parsed=parsed, text=text, unparseable=unparseable, provider="fake", model="judge-1")


class FakeJudge:
    """A ChatModel that records the request and answers with a fixed structured reply."""

    name = "fake:judge-1"

    def __init__(self, parsed: object) -> None:
        self.parsed = parsed
        self.requests: list[ChatRequest] = []

    async def chat(self, request: ChatRequest) -> ChatResponse:
        self.requests.append(request)
        return _reply(self.parsed)


REPLY = {
    "overload": {"score": 0.0, "findings": []},
    "attention_dilution": {"score": 0.0, "findings": []},
    "conflict": {"score": 0.9, "findings": [
        {"quote": "Never confirm amounts.", "reason": "contradicts the first rule"},
        {"quote": "not in the prompt", "reason": "dropped"}]},
    "ambiguity": {"score": 0.5, "findings": [{"quote": "nice", "reason": "nice how?"}]},
    "redundancy": {"score": 1.7, "findings": []},
}


def test_request_asks_for_structured_output_on_the_five_axes() -> None:
    request = judge_request(TEXT, "en")
    assert request.response_schema is not None
    assert request.response_schema["required"] == list(AXES)
    assert request.schema_name == "prompt_analysis"
    assert (request.temperature, request.seed, request.role) == (0.0, 0, "analysis")
    assert request.messages[-1].content == f"<prompt>\n{TEXT}\n</prompt>"
    assert "in Russian" in judge_request(TEXT, "ru").messages[0].content


def test_reply_quotes_become_exact_spans_and_scores_are_clamped() -> None:
    found = judge_findings(TEXT, _reply(REPLY))
    assert found is not None
    assert found.scores == {"overload": 0.0, "attention_dilution": 0.0, "conflict": 0.9, "ambiguity": 0.5,
                            "redundancy": 1.0}
    assert [(h.axis, TEXT[h.start:h.end], h.reason, h.tier) for h in found.highlights] == [
        ("conflict", "Never confirm amounts.", "contradicts the first rule", "judge"),
        ("ambiguity", "nice", "nice how?", "judge"),
    ]


def test_unreadable_replies_give_no_findings() -> None:
    assert judge_findings(TEXT, _reply(None, unparseable=True)) is None
    assert judge_findings(TEXT, _reply(None, text="not json")) is None
    assert judge_findings(TEXT, _reply({"conflict": {"score": "high"}})) is None
    # A server without structured output: the JSON arrives as text.
    assert judge_findings(TEXT, _reply(None, text=json.dumps(REPLY))) is not None


async def test_judge_tier_joins_the_offline_tiers() -> None:
    model = FakeJudge(REPLY)
    assert isinstance(model, ChatModel)
    analysis = await analyze_prompt_with(model, TEXT, max_tier=4)
    rules = rules_tier(TEXT, ENGLISH).scores["conflict"]
    emb = embeddings_tier(TEXT, ENGLISH).scores["conflict"]
    assert rules == 0.6 and emb > 0.0
    assert analysis.tiers_run == ["rules", "surprisal", "embeddings", "judge"]
    assert analysis.tiers_skipped == {}
    assert analysis.axes["conflict"].tiers == ["rules", "embeddings", "judge"]
    # The judge quotes the rule it rates 0.9: it is confident, and the highest tier, so it sets the
    # score (averaged with the offline tiers it would be round((0.6 + emb + 0.9) / 3, 4)).
    assert (analysis.axes["conflict"].score, analysis.axes["conflict"].set_by) == (0.9, "judge")
    # Ambiguity 0.5 with a located quote: the judge sets it too.
    assert (analysis.axes["ambiguity"].score, analysis.axes["ambiguity"].set_by) == (0.5, "judge")
    assert len(model.requests) == 1


async def test_unreadable_judge_is_reported_as_skipped() -> None:
    analysis = await analyze_prompt_with(FakeJudge("nonsense"), TEXT)
    assert analysis.tiers_run == ["rules", "surprisal", "embeddings"]
    assert analysis.tiers_skipped == {"judge": "failed: the reply of fake:judge-1 did not fit the schema"}


class FailingJudge:
    """A ChatModel whose provider answers 401 (after the provider layer's own handling)."""

    name = "openai:judge-1"

    async def chat(self, request: ChatRequest) -> ChatResponse:
        raise ProviderFailure("401 Unauthorized from openai:judge-1 at http://x/v1: check OPENAI_API_KEY")


async def test_a_provider_failure_leaves_the_offline_analysis_and_names_it() -> None:
    analysis = await analyze_prompt_with(FailingJudge(), TEXT)
    assert analysis.tiers_run == ["rules", "surprisal", "embeddings"]
    assert analysis.tiers_skipped == {
        "judge": "failed: 401 Unauthorized from openai:judge-1 at http://x/v1: check OPENAI_API_KEY"}
    assert analysis.axes == analyze_prompt(TEXT, max_tier=3).axes


async def test_below_tier_four_the_model_is_not_called() -> None:
    model = FakeJudge(REPLY)
    analysis = await analyze_prompt_with(model, TEXT, max_tier=3)
    assert model.requests == []
    assert analysis == analyze_prompt(TEXT, max_tier=3)
