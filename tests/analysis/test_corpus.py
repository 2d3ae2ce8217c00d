"""Acceptance on the corpus: every planted defect raises its axis above the clean twin, with a
highlight on the planted span, using the offline tiers alone."""

from __future__ import annotations

import pytest

from polygon_core.analysis import AXES, OFFLINE_TIERS, analyze_prompt

from ._corpus import CASES, Case, analysed

IDS = [c.id for c in CASES]


def test_corpus_covers_five_defects_in_two_languages() -> None:
    assert sorted(c.id for c in CASES) == sorted(
        f"{lang}-{kind}" for lang in ("en", "ru")
        for kind in ("conflict", "redundancy", "buried", "vague", "overload"))
    assert {c.axis for c in CASES} == set(AXES)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_planted_defect_scores_higher_than_its_clean_twin(case: Case) -> None:
    defect, clean = analysed(case.defect), analysed(case.clean)
    assert defect.tiers_run == list(OFFLINE_TIERS)
    assert defect.axes[case.axis].score > clean.axes[case.axis].score


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_every_planted_span_is_highlighted_on_its_axis(case: Case) -> None:
    highlights = analysed(case.defect).axes[case.axis].highlights
    for start, end in case.planted:
        on_span = [h for h in highlights if h.start < end and h.end > start]
        assert on_span, f"{case.id}: nothing highlighted on {case.defect[start:end]!r}"
        assert all(h.axis == case.axis for h in on_span)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_clean_twin_has_no_highlight_on_the_axis_where_the_defect_was(case: Case) -> None:
    # The twins differ only in the planted passage, so the clean one must not be flagged for it
    # by the tier that catches the defect most directly (the rules tier).
    clean = analysed(case.clean, 1).axes[case.axis]
    assert clean.score == 0.0
    assert clean.highlights == []


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_spans_slice_the_original_text(case: Case) -> None:
    for text in (case.defect, case.clean):
        analysis = analysed(text)
        assert analysis.length == len(text)
        for axis, result in analysis.axes.items():
            for h in result.highlights:
                assert 0 <= h.start < h.end <= len(text)
                assert h.axis == axis
                piece = text[h.start:h.end]
                assert piece == piece.strip() and piece  # a span never starts or ends in whitespace


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_scores_are_deterministic(case: Case) -> None:
    first = analyze_prompt(case.defect, max_tier=3)
    second = analyze_prompt(case.defect, max_tier=3)
    assert first == second
    assert first.model_dump_json() == second.model_dump_json()
