"""The caller's turn-taking on a bot's line, the pure part: what it decides per bot turn, and the
bot's speech on the timeline.

Decisions draw from the same seeded streams as the simulated call's (`CallLine`):
`stable_seed("polygon.call", aspect, conversation, turn)` with the aspects `barge`, `backchannel`
and `reaction`, so the same conversation id and seed make the same decisions.

* Barge-in: with the caller type's `barge_in_p`, the caller talks over a bot turn once the turn has
  played `BARGE_MIN_MS + u * BARGE_SPREAD_MS` from its first speech (u drawn per turn), if the bot's
  audio is still playing then. A shorter turn is not talked over.
* Backchannel: with `backchannel_p`, the caller says one of the language's backchannels once the
  turn has played `BACKCHANNEL_MIN_MS + u * BACKCHANNEL_SPREAD_MS`, if the bot still talks then.
* Reaction: a normal line starts no earlier than the bot's speech end + a pause drawn from
  `reaction_ms` (whole 200 ms ticks, as on the simulated clock).

The bot's segments (`agent_segments`) are its channel's speech frames, after any `clear`, grouped
with gaps under `BOT_TURN_END_MS`: a frame belongs to the last transcript turn that had started
speaking by then, so the rest of a turn the caller talked over stays that turn's, and a segment ends
where the bot really stopped (at its `clear`, or where its audio ran out).
"""

from __future__ import annotations

import bisect
import random
from collections.abc import Sequence
from dataclasses import dataclass

from polygon_core._hashing import stable_seed
from polygon_core.voice import BACKCHANNEL_MIN_MS, BARGE_MIN_MS, TICK_MS, CallerHabits, Segment, backchannels

__all__ = ["BACKCHANNEL_SPREAD_MS", "BARGE_SPREAD_MS", "STREAM_GAP_MS", "SpokenTurn", "TurnPlan", "agent_segments",
           "reaction_ms", "turn_plan"]

BARGE_SPREAD_MS = 1000  # the caller talks over a bot turn 2.0-3.0 s into it
BACKCHANNEL_SPREAD_MS = 1000  # and backchannels 3.0-4.0 s into it
# After a barge-in, bot audio that keeps arriving with gaps under this continues the turn the caller
# talked over (a bot streaming at line speed); audio after a longer pause is the bot's next turn.
STREAM_GAP_MS = 400


@dataclass(frozen=True)
class TurnPlan:
    """What the caller will do during one bot turn: ms of the turn after which it talks over it or
    backchannels (None: it does not)."""

    barge_at_ms: int | None
    backchannel_at_ms: int | None
    backchannel: str


def _rng(aspect: str, conversation_id: str, turn: int | None) -> random.Random:
    return random.Random(stable_seed("polygon.call", aspect, conversation_id, turn))


def turn_plan(habits: CallerHabits, conversation_id: str, turn: int, language: str) -> TurnPlan:
    """The caller's plan for bot turn `turn` (the module docstring's rules)."""
    rng = _rng("barge", conversation_id, turn)
    u, where = rng.random(), rng.random()
    barge = BARGE_MIN_MS + int(where * BARGE_SPREAD_MS) if u < habits.barge_in_p else None
    rng = _rng("backchannel", conversation_id, turn)
    u, where, pick = rng.random(), rng.random(), rng.randrange(1 << 30)
    options = backchannels(language)
    nod = BACKCHANNEL_MIN_MS + int(where * BACKCHANNEL_SPREAD_MS) if u < habits.backchannel_p else None
    return TurnPlan(barge_at_ms=barge, backchannel_at_ms=nod, backchannel=options[pick % len(options)])


def reaction_ms(habits: CallerHabits, conversation_id: str, turn: int) -> int:
    """The caller's pause before its line `turn`, in whole ticks of `habits.reaction_ms`."""
    low, high = habits.reaction_ms
    return _rng("reaction", conversation_id, turn).randint(low // TICK_MS, high // TICK_MS) * TICK_MS


@dataclass(frozen=True)
class SpokenTurn:
    """A bot turn as the line played it: its index, where its speech started, what it said and what
    the caller heard of it, and whether the caller talked over it."""

    index: int
    start_ms: float
    text: str
    heard: str
    barged: bool = False


def _owner(turns: Sequence[SpokenTurn], starts: Sequence[float], t: int) -> SpokenTurn | None:
    """The last turn that had started speaking by `t` (`starts`: the turns' sorted starts)."""
    i = bisect.bisect_right(starts, t)
    return turns[i - 1] if i else None


def agent_segments(frames: Sequence[int], frame_ms: int, turns: Sequence[SpokenTurn], *, gap_ms: int,
                   cuts: Sequence[int] = ()) -> list[Segment]:
    """The bot's speech as segments: `frames` (start ms of its speech frames) grouped by owner turn
    and gaps under `gap_ms`; a segment a `cut` (a `clear`) stopped ends there at the latest, marked
    interrupted. The turn's text is on its first segment."""
    ordered = sorted(turns, key=lambda t: t.start_ms)
    starts = [t.start_ms for t in ordered]
    groups: list[tuple[SpokenTurn | None, list[int]]] = []
    for t in sorted(frames):
        owner = _owner(ordered, starts, t)
        if groups and groups[-1][0] is owner and t - (groups[-1][1][1]) < gap_ms:
            groups[-1][1][1] = t + frame_ms
        else:
            groups.append((owner, [t, t + frame_ms]))
    segments: list[Segment] = []
    labelled: set[int] = set()
    for owner, (start, end) in groups:
        cut = next((c for c in sorted(cuts) if start < c <= end + frame_ms), None)
        first = owner is not None and owner.index not in labelled
        if owner is not None:
            labelled.add(owner.index)
        segments.append(Segment(side="agent", start_ms=start, end_ms=end if cut is None else min(end, cut),
                                text=owner.text if first and owner else "",
                                heard=owner.heard if first and owner else None,
                                turn=owner.index if owner else None, interrupted=cut is not None))
    return segments
