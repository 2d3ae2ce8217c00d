"""The committed USS slice (data/README.md) as labelled conversations, checked as imported calls are."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from polygon_core.calibration import OVERALL, LabelledConversation
from polygon_core.checks import run_checks
from polygon_core.models import Conversation, EndReason, Turn

DATA = Path(__file__).parent / "data"
CALLS = DATA / "uss_mwoz_120.jsonl"
LABELS = DATA / "uss_mwoz_120.csv"


def _conversation(record: dict) -> Conversation:
    turns = [Turn(index=i, speaker=t["speaker"], text=t["text"]) for i, t in enumerate(record["turns"])]
    return Conversation(id=record["id"], scenario_id="production", seed=0, agent_name="uss", agent_version="uss",
                        persona_hash="", caller_type="real", difficulty=0, language="en", turns=turns,
                        end_reason=EndReason.CALLER_HANGUP)


def load_slice() -> list[LabelledConversation]:
    """The 120 dialogues in file order; `overall` is the raters' mean, `raters` their own scores."""
    raters: dict[str, dict[str, dict[str, int]]] = {}
    with LABELS.open() as fh:
        for row in csv.DictReader(fh):
            raters.setdefault(row["external_id"], {})[row["rater"]] = {OVERALL: int(row["score"])}
    out = []
    with CALLS.open() as fh:
        for line in fh:
            conv = _conversation(json.loads(line))
            scores = raters[conv.id]
            mean = sum(s[OVERALL] for s in scores.values()) / len(scores)
            out.append(LabelledConversation(conv, run_checks(conv, None), None, {OVERALL: mean}, scores))
    return out
