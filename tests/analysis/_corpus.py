"""The hand-written corpus: prompts with one planted defect each, and their clean twins."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

import yaml

from polygon_core.analysis import PromptAnalysis, analyze_prompt

CORPUS = Path(__file__).parent / "corpus"


@dataclass(frozen=True)
class Case:
    """One planted defect: the axis it should raise, both prompts, and the planted spans."""

    id: str
    axis: str
    defect: str
    clean: str
    planted: list[tuple[int, int]]


def cases() -> list[Case]:
    """Every case of corpus/manifest.yaml, with planted substrings located in the defective text."""
    out = []
    for entry in yaml.safe_load((CORPUS / "manifest.yaml").read_text(encoding="utf-8")):
        defect = (CORPUS / entry["defect"]).read_text(encoding="utf-8")
        clean = (CORPUS / entry["clean"]).read_text(encoding="utf-8")
        spans = []
        for phrase in entry["planted"]:
            assert defect.count(phrase) == 1, f"{entry['id']}: planted {phrase!r} must occur exactly once"
            start = defect.index(phrase)
            spans.append((start, start + len(phrase)))
        out.append(Case(entry["id"], entry["axis"], defect, clean, spans))
    return out


CASES = cases()


@cache
def analysed(text: str, max_tier: int = 3) -> PromptAnalysis:
    """The analysis of `text`, computed once per test session (the determinism test recomputes)."""
    return analyze_prompt(text, max_tier=max_tier)
