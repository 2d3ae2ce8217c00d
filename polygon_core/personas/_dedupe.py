"""Near-duplicate personas: TF-IDF cosine over a description of who the caller is and wants.

The description leaves out fact *values* (account numbers, postcodes are random per persona and say
nothing about how different two callers are) and keeps what changes the conversation: type, goal,
intended outcome, difficulty, which facts it knows and does not know, and its traits.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..models import Persona

_NUMBER_WORDS = ("one", "two", "three", "four", "five")


def persona_text(persona: Persona) -> str:
    """The words near-duplicate detection compares (see module docstring)."""
    t = persona.traits
    # Numbers as words: TF-IDF's default tokenizer ignores one-character tokens like "3".
    return " ".join([
        f"type_{persona.type}", f"outcome_{persona.intended_outcome}",
        f"difficulty_{_NUMBER_WORDS[persona.difficulty - 1]}", persona.goal,
        "knows", *sorted(f"fact_{k}" for k in persona.ground_truth),
        "unknown", *sorted(f"unknown_{u.replace(' ', '_')}" for u in persona.unknown),
        "hidden", *sorted(f"hidden_{h}" for h in persona.hidden),
        f"verbosity_{_NUMBER_WORDS[t.verbosity - 1]}", f"patience_{persona.patience}",
    ])


def near_duplicates(personas: Sequence[Persona], *, threshold: float = 0.92) -> list[int]:
    """Indices of personas to drop: each is at least `threshold` cosine-similar to an earlier kept one.

    The first of a group of near-duplicates is kept (plan order), so dropping is deterministic.
    """
    if len(personas) < 2:
        return []
    # Imported here: scikit-learn takes a moment to import and only generation needs it.
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.metrics.pairwise import cosine_similarity

    matrix = TfidfVectorizer(lowercase=True).fit_transform([persona_text(p) for p in personas])
    similarity = cosine_similarity(matrix)
    kept: list[int] = []
    dropped: list[int] = []
    for i in range(len(personas)):
        if any(similarity[i, j] >= threshold for j in kept):
            dropped.append(i)
        else:
            kept.append(i)
    return dropped


def drop_near_duplicates(personas: Sequence[Persona], *,
                         threshold: float = 0.92) -> tuple[list[Persona], list[Persona]]:
    """(kept, dropped) personas, in their original order (see `near_duplicates`)."""
    drop = set(near_duplicates(personas, threshold=threshold))
    return ([p for i, p in enumerate(personas) if i not in drop],
            [p for i, p in enumerate(personas) if i in drop])
