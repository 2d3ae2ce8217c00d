"""The HTML report says which criteria the judge's reply left out (counted as 1) and which quotes the
transcript does not hold, beside a conversation's evidence (before: a plain quote, and nothing)."""

from __future__ import annotations

from polygon_core.compare import compare_configurations
from polygon_core.models import CriterionScore
from polygon_core.reports import comparison_html

from .compare_fixtures import demo_pair


def test_html_marks_missing_criteria_and_quotes_not_in_the_transcript() -> None:
    v1, v2 = demo_pair()
    first = v1.judgments[0]
    marked = first.model_copy(update={"criteria": [
        CriterionScore(criterion="safety_compliance", score=1.0, status="missing"),
        CriterionScore(criterion="goal_completion", score=1.0, status="missing"),
        CriterionScore(criterion="factuality", score=5.0, evidence="Your refund is guaranteed.",
                       unsupported_evidence=True),
        CriterionScore(criterion="persona_tone", score=5.0, evidence="First I need to verify your identity"),
    ]})
    v1 = v1.model_copy(update={"judgments": [marked, *v1.judgments[1:]]})
    page = comparison_html(compare_configurations((v1, v2)))
    assert page.count("Missing from the judge's reply (each counted as 1): safety_compliance, "
                      "goal_completion</p>") == 1
    assert "<li><b>factuality</b>: “Your refund is guaranteed.” <b>(not in the transcript)</b></li>" in page
    assert "<li><b>persona_tone</b>: “First I need to verify your identity”</li>" in page
    assert page.count("(not in the transcript)") == 1
