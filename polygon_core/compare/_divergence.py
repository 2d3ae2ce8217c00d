"""The divergence point of two conversations: the first turn where they part.

docs/design.md ("Divergence point"): align turn by turn; the first turn where the speakers differ, the tool calls differ (name
or normalised arguments), one ends or transfers and the other does not, or the word-bigram Jaccard
similarity is below 0.5 (unigrams when either side has under two words).

Precisely, turns are aligned by their position in the list (0-based). At each index the four checks
run, and every one that fails is a reason, in this fixed order:

* ``speaker``: the speakers differ.
* ``tool_calls``: the lists of ``(name, canonical arguments)`` differ (order matters). Canonical
  arguments are the canonical JSON (sorted keys) of the arguments after normalising every value:
  strings stripped and case-folded, integral floats as integers (``49 == 49.0``), booleans kept as
  booleans (``True != 1``), lists in order, mappings recursively. Names compare exactly.
* ``end``: the ``end`` values differ: exactly one is set, or both are set to different kinds
  (``hangup``, ``transfer``, ``end``, ``callback``).
* ``wording``: the texts' similarity is below 0.5. Similarity is the Jaccard similarity of the sets
  of word bigrams, or of the sets of words when either text has under two words; words are
  `polygon_core.loops.normalise_words` (NFKC, case-folded, punctuation stripped). Two texts without
  words are similar (1.0); a text without words and one with words are not (0.0). Exactly 0.5 is
  not a divergence.

When one conversation is longer, and the shorter one did not part from it before, the first index
past the shorter one is the divergence point with the single reason ``end``: one conversation
ended there and the other did not. Its turn on the ended side is None. Two conversations of the
same length that never part have no divergence point (None).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Literal

from polygon_core._hashing import canonical_json
from polygon_core.loops import normalise_words
from polygon_core.models import ToolCall, Turn

Reason = Literal["speaker", "tool_calls", "end", "wording"]
REASONS: tuple[Reason, ...] = ("speaker", "tool_calls", "end", "wording")
WORDING_THRESHOLD = 0.5

TurnLike = Turn | Mapping[str, Any]


@dataclass(frozen=True)
class Divergence:
    """Where two conversations first part.

    Attributes:
        turn: the 0-based turn index.
        reasons: the checks that failed there, a subset of `REASONS` in that order.
        a_turn: the first conversation's turn at that index, or None when it had already ended.
        b_turn: the second conversation's turn at that index, or None when it had already ended.
    """

    turn: int
    reasons: tuple[Reason, ...]
    a_turn: TurnLike | None
    b_turn: TurnLike | None


def _field(turn: TurnLike, name: str, default: Any = None) -> Any:
    if isinstance(turn, Turn):  # first: the abstract Mapping check is slow, and Turns are the usual case
        return getattr(turn, name, default)
    if isinstance(turn, Mapping):
        return turn.get(name, default)
    return getattr(turn, name, default)


def _normalise_value(value: Any) -> Any:
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, str):
        return value.strip().casefold()
    if isinstance(value, int):
        return value
    if isinstance(value, (float, Decimal)):
        number = float(value)
        return int(number) if math.isfinite(number) and number.is_integer() else number
    if isinstance(value, Mapping):
        return {str(k): _normalise_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_normalise_value(v) for v in value]
    return value


def _tool_calls(turn: TurnLike) -> list[tuple[str, str]]:
    calls = _field(turn, "tool_calls") or []
    normalised: list[tuple[str, str]] = []
    for call in calls:
        if isinstance(call, ToolCall):
            name, arguments = call.name, call.arguments
        else:
            name, arguments = call.get("name", ""), call.get("arguments") or {}
        normalised.append((name, canonical_json(_normalise_value(arguments))))
    return normalised


def _ends_differ(a: TurnLike, b: TurnLike) -> bool:
    return _field(a, "end") != _field(b, "end")


def wording_similarity(a: str, b: str) -> float:
    """Jaccard similarity of word bigrams (of words when either text has under two words).

    Two texts without words → 1.0; one without words → 0.0.
    """
    if a == b:  # the common case up to a divergence point, and 1.0 by the rule below
        return 1.0
    wa, wb = normalise_words(a), normalise_words(b)
    if not wa and not wb:
        return 1.0
    if len(wa) < 2 or len(wb) < 2:
        sa: set[tuple[str, ...]] = {(w,) for w in wa}
        sb: set[tuple[str, ...]] = {(w,) for w in wb}
    else:
        sa = set(itertools.pairwise(wa))
        sb = set(itertools.pairwise(wb))
    return len(sa & sb) / len(sa | sb)


def _reasons(a: TurnLike, b: TurnLike) -> tuple[Reason, ...]:
    reasons: list[Reason] = []
    if _field(a, "speaker") != _field(b, "speaker"):
        reasons.append("speaker")
    if _tool_calls(a) != _tool_calls(b):
        reasons.append("tool_calls")
    if _ends_differ(a, b):
        reasons.append("end")
    if wording_similarity(_field(a, "text") or "", _field(b, "text") or "") < WORDING_THRESHOLD:
        reasons.append("wording")
    return tuple(reasons)


def divergence_point(a: Sequence[TurnLike], b: Sequence[TurnLike]) -> Divergence | None:
    """The first turn where conversations `a` and `b` part, or None when they never do.

    Each turn is a `polygon_core.models.Turn` or a mapping with ``speaker``, ``text``,
    ``tool_calls`` (a list of ``{name, arguments}``; may be absent) and ``end`` (None, ``hangup``,
    ``transfer``, ``end`` or ``callback``). See the module doc for the rules.
    """
    for index, (turn_a, turn_b) in enumerate(zip(a, b, strict=False)):
        reasons = _reasons(turn_a, turn_b)
        if reasons:
            return Divergence(index, reasons, turn_a, turn_b)
    if len(a) == len(b):
        return None
    index = min(len(a), len(b))
    return Divergence(
        index,
        ("end",),
        a[index] if index < len(a) else None,
        b[index] if index < len(b) else None,
    )
