"""The hand-written evaluation dialogues (data/dialogues.txt) as production-style conversations."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from polygon_core.checks import Checks, run_checks
from polygon_core.models import Conversation, EndReason, Turn

DATA = Path(__file__).parent / "data" / "dialogues.txt"
_SPEAKERS = {"U": "caller", "S": "agent"}


@dataclass(frozen=True)
class Rated:
    """One dialogue, its checks (as for an imported call) and the author's overall rating."""

    conversation: Conversation
    checks: Checks
    rating: int


def _conversation(cid: str, lines: list[str]) -> Conversation:
    turns = []
    for i, line in enumerate(lines):
        tag, text = line.split(":", 1)
        turns.append(Turn(index=i, speaker=_SPEAKERS[tag], text=text.strip()))  # type: ignore[arg-type]
    language = "ru" if cid.startswith("ru-") else "en"
    return Conversation(id=cid, scenario_id="production", seed=0, agent_name="eval", agent_version="eval",
                        persona_hash="", caller_type="real", difficulty=0, language=language, turns=turns,
                        end_reason=EndReason.CALLER_HANGUP)


def load_rated(path: Path = DATA) -> list[Rated]:
    """Every dialogue in file order."""
    out: list[Rated] = []
    blocks = path.read_text(encoding="utf-8").split("\n## ")[1:]
    for block in blocks:
        header, *lines = [ln for ln in block.strip().splitlines() if ln.strip()]
        cid, rating = header.split()
        conv = _conversation(cid, lines)
        out.append(Rated(conv, run_checks(conv, None), int(rating.removeprefix("rating="))))
    return out
