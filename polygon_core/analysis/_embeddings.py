"""Tier 3, embeddings: near-duplicate rules, conflicting look-alikes and scattered related rules.

Offline the vectors are TF-IDF over character n-grams of each sentence's content words (scikit-learn),
fitted on the prompt's own sentences: n-grams inside words match inflected forms (refund/refunds,
договор/договора) without a stemmer. A provider's embeddings can be passed in as `embed` instead.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ._models import Highlight, TierFindings
from ._rules import classify, opposite
from ._text import Unit, quote, split_units, words_in
from .patterns import LanguagePatterns

#: Cosine similarity from which two sentences state the same rule.
DUPLICATE = 0.45
#: Cosine similarity from which two sentences are about the same subject.
RELATED = 0.3
#: Sentences between two related rules from which they count as scattered.
SCATTER_GAP = 4

#: Maps sentences to L2-normalised row vectors (a dense array or a scipy sparse matrix).
Embed = Callable[[Sequence[str]], Any]


def tfidf_embed(documents: Sequence[str]) -> Any:
    """L2-normalised TF-IDF vectors (sparse) of character 3–5-grams within words (deterministic)."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    if not any(doc.strip() for doc in documents):
        return np.zeros((len(documents), 1))
    vectorizer = TfidfVectorizer(analyzer="char_wb", ngram_range=(3, 5), sublinear_tf=True, lowercase=True)
    return vectorizer.fit_transform(documents)


def _cosine(vectors: Any) -> np.ndarray:
    # Sparse products stay sparse until the (small) sentence × sentence result.
    product = vectors @ vectors.T
    dense = product.toarray() if hasattr(product, "toarray") else np.asarray(product)
    return np.clip(dense, 0.0, 1.0)


def _document(unit: Unit, patterns: LanguagePatterns) -> str:
    kept = [w.text.lower() for w in words_in(unit.text)
            if len(w.text) > 2 and w.text.lower() not in patterns.stopwords]
    return " ".join(kept)



def _hl(unit: Unit, axis: str, reason: str) -> Highlight:
    return Highlight(start=unit.start, end=unit.end, axis=axis, reason=reason, tier="embeddings")  # type: ignore[arg-type]


def embeddings_tier(text: str, patterns: LanguagePatterns, embed: Embed = tfidf_embed) -> TierFindings:
    """Redundancy, conflict and attention dilution (scattered rules) from sentence similarity."""
    units = [u for u in split_units(text) if len(words_in(u.text)) >= 3]
    if len(units) < 2:
        return TierFindings(tier="embeddings",
                            scores={"redundancy": 0.0, "conflict": 0.0, "attention_dilution": 0.0})
    sim = _cosine(embed([_document(u, patterns) for u in units]))
    rules = [classify(u, patterns) for u in units]
    keep_dup = keep_conf = 1.0
    highlights: list[Highlight] = []
    scattered = 0
    related_pairs = 0
    for i in range(len(units)):
        for j in range(i + 1, len(units)):
            s = float(sim[i, j])
            a, b = rules[i], rules[j]
            if a is None or b is None or s < RELATED:
                continue
            related_pairs += 1
            if opposite(a, b):
                keep_conf *= 1.0 - 0.6 * min(1.0, (s - RELATED) / (1.0 - RELATED) * 2.5)
                highlights += [_hl(units[i], "conflict", f"opposes the similar rule “{quote(units[j])}” (similarity {s:.2f})"),
                               _hl(units[j], "conflict", f"opposes the similar rule “{quote(units[i])}” (similarity {s:.2f})")]
            elif s >= DUPLICATE:
                keep_dup *= 1.0 - 0.6 * min(1.0, (s - DUPLICATE) / (1.0 - DUPLICATE) * 2.5)
                highlights += [_hl(units[i], "redundancy", f"states the same rule as “{quote(units[j])}” (similarity {s:.2f})"),
                               _hl(units[j], "redundancy", f"states the same rule as “{quote(units[i])}” (similarity {s:.2f})")]
            # Related rules far apart with nothing related between them are read apart.
            between = sim[i, i + 1:j].max(initial=0.0), sim[j, i + 1:j].max(initial=0.0)
            if j - i > SCATTER_GAP and max(between) < RELATED:
                scattered += 1
                highlights.append(_hl(units[j], "attention_dilution",
                                      f"related to “{quote(units[i])}”, {j - i - 1} sentences earlier: "
                                      "keep related rules together"))
    dilution = scattered / related_pairs if related_pairs else 0.0
    return TierFindings(tier="embeddings",
                        scores={"redundancy": round(1.0 - keep_dup, 6), "conflict": round(1.0 - keep_conf, 6),
                                "attention_dilution": round(dilution, 6)},
                        highlights=highlights)
