"""Loop detection: is the agent repeating itself?

docs/design.md ("Loop"): the agent's two most recent replies overlap ≥ 90% (unigrams and bigrams together, so
"Yes." and "Yes." count); the conversation then ends early with end reason ``loop``.

Overlap, precisely: each reply is normalised to words by `normalise_words` (Unicode NFKC, case-folded,
every punctuation and symbol character replaced by a space, split on whitespace). Its feature set is
the *set* of its unigrams together with the *set* of its bigrams (adjacent word pairs), kept apart so
that a word never equals a pair. The overlap of two replies is the Jaccard similarity of their
feature sets, ``|A ∩ B| / |A ∪ B|``. Repetition inside one reply does not count (sets). A reply with
no words has no features: its overlap with anything is 0.0, so empty replies never loop.

Example: two 20-word replies of distinct words that differ in one middle word share 19 of 21
unigrams and 17 of 21 bigrams: 36 / 42 ≈ 0.857, not a loop at 0.9. Changing the last word instead
leaves 19 of 21 unigrams and 18 of 20 bigrams: 37 / 41 ≈ 0.902, a loop.
"""

from __future__ import annotations

import itertools
import unicodedata
from collections.abc import Sequence

__all__ = ["LOOP_THRESHOLD", "is_loop", "normalise_words", "overlap"]

LOOP_THRESHOLD = 0.9


def normalise_words(text: str) -> list[str]:
    """The words of `text`: NFKC, case-folded, punctuation and symbols treated as spaces.

    ``"Could you say that again?"`` → ``["could", "you", "say", "that", "again"]``. An apostrophe
    splits a word (``"don't"`` → ``["don", "t"]``) the same way on both sides of a comparison.
    """
    folded = unicodedata.normalize("NFKC", text).casefold()
    cleaned = "".join(" " if unicodedata.category(ch)[0] in "PS" else ch for ch in folded)
    return cleaned.split()


def _features(text: str) -> set[tuple[str, ...]]:
    words = normalise_words(text)
    unigrams = {(w,) for w in words}
    bigrams = {(a, b) for a, b in itertools.pairwise(words)}
    return unigrams | bigrams


def overlap(a: str, b: str) -> float:
    """Jaccard similarity of the unigram-and-bigram feature sets of `a` and `b` (see module doc).

    1.0 for replies with the same words in the same order; 0.0 when either has no words.
    """
    fa, fb = _features(a), _features(b)
    if not fa or not fb:
        return 0.0
    return len(fa & fb) / len(fa | fb)


def is_loop(replies: Sequence[str], threshold: float = LOOP_THRESHOLD) -> bool:
    """True when the two most recent of the agent's `replies` (oldest first) overlap ≥ `threshold`.

    Fewer than two replies, or an empty most-recent pair member, is never a loop.

    Raises:
        ValueError: `threshold` outside (0, 1].
    """
    if not 0 < threshold <= 1:
        raise ValueError(f"threshold must be within (0, 1], got {threshold!r}")
    if len(replies) < 2:
        return False
    return overlap(replies[-2], replies[-1]) >= threshold
